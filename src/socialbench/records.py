"""The run directory's record formats that every layer reads: ``samples.jsonl`` lines,
``run.json`` and the dataset fingerprint (SHA-256 over a benchmark's label files).

A run folder read back may come from anyone: :func:`read_samples` and :func:`read_run_json`
are the one way to read its files, through :mod:`socialbench.files.safe_read` (regular files,
size cap, strict JSON, depth limit), then every field's type is checked (:data:`SAMPLE_FIELDS`,
:data:`RUN_FIELDS`), so a wrong value is one line naming the file, line, field and fix.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from socialbench.errors import DataError
from socialbench.files.atomic_write import open_append, truncate_file
from socialbench.files.safe_read import parse_json_bytes, read_json, read_regular_bytes
from socialbench.files.schema import FieldRule, check_fields
from socialbench.types import SampleRecord

#: Largest samples.jsonl read (bytes): ~100 times a full SocialNav-SUB run with long replies.
MAX_SAMPLES_BYTES = 1024**3
#: Largest run.json read (bytes); one holds a few kB plus ~300 bytes per session.
MAX_RUN_JSON_BYTES = 16 * 1024**2
#: Deepest nesting of a samples.jsonl record or run.json (a record nests 3 levels, run.json 4).
MAX_RECORD_DEPTH = 16

#: The fields of a samples.jsonl record and their JSON kinds (:class:`SampleRecord`).
SAMPLE_FIELDS: tuple[FieldRule, ...] = (
    FieldRule("item_id", ("str",), required=True),
    FieldRule("question_key", ("str",), required=True),
    FieldRule("request_hash", ("str", "null")),
    FieldRule("raw", ("str", "null")),
    FieldRule("parsed", ("str", "list[str]", "null")),
    FieldRule("parse_method", ("str", "null")),
    FieldRule("error", ("str", "null")),
    FieldRule("error_message", ("str", "null")),
    FieldRule("latency_s", ("number", "null")),
    FieldRule("usage", ("object[number]", "null")),
    FieldRule("attempts", ("int", "null")),
    FieldRule("cached", ("bool",)),
    FieldRule("extra", ("object", "null")),
    FieldRule("finish_reason", ("str", "null")),
    FieldRule("truncated", ("bool",)),
    FieldRule("retry_causes", ("list[str]",)),
)

_SAMPLE_FIX = "delete or fix that line (a record as `socialbench eval` writes it); other lines are kept"

#: The fields of run.json that socialbench reads back, and their JSON kinds. Fields not
#: listed (the benchmark's own options, versions, ...) are read by their own code.
RUN_FIELDS: tuple[FieldRule, ...] = (
    FieldRule("benchmark", ("str",)),
    FieldRule("model", ("str",)),
    FieldRule("status", ("str",)),
    FieldRule("data", ("str", "null")),
    FieldRule("protocol", ("str",)),
    FieldRule("variant", ("str",)),
    FieldRule("strategy", ("str", "null")),
    FieldRule("dataset_fingerprint", ("str", "null")),
    FieldRule("limit", ("count", "null")),
    FieldRule("seed", ("int", "null")),
    FieldRule("concurrency", ("count", "null")),
    FieldRule("started", ("str", "null")),
    FieldRule("ended", ("str", "null")),
    FieldRule("error", ("str", "null")),
    FieldRule("options", ("object", "null")),
    FieldRule("model_options", ("object", "null")),
    FieldRule("generation", ("object", "null")),
    FieldRule("generation_adapted", ("object",)),
    FieldRule("images_seen", ("bool", "null")),
    FieldRule("images_check", ("object",)),
    FieldRule("retry", ("object", "null")),
    FieldRule("perturb", ("object", "null")),
    FieldRule("sessions", ("list[object]",)),
    FieldRule("epochs", ("count",)),
    FieldRule("epoch_dirs", ("list[str]",)),
    FieldRule("context_run", ("object", "null")),
)

#: The request counts of a session (and of its ``engine`` statistics) added up over sessions.
COUNT_FIELDS: tuple[FieldRule, ...] = tuple(
    FieldRule(name, ("number",))
    for name in ("requests", "cache_hits", "retries", "prompt_tokens", "completion_tokens", "reasoning_tokens")
)

#: The fields of each of run.json's ``sessions``.
SESSION_FIELDS: tuple[FieldRule, ...] = COUNT_FIELDS + (
    FieldRule("resumed_from", ("int", "null")),
    FieldRule("engine", ("object", "null")),
    FieldRule("wall_time_s", ("number", "null")),
)

#: run.json's ``perturb``: the image perturbation's name and strength.
PERTURB_FIELDS: tuple[FieldRule, ...] = (
    FieldRule("name", ("str", "null")),
    FieldRule("strength", ("number", "null")),
)

_RUN_FIX = "give the run.json that `socialbench eval` wrote (or remove run.json to start the run record anew)"


def sample_record(obj: Any, file: str, line: int | None = None) -> SampleRecord:
    """One samples.jsonl record (a parsed JSON object) as a :class:`SampleRecord`;
    :class:`DataError` naming ``file``, ``line`` and the field for any field of the wrong type."""
    problem = check_fields(obj, SAMPLE_FIELDS, file, _SAMPLE_FIX, line=line)
    if problem is not None:
        raise DataError(problem)
    return SampleRecord.from_json(obj)


def read_samples(path: Path, *, repair: bool = False) -> list[SampleRecord]:
    """Read a samples.jsonl file (missing: no records). With ``repair``, a torn final line
    is removed from disk (never through a symbolic link); without it, a file whose only line
    is not a record is an error. A line that is JSON but not a record is always an error
    naming the line and field. Anything but a regular file is refused (a FIFO would block)."""
    if not path.exists() and not path.is_symlink():
        return []
    data = read_regular_bytes(path, MAX_SAMPLES_BYTES)
    file = str(path)
    records: list[SampleRecord] = []
    lines = data.split(b"\n")
    offset = 0
    for i, line in enumerate(lines, start=1):
        is_last = i == len(lines)
        if not line.strip():
            offset += len(line) + 1
            continue
        try:
            obj = parse_json_bytes(line, file, line=i, max_depth=MAX_RECORD_DEPTH)
        except DataError:
            if is_last and (repair or records):  # torn write from an interrupted run (no trailing newline)
                if repair:
                    truncate_file(path, offset)
                break
            raise
        records.append(sample_record(obj, file, i))
        offset += len(line) + 1
    else:
        if repair and data and not data.endswith(b"\n"):
            # the last record is complete but its newline was not written: add it, or the
            # next append would join two records on one line
            fd = open_append(path)
            try:
                os.write(fd, b"\n")
            finally:
                os.close(fd)
    return records


def read_run_json(path: Path) -> dict[str, Any]:
    """A run's ``run.json`` as a JSON object whose fields socialbench reads back have their
    types (:data:`RUN_FIELDS`, each session's counts, the perturbation);
    :class:`DataError` naming the file, the field and the fix otherwise."""
    return check_run_record(read_json(path, MAX_RUN_JSON_BYTES, max_depth=MAX_RECORD_DEPTH), str(path))


def check_run_record(run: object, file: str, prefix: str = "", fix: str = _RUN_FIX) -> dict[str, Any]:
    """``run`` (a parsed run.json, or the copy of one that ``socialbench score`` keeps in
    metrics.json under ``prefix``) checked as :func:`read_run_json` checks the file;
    :class:`DataError` naming ``file``, the field and ``fix`` otherwise."""
    problem = check_fields(run, RUN_FIELDS, file, fix, prefix=prefix)
    if problem is None and isinstance(run, dict):
        for i, session in enumerate(run.get("sessions") or []):
            where = f"{prefix}sessions[{i}]."
            problem = problem or check_fields(session, SESSION_FIELDS, file, fix, prefix=where)
            if problem is None and isinstance(session.get("engine"), dict):
                problem = check_fields(session["engine"], COUNT_FIELDS, file, fix, prefix=f"{where}engine.")
        if problem is None and isinstance(run.get("perturb"), dict):
            problem = check_fields(run["perturb"], PERTURB_FIELDS, file, fix, prefix=f"{prefix}perturb.")
    if problem is not None:
        raise DataError(problem)
    assert isinstance(run, dict)  # check_fields refuses anything but an object
    out: dict[str, Any] = run
    return out


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
