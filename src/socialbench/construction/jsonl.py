"""Resumable JSONL stage I/O for the RobotEQ construction pipeline.

Every ``socialbench build`` stage reads records (JSON objects with an ``"id"``) and
appends one output record per finished input. The rules that make a stage resumable:

* the output file is **append-only**; each line is flushed (and fsynced) as soon as it is
  written, so a killed stage loses at most the line it was writing;
* on a rerun the stage skips every id already in its output (:attr:`StageOutput.done`);
* a record that could not be produced is written to the sidecar
  ``<output>.failures.jsonl`` as a *failure record* ``{"id", "kind", "message",
  "attempts", "stage"}``; failures are retried on the next run, and a failure whose id has
  since succeeded no longer counts (:meth:`StageOutput.open_failures`);
* a truncated last line (the process died mid-write) is ignored when reading and
  overwritten by the next append.

Stage summaries (counts in/out, removed and why, tokens, cost) are written with
:func:`write_summary` to ``<work>/summaries/<stage>.json`` and accumulate over reruns.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
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
    "failures_path",
    "safe_name",
    "short_hash",
    "unique_name",
    "StageOutput",
    "StageSummary",
    "write_summary",
    "read_summaries",
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


def _repair_tail(path: Path) -> None:
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


def failures_path(output: str | Path) -> Path:
    """The failure sidecar of a stage output: ``<output>.failures.jsonl``."""
    p = Path(output)
    return p.with_name(p.name.removesuffix(".jsonl") + ".failures.jsonl")


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


class StageOutput:
    """The output JSONL of one stage plus its failure sidecar.

    ``done`` holds the ids already written (skipped on a rerun). :meth:`write` appends a
    finished record; :meth:`fail` appends a failure record. Both flush immediately.
    """

    def __init__(self, path: str | Path, stage: str = ""):
        self.path = Path(path)
        self.stage = stage or self.path.stem
        self.failures = failures_path(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _repair_tail(self.path)
        _repair_tail(self.failures)
        self.done: set[str] = set()
        if self.path.is_file():
            self.done = {r["id"] for r in iter_jsonl(self.path)}
        self.written = 0
        self.failed = 0

    def records(self) -> list[dict[str, Any]]:
        """Every finished record (latest per id)."""
        if not self.path.is_file():
            return []
        return list(latest_by_id(iter_jsonl(self.path)).values())

    def write(self, record: Mapping[str, object]) -> None:
        rid = record.get("id")
        if not isinstance(rid, str) or not rid:
            raise ValueError(f"{self.path}: output record without an id: {dict(record)!r:.200}")
        append_jsonl(self.path, record)
        self.done.add(rid)
        self.written += 1

    def fail(self, rid: str, kind: str, message: str = "", *, attempts: int = 0, **extra: object) -> None:
        """Record that ``rid`` could not be produced (retried on the next run)."""
        append_jsonl(
            self.failures,
            {
                "id": rid,
                "stage": self.stage,
                "kind": kind,
                "message": message[:2000],
                "attempts": attempts,
                "time": time.time(),
                **extra,
            },
        )
        self.failed += 1

    def failure_counts(self) -> dict[str, int]:
        """How many failure records each id has (used to vary a retried request)."""
        counts: dict[str, int] = {}
        if self.failures.is_file():
            for r in iter_jsonl(self.failures):
                counts[r["id"]] = counts.get(r["id"], 0) + 1
        return counts

    def open_failures(self) -> list[dict[str, Any]]:
        """Latest failure record of every id that has not succeeded since."""
        if not self.failures.is_file():
            return []
        return [r for rid, r in latest_by_id(iter_jsonl(self.failures)).items() if rid not in self.done]


@dataclass
class StageSummary:
    """Counts and costs of one stage run; accumulated over reruns by :func:`write_summary`."""

    stage: str
    input: str = ""
    output: str = ""
    n_in: int = 0  # input records considered this run
    n_out: int = 0  # records in the output after the run (all runs)
    n_new: int = 0  # records written this run
    n_skipped: int = 0  # already done (resumed)
    n_failed: int = 0  # open failures after this run
    failure_kinds: dict[str, int] = field(default_factory=dict)
    removed: dict[str, int] = field(default_factory=dict)  # reason -> count
    requests: int = 0
    retries: int = 0
    parse_retries: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    images_generated: int = 0
    images_edited: int = 0
    cost_usd: float | None = None
    wall_s: float = 0.0
    models: dict[str, str] = field(default_factory=dict)  # role -> model spec
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


_ADDITIVE = (
    "requests",
    "retries",
    "parse_retries",
    "cache_hits",
    "prompt_tokens",
    "completion_tokens",
    "images_generated",
    "images_edited",
    "wall_s",
)


def write_summary(work: str | Path, summary: StageSummary) -> Path:
    """Write ``<work>/summaries/<stage>.json``: this run's counts, plus the totals of all
    runs (tokens, requests, cost and time add up over reruns)."""
    path = Path(work) / "summaries" / f"{summary.stage}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    previous: dict[str, Any] = {}
    if path.is_file():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            previous = {}
    run = summary.to_json()
    totals = dict(previous.get("totals") or {})
    for key in _ADDITIVE:
        totals[key] = (totals.get(key) or 0) + run[key]
    if summary.cost_usd is not None:
        totals["cost_usd"] = (totals.get("cost_usd") or 0.0) + summary.cost_usd
    doc = {**run, "runs": int(previous.get("runs") or 0) + 1, "totals": totals}
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    write_bytes_atomic(path, text.encode("utf-8"), root=path.parent)  # never through a link
    return path


def read_summaries(work: str | Path) -> list[dict[str, Any]]:
    """Every stage summary of a work folder, sorted by stage order of the pipeline."""
    folder = Path(work) / "summaries"
    if not folder.is_dir():
        return []
    order = [
        "taxonomy",
        "scenarios-beam",
        "scenarios-merge",
        "scenarios-dedup",
        "scenarios",
        "image-prompts",
        "images",
        "review",
        "behaviors",
        "annotate-export",
        "annotate-import",
        "aggregate",
        "overlays",
        "real-images",
        "export",
    ]
    docs = []
    for p in folder.glob("*.json"):
        try:
            docs.append(json.loads(p.read_text(encoding="utf-8")))
        except ValueError:
            continue
    return sorted(
        docs,
        key=lambda d: (order.index(d.get("stage")) if d.get("stage") in order else len(order), str(d.get("stage"))),
    )
