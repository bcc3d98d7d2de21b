"""File-name-safe forms of record ids (for the image and overlay files stages write)."""

from __future__ import annotations

import hashlib
import re

__all__ = ["safe_name", "short_hash", "unique_name"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(record_id: str) -> str:
    """A file-name-safe form of an id (``bus-station/s-003`` -> ``bus-station__s-003``).

    Not one-to-one (``a b`` and ``a?b`` both give ``a_b``): use :func:`unique_name` where
    different ids must never share a file.
    """
    name = _UNSAFE.sub("_", record_id.replace("/", "__")).strip("._")
    return name or "item"


def short_hash(text: str, n: int = 8) -> str:
    """The first ``n`` hex digits of the SHA-256 of ``text`` (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:n]


def unique_name(record_id: str) -> str:
    """A file-name-safe form of an id that differs for different ids: the id itself when it
    is already safe (``g1`` -> ``g1``), else :func:`safe_name` plus a short hash of the
    original id (``cafe/s-1`` -> ``cafe__s-1-<8 hex>``, ``cafe s-1`` -> ``cafe_s-1-<8 hex>``,
    and ``cafe?s-1`` gets another hash)."""
    name = safe_name(record_id)
    return name if name == record_id else f"{name}-{short_hash(record_id)}"
