"""JSONL files of the construction pipeline: reading as untrusted input (every bad line reported
with its number; a truncated last line, from a kill mid-write, ignored and cut by the next
append, :func:`repair_tail`), appending one flushed line at a time, and atomic rewrites."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from socialbench.errors import DataError, Problem
from socialbench.files.atomic_write import open_append, refuse_link, write_bytes_atomic
from socialbench.files.safe_read import parse_json_bytes, read_regular_bytes

__all__ = [
    "read_jsonl",
    "iter_jsonl",
    "numbered_jsonl",
    "write_jsonl",
    "append_jsonl",
    "latest_by_id",
    "repair_tail",
]


#: Largest JSONL file read (bytes).
MAX_JSONL_BYTES = 1024**3


def _parse_lines(path: Path) -> Iterator[tuple[int, dict[str, Any] | None, str]]:
    """(line number, object or None when unusable, raw text) for every non-blank line. Read
    as untrusted input (:mod:`socialbench.files.safe_read`): a regular file only (a FIFO or
    ``/dev/zero`` is a :class:`DataError`, never read), size-capped; each line strict UTF-8
    JSON (no NaN, bounded depth: 100,000 nested brackets are an unusable line, not a
    RecursionError)."""
    data = read_regular_bytes(path, MAX_JSONL_BYTES)
    lines = data.split(b"\n")
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = parse_json_bytes(line, str(path), line=i)
        except DataError:
            if i == len(lines):  # no newline after it: a line cut short by a kill
                return  # ignore it, the next append replaces it
            yield i, None, line.decode("utf-8", "replace")
            continue
        yield i, obj if isinstance(obj, dict) else None, line.decode("utf-8")


def _checked_lines(path: str | Path, require_id: bool) -> list[tuple[int, dict[str, Any]]]:
    p = Path(path)
    if not p.exists() and not p.is_symlink():  # anything else there is refused by _parse_lines
        raise DataError.single(
            p, "", "file not found", "run the previous build stage first or pass the right --in path"
        )
    problems: list[Problem] = []
    rows: list[tuple[int, dict[str, Any]]] = []
    for line_no, obj, raw in _parse_lines(p):
        if obj is None:
            problems.append(
                Problem(str(p), "", f"line is not a JSON object: {raw[:80]!r}", "fix or delete the line", line_no)
            )
            continue
        if require_id and (not isinstance(obj.get("id"), str) or not obj["id"]):
            problems.append(
                Problem(str(p), "id", "record has no string id", 'give every record a unique "id"', line_no)
            )
            continue
        rows.append((line_no, obj))
    if problems:
        raise DataError(problems)
    return rows


def iter_jsonl(path: str | Path, *, require_id: bool = True) -> Iterator[dict[str, Any]]:
    """Yield the JSON objects of a JSONL file.

    Raises :class:`DataError` listing every bad line (not JSON, not an object, or without
    an ``id`` when ``require_id``) with file and line number. A truncated last line is
    skipped silently (see the module docstring).
    """
    for _, obj in _checked_lines(path, require_id):
        yield obj


def numbered_jsonl(path: str | Path, *, require_id: bool = True) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every object of a JSONL file (blank lines do not count
    as objects but do count as lines), checked as :func:`iter_jsonl` does."""
    return _checked_lines(path, require_id)


def read_jsonl(path: str | Path, *, require_id: bool = True) -> list[dict[str, Any]]:
    """All objects of a JSONL file (see :func:`iter_jsonl`)."""
    return list(iter_jsonl(path, require_id=require_id))


def latest_by_id(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The last record of every id, in order of first appearance."""
    out: dict[str, dict[str, Any]] = {}
    for r in records:
        rid = r["id"]
        if rid in out:
            del out[rid]
        out[rid] = dict(r)
    return out


def repair_tail(path: Path) -> None:
    """Cut a truncated last line (no trailing newline) so the next append starts clean;
    never through a symbolic link."""
    refuse_link(path)
    if not path.is_file() or path.stat().st_size == 0:
        return
    with open(path, "rb+") as fh:
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return
        fh.seek(0)
        data = fh.read()
        cut = data.rfind(b"\n") + 1
        tail = data[cut:]
        try:
            json.loads(tail)
            fh.seek(0, os.SEEK_END)
            fh.write(b"\n")  # a complete record that only lacks its newline: keep it
        except ValueError:
            fh.truncate(cut)


def append_jsonl(path: str | Path, record: Mapping[str, object], *, fsync: bool = True) -> None:
    """Append one record as a line, flush and (by default) fsync; never through a symbolic
    link (:class:`~socialbench.files.atomic_write.LinkRefused`)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd = open_append(p)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        fh.flush()
        if fsync:
            os.fsync(fh.fileno())


def write_jsonl(path: str | Path, records: Iterable[Mapping[str, object]]) -> int:
    """Write records to ``path`` atomically (a fresh temporary file + rename; a ``path``
    that is a symbolic link is refused, never written through); returns the count."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in records]
    write_bytes_atomic(p, "".join(lines).encode("utf-8"), root=p.parent)
    return len(lines)
