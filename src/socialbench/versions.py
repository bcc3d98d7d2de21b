"""Installed versions of distributions, read fast.

:func:`importlib.metadata.version` parses a distribution's whole ``METADATA`` file with the
e-mail parser (~2 ms each); a run records several versions (run.json, the render-cache and
dataset-snapshot keys). :func:`installed_version` reads only the ``Version`` field of the
file's header section (core metadata specification), once per process.
"""

from __future__ import annotations

from functools import cache
from importlib import metadata


@cache
def installed_version(name: str) -> str | None:
    """The installed version of distribution ``name``, or None when it is not installed."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    for line in text.splitlines():
        if not line.strip():
            break  # the header section ends at the first blank line
        field, _, value = line.partition(":")
        if field.strip().lower() == "version":
            return value.strip()
    return dist.version
