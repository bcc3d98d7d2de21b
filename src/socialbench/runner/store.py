"""The run directory: ``run.json``, ``samples.jsonl``, ``metrics.json``.

``samples.jsonl`` is append-only while a run is in progress: each record is written and
flushed as it arrives, so a process killed at any point loses at most the line being written.
On open, a torn last line (no newline, not valid JSON) is cut off; any other malformed line is
an error naming the line. When a run ends, the file is rewritten atomically in canonical
order with one record per question (the latest), so an interrupted-and-resumed run and an
uninterrupted run leave the same content.

``requests.log`` counts the model requests of every session at the moment each is sent, one
line (``SESSION ATTEMPT``) per request, so the counts in ``run.json`` stay true for sessions
that were killed and for requests that were queued but never sent.

A write that fails (full disk, read-only file system, a file where the folder should be)
raises :class:`~socialbench.errors.StorageError` naming the path and the fix; whatever was
written before stays, and the next run resumes from it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from socialbench.errors import DataError, StorageError
from socialbench.records import read_samples
from socialbench.types import SampleRecord

SAMPLES = "samples.jsonl"
RUN = "run.json"
METRICS = "metrics.json"
SENDS = "requests.log"
OUT_OPTION = "--out folder"


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to the file descriptor (one syscall in the usual case)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _line(record: SampleRecord) -> bytes:
    """``record`` as one line of samples.jsonl."""
    return (json.dumps(record.to_json(), ensure_ascii=False) + "\n").encode("utf-8")


def write_json_atomic(path: Path, data: Any) -> None:
    """Replace ``path`` with ``data`` as JSON, atomically: a failed write leaves the old file."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=False, ensure_ascii=False)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError:
        _remove_quietly(tmp)
        raise


def _remove_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


class RunStore:
    """Owns one run directory. ``lock()`` makes the ownership exclusive between processes."""

    def __init__(self, run_dir: str | Path):
        self.dir = Path(run_dir)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError.from_os_error(exc, self.dir, OUT_OPTION) from None
        self.samples_path = self.dir / SAMPLES
        self._fd: int | None = None  # samples.jsonl, opened for appending on first record
        self._sends_fd: int | None = None
        self._broken: StorageError | None = None  # set by the first failed append
        self._lock_fh: TextIO | None = None
        # Once load_samples() has read the file, every later append is mirrored here (the
        # latest record per question), so compact() need not read the file again.
        self._mirror: dict[tuple[str, str], SampleRecord] | None = None
        self._lines: dict[tuple[str, str], bytes] = {}  # the line each mirrored append wrote

    def lock(self) -> None:
        """Take the run directory's lock file, or fail if another process holds it (two
        writers would lose each other's records when one compacts samples.jsonl)."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not on POSIX: no locking
            return
        try:
            fh = open(self.dir / ".lock", "w")
        except OSError as exc:
            raise StorageError.from_os_error(exc, self.dir, OUT_OPTION) from None
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            from socialbench.errors import UsageError

            raise UsageError(
                f"{self.dir} is in use by another socialbench process; wait for it or choose another --out"
            ) from None
        self._lock_fh = fh

    def unlock(self) -> None:
        if self._lock_fh is not None:
            self._lock_fh.close()
            self._lock_fh = None

    # run.json --------------------------------------------------------------------------
    def read_run(self) -> dict[str, Any] | None:
        p = self.dir / RUN
        if not p.exists():
            return None
        try:
            record = json.loads(p.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DataError.single(
                p, "", f"invalid JSON at line {exc.lineno}", "remove run.json to start the run record anew"
            ) from exc
        if not isinstance(record, dict):
            raise DataError.single(
                p,
                "",
                f"expected a JSON object, found {type(record).__name__}",
                "remove run.json to start the run record anew",
            )
        return record

    def write_run(self, record: Mapping[str, Any]) -> None:
        self._write_json(self.dir / RUN, record)

    def write_metrics(self, metrics: Mapping[str, Any]) -> None:
        self._write_json(self.dir / METRICS, metrics)

    def _write_json(self, path: Path, data: Mapping[str, Any]) -> None:
        try:
            write_json_atomic(path, dict(data))
        except OSError as exc:
            raise StorageError.from_os_error(exc, path, OUT_OPTION) from None

    # requests.log ----------------------------------------------------------------------
    def count_send(self, session: int, attempt: int) -> None:
        """Record that session ``session`` is sending a request (its ``attempt``-th try)."""
        try:
            if self._sends_fd is None:
                self._sends_fd = os.open(self.dir / SENDS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            _write_all(self._sends_fd, f"{session} {attempt}\n".encode())
        except OSError as exc:
            raise StorageError.from_os_error(exc, self.dir / SENDS, OUT_OPTION) from None

    def forget_sends(self) -> None:
        """Remove requests.log (when run.json is gone, its session numbers would be
        counted again as the new record's sessions)."""
        try:
            (self.dir / SENDS).unlink(missing_ok=True)
        except OSError as exc:
            raise StorageError.from_os_error(exc, self.dir / SENDS, OUT_OPTION) from None

    def read_sends(self) -> dict[int, dict[str, int]]:
        """Per session: ``{"requests": sent, "retries": sent that were not first attempts}``."""
        out: dict[int, dict[str, int]] = {}
        path = self.dir / SENDS
        if not path.exists():
            return out
        for line in path.read_bytes().split(b"\n"):
            parts = line.split()
            if len(parts) != 2 or not parts[0].isdigit() or not parts[1].isdigit():
                continue  # a torn last line from a killed process
            counts = out.setdefault(int(parts[0]), {"requests": 0, "retries": 0})
            counts["requests"] += 1
            counts["retries"] += int(parts[1]) > 1
        return out

    # samples.jsonl ---------------------------------------------------------------------
    def load_samples(self) -> dict[tuple[str, str], SampleRecord]:
        """Latest record per (item_id, question_key), repairing a torn last line."""
        out: dict[tuple[str, str], SampleRecord] = {}
        for r in read_samples(self.samples_path, repair=True):
            out[(r.item_id, r.question_key)] = r
        self._mirror = dict(out)
        self._lines = {}
        return out

    def append(self, record: SampleRecord) -> None:
        """Write one record (unbuffered: on disk when this returns). After a failed write
        every later append fails the same way, so no record follows a torn line."""
        if self._broken is not None:
            raise self._broken
        line = _line(record)
        key = (record.item_id, record.question_key)
        try:
            if self._fd is None:
                self._fd = os.open(self.samples_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            if self._mirror is not None:
                # mirrored before the write: an interrupt between the write and this point must
                # not leave a record on disk that compact() would then drop
                self._mirror[key] = record
                self._lines[key] = line
            _write_all(self._fd, line)
        except OSError as exc:
            if self._mirror is not None:  # not on disk: compact() must not write it either
                self._mirror.pop(key, None)
                self._lines.pop(key, None)
            self._broken = StorageError.from_os_error(exc, self.samples_path, OUT_OPTION)
            raise self._broken from None

    def close(self) -> None:
        for name in ("_fd", "_sends_fd"):
            fd = getattr(self, name)
            if fd is not None:
                setattr(self, name, None)
                try:
                    os.close(fd)
                except OSError:
                    pass

    def compact(self, order: Sequence[tuple[str, str]]) -> list[SampleRecord]:
        """Rewrite samples.jsonl atomically: one record per key, in ``order`` (unknown keys last)."""
        self.close()
        latest = self._mirror if self._mirror is not None else self.load_samples()
        rank = {k: i for i, k in enumerate(order)}
        keys = sorted(latest, key=lambda k: (rank.get(k, len(rank)), k))
        records = [latest[k] for k in keys]
        lines = self._lines  # this session's appends, as written; older records are encoded again
        tmp = self.samples_path.with_name(SAMPLES + ".tmp")
        try:
            with open(tmp, "wb") as fh:
                fh.write(b"".join([lines.get(k) or _line(r) for k, r in zip(keys, records)]))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.samples_path)
        except OSError as exc:  # samples.jsonl itself is untouched
            _remove_quietly(tmp)
            raise StorageError.from_os_error(exc, self.samples_path, OUT_OPTION) from None
        return records


def iter_records(records: Iterable[SampleRecord]) -> Iterable[dict[str, Any]]:
    for r in records:
        yield r.to_json()
