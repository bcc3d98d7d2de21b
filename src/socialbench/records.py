"""The run directory's record formats that every layer reads: ``samples.jsonl`` lines and
the dataset fingerprint.

``samples.jsonl`` holds one :class:`~socialbench.types.SampleRecord` per line (see
:mod:`socialbench.runner.store` for how a run writes it). A dataset fingerprint is the
SHA-256 over a benchmark's label files (:func:`fingerprint_files`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from socialbench.errors import DataError
from socialbench.types import SampleRecord


def read_samples(path: Path, *, repair: bool = False) -> list[SampleRecord]:
    """Read a samples.jsonl file. With ``repair``, a torn final line is removed from disk.
    Without ``repair`` (predictions given to ``score``/``report``), a file whose only line is
    not a record is an error, not a torn write; anything but a regular file is refused
    (a FIFO would block the read forever)."""
    if not path.exists():
        return []
    if not path.is_file():
        raise DataError.single(path, "", "not a regular file", "give a samples.jsonl file or a run directory")
    data = path.read_bytes()
    records: list[SampleRecord] = []
    lines = data.split(b"\n")
    offset = 0
    for i, line in enumerate(lines, start=1):
        is_last = i == len(lines)
        if not line.strip():
            offset += len(line) + 1
            continue
        try:
            obj = json.loads(line)
            records.append(SampleRecord.from_json(obj))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            if is_last and (repair or records):  # torn write from an interrupted run (no trailing newline)
                if repair:
                    with open(path, "r+b") as fh:
                        fh.truncate(offset)
                break
            raise DataError.single(
                path,
                "line",
                f"not a valid sample record ({exc})",
                "delete or fix that line; other lines are kept",
                line=i,
            ) from exc
        offset += len(line) + 1
    else:
        if repair and data and not data.endswith(b"\n"):
            # the last record is complete but its newline was not written: add it, or the
            # next append would join two records on one line
            with open(path, "ab") as fh:
                fh.write(b"\n")
    return records


def json_digest(doc: object) -> str:
    """SHA-256 (hex) of ``doc`` as canonical JSON (sorted keys, no spaces; values JSON does
    not know as ``str``): a cache key of a JSON-serialisable description."""
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()


def fingerprint_files(paths: list[Path], root: Path) -> str:
    """SHA-256 over (relative path, bytes) of label files, in sorted order."""
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(str(p.relative_to(root)).encode() + b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()
