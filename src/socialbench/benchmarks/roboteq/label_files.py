"""Find a RobotEQ dataset's label files and read their rows: ``roboteq.jsonl`` /
``metadata.jsonl`` (one JSON object a line) and ``metadata.csv`` (a header row, then one row
a line). Unreadable lines come out as :class:`~socialbench.errors.Problem`\\ s in place of rows."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from socialbench.benchmarks.roboteq.fields import loads_json
from socialbench.benchmarks.roboteq.schema import CANONICAL_FILE, METADATA_NAMES
from socialbench.errors import Problem

if TYPE_CHECKING:
    from _csv import Reader

__all__ = ["Row", "find_label_files", "unreadable_label_files", "read_rows"]


def find_label_files(root: Path) -> list[Path]:
    """The label files of a dataset: ``roboteq.jsonl`` if present, else every
    ``metadata.jsonl`` / ``metadata.csv`` up to three folders deep, sorted."""
    canonical = root / CANONICAL_FILE
    if canonical.is_file():
        return [canonical]
    found = [
        p for name in METADATA_NAMES for p in root.rglob(name) if p.is_file() and len(p.relative_to(root).parts) <= 4
    ]
    return sorted(found)


def unreadable_label_files(root: Path) -> list[Path]:
    """Entries named like a label file that :func:`find_label_files` skips because they are
    not regular files (a FIFO, a device, a folder): reading a FIFO would block forever."""
    canonical = root / CANONICAL_FILE
    if canonical.is_symlink() or canonical.exists():
        return [] if canonical.is_file() else [canonical]
    return sorted(
        p
        for name in METADATA_NAMES
        for p in root.rglob(name)
        if not p.is_file() and len(p.relative_to(root).parts) <= 4
    )


@dataclass(frozen=True)
class Row:
    """One row of a label file: its fields, the file and the line (1-based) it starts on."""

    data: dict[str, object]
    file: Path
    line: int


def _read_jsonl(path: Path) -> Iterator[Row | Problem]:
    with open(path, "rb") as fh:
        for i, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield Problem(
                    str(path),
                    "encoding",
                    f"line is not valid UTF-8 (byte {exc.start + 1}: {raw[exc.start : exc.start + 1]!r})",
                    "save the file as UTF-8",
                    i,
                )
                continue
            if i == 1:
                line = line.removeprefix("\ufeff")
            if not line.strip():
                continue
            obj, msg = loads_json(line)
            if msg is not None:
                yield Problem(str(path), "json", msg, "fix or remove the line", i)
                continue
            if not isinstance(obj, dict):
                yield Problem(str(path), "json", "a row must be a JSON object", "write one object per line", i)
                continue
            yield Row(obj, path, i)


def _read_csv(path: Path) -> Iterator[Row | Problem]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        yield Problem(
            str(path),
            "encoding",
            f"the file is not valid UTF-8 (byte {exc.start + 1}: {data[exc.start : exc.start + 1]!r})",
            "save the file as UTF-8",
            line,
        )
        return
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        yield from _csv_rows(path, reader)
    except csv.Error as exc:
        yield Problem(
            str(path),
            "csv",
            f"unreadable CSV ({exc})",
            "quote fields correctly and keep each field under 131,072 characters",
            reader.line_num,
        )


def _csv_rows(path: Path, reader: Reader) -> Iterator[Row | Problem]:
    try:
        header = next(reader)
    except StopIteration:
        return
    start = reader.line_num + 1
    for values in reader:
        line = start
        start = reader.line_num + 1
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(header):
            yield Problem(
                str(path),
                "csv",
                f"row has {len(values)} fields but the header has {len(header)}",
                "quote fields that contain commas or newlines",
                line,
            )
            continue
        yield Row({h: (v if v != "" else None) for h, v in zip(header, values)}, path, line)


def read_rows(path: Path) -> Iterator[Row | Problem]:
    """The rows of a label file (CSV by its suffix, else JSON lines), with a problem for each unreadable one."""
    return _read_csv(path) if path.suffix == ".csv" else _read_jsonl(path)
