"""The run directory: ``run.json``, ``samples.jsonl``, ``metrics.json``, ``requests.log``.

``samples.jsonl`` is appended and flushed record by record (a torn last line is cut off on
open) and rewritten atomically in canonical order when a run ends, so a resumed run and an
uninterrupted one leave the same content. ``requests.log`` counts requests as they are sent.
Nothing is written through a symbolic link (a planted link could point out of the folder):
:meth:`RunStore.lock` refuses linked run files, and every file is opened with ``O_NOFOLLOW``
or replaced through a fresh temporary file. A failed write raises
:class:`~socialbench.errors.StorageError` naming the path and the fix; what was written stays.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from socialbench.errors import StorageError
from socialbench.files.atomic_write import open_append, open_lock, refuse_link, write_bytes_atomic
from socialbench.files.safe_read import read_regular_bytes
from socialbench.records import read_run_json, read_samples
from socialbench.types import SampleRecord

SAMPLES = "samples.jsonl"
RUN = "run.json"
METRICS = "metrics.json"
SENDS = "requests.log"
LOCK = ".lock"
OUT_OPTION = "--out folder"
#: The files of a run folder that a run writes: none may be a symbolic link.
WRITTEN = (SAMPLES, RUN, METRICS, SENDS, LOCK)
#: Largest requests.log read (bytes): ~6 bytes per request sent.
MAX_SENDS_BYTES = 256 * 1024**2


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to the file descriptor (one syscall in the usual case)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _line(record: SampleRecord) -> bytes:
    """``record`` as one line of samples.jsonl."""
    return (json.dumps(record.to_json(), ensure_ascii=False) + "\n").encode("utf-8")


def write_json_atomic(path: Path, data: object) -> None:
    """Replace ``path`` with ``data`` as JSON, atomically: a failed write leaves the old file.
    A ``path`` that is a symbolic link is refused (:class:`~socialbench.files.atomic_write.LinkRefused`),
    never written through."""
    text = json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n"
    write_bytes_atomic(path, text.encode("utf-8"), root=path.parent, option=OUT_OPTION, fsync=True)


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
        self._lock_fd: int | None = None
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
        self.refuse_links()
        fd = open_lock(self.dir / LOCK, OUT_OPTION)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            from socialbench.errors import UsageError

            raise UsageError(
                f"{self.dir} is in use by another socialbench process; wait for it or choose another --out"
            ) from None
        self._lock_fd = fd

    def refuse_links(self) -> None:
        """:class:`~socialbench.files.atomic_write.LinkRefused` naming the first file of
        :data:`WRITTEN` that is a symbolic link: a resumed run would write through it (and
        out of the folder), so nothing is read or written."""
        for name in WRITTEN:
            refuse_link(self.dir / name, OUT_OPTION)

    def unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # run.json --------------------------------------------------------------------------
    def read_run(self) -> dict[str, Any] | None:
        """run.json (None when there is none), its fields type-checked
        (:func:`~socialbench.records.read_run_json`)."""
        p = self.dir / RUN
        if not p.exists() and not p.is_symlink():
            return None
        return read_run_json(p)

    def write_run(self, record: Mapping[str, object]) -> None:
        self._write_json(self.dir / RUN, record)

    def write_metrics(self, metrics: Mapping[str, object]) -> None:
        self._write_json(self.dir / METRICS, metrics)

    def _write_json(self, path: Path, data: Mapping[str, object]) -> None:
        try:
            write_json_atomic(path, dict(data))
        except OSError as exc:
            raise StorageError.from_os_error(exc, path, OUT_OPTION) from None

    # requests.log ----------------------------------------------------------------------
    def count_send(self, session: int, attempt: int) -> None:
        """Record that session ``session`` is sending a request (its ``attempt``-th try)."""
        try:
            if self._sends_fd is None:
                self._sends_fd = open_append(self.dir / SENDS, OUT_OPTION)
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
        if not path.exists() and not path.is_symlink():
            return out
        for line in read_regular_bytes(path, MAX_SENDS_BYTES).split(b"\n"):
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
                self._fd = open_append(self.samples_path, OUT_OPTION)
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
        data = b"".join([lines.get(k) or _line(r) for k, r in zip(keys, records)])
        try:  # through a fresh temporary file; a samples.jsonl link is refused, never replaced
            write_bytes_atomic(self.samples_path, data, root=self.dir, option=OUT_OPTION, fsync=True)
        except OSError as exc:  # samples.jsonl itself is untouched
            raise StorageError.from_os_error(exc, self.samples_path, OUT_OPTION) from None
        return records
