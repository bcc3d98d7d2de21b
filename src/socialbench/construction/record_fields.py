"""Typed reads of the fields of a stage record (a JSON object an earlier ``socialbench build``
stage wrote): each returns the field as the type the reading stage needs, or raises
:class:`~socialbench.errors.DataError` naming the record's id and the field."""

from __future__ import annotations

from collections.abc import Mapping

from socialbench.errors import DataError

__all__ = ["text", "texts", "whole_number", "mapping", "mappings"]

_FIX = "rerun the stage that wrote this record, or fix the field by hand"


def _wrong(record: Mapping[str, object], key: str, what: str) -> DataError:
    value = record.get(key)
    found = "missing" if value is None else f"{type(value).__name__} {value!r:.60}"
    return DataError.single(f"record {record.get('id')!r}", key, f"is {found}, not {what}", _FIX)


def text(record: Mapping[str, object], key: str, default: str | None = None) -> str:
    """``record[key]``, which must be text; ``default`` (when given) for a missing, null or
    empty one."""
    value = record.get(key)
    if default is not None and value in (None, ""):
        return default
    if not isinstance(value, str):
        raise _wrong(record, key, "text")
    return value


def texts(record: Mapping[str, object], key: str) -> list[str]:
    """``record[key]``, which must be a list of text (missing or null: empty)."""
    value = record.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _wrong(record, key, "a list of text")
    return value


def whole_number(record: Mapping[str, object], key: str) -> int:
    """``record[key]``, which must be a whole number (not true/false)."""
    value = record.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _wrong(record, key, "a whole number")
    return value


def mapping(record: Mapping[str, object], key: str) -> Mapping[str, object]:
    """``record[key]``, which must be a JSON object (missing, null or empty: ``{}``)."""
    value = record.get(key) or {}
    if not isinstance(value, dict):
        raise _wrong(record, key, "an object")
    return value


def mappings(record: Mapping[str, object], key: str) -> list[Mapping[str, object]]:
    """``record[key]``, which must be a list of JSON objects (missing or null: empty)."""
    value = record.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise _wrong(record, key, "a list of objects")
    return value
