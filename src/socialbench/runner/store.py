"""The run directory: ``run.json``, ``samples.jsonl``, ``metrics.json``.

``samples.jsonl`` is append-only while a run is in progress: each record is written and
flushed as it arrives, so a process killed at any point loses at most the line being written.
On open, a torn last line (no newline, not valid JSON) is cut off; any other malformed line is
an error naming the line. When a run ends, the file is rewritten atomically in canonical
order with one record per question (the latest), so an interrupted-and-resumed run and an
uninterrupted run leave the same content.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from socialbench.errors import DataError
from socialbench.types import SampleRecord

SAMPLES = "samples.jsonl"
RUN = "run.json"
METRICS = "metrics.json"


def write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2, sort_keys=False, ensure_ascii=False)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read_samples(path: Path, *, repair: bool = False) -> list[SampleRecord]:
    """Read a samples.jsonl file. With ``repair``, a torn final line is removed from disk."""
    if not path.exists():
        return []
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
            if is_last:  # torn write from an interrupted run (no trailing newline)
                if repair:
                    with open(path, "r+b") as fh:
                        fh.truncate(offset)
                break
            raise DataError.single(
                path, "line", f"not a valid sample record ({exc})", "delete or fix that line; other lines are kept", line=i
            ) from exc
        offset += len(line) + 1
    else:
        if repair and data and not data.endswith(b"\n"):
            # the last record is complete but its newline was not written: add it, or the
            # next append would join two records on one line
            with open(path, "ab") as fh:
                fh.write(b"\n")
    return records


class RunStore:
    """Owns one run directory. ``lock()`` makes the ownership exclusive between processes."""

    def __init__(self, run_dir: str | Path):
        self.dir = Path(run_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.samples_path = self.dir / SAMPLES
        self._fh = None
        self._lock_fh = None
        # Once load_samples() has read the file, every later append is mirrored here (the
        # latest record per question), so compact() need not read the file again.
        self._mirror: dict[tuple[str, str], SampleRecord] | None = None

    def lock(self) -> None:
        """Take the run directory's lock file, or fail if another process holds it (two
        writers would lose each other's records when one compacts samples.jsonl)."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not on POSIX: no locking
            return
        fh = open(self.dir / ".lock", "w")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            from socialbench.errors import UsageError

            raise UsageError(f"{self.dir} is in use by another socialbench process; wait for it or choose another --out") from None
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
            return json.loads(p.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DataError.single(p, "", f"invalid JSON at line {exc.lineno}", "remove run.json to start the run record anew") from exc

    def write_run(self, record: Mapping[str, Any]) -> None:
        write_json_atomic(self.dir / RUN, dict(record))

    def write_metrics(self, metrics: Mapping[str, Any]) -> None:
        write_json_atomic(self.dir / METRICS, dict(metrics))

    # samples.jsonl ---------------------------------------------------------------------
    def load_samples(self) -> dict[tuple[str, str], SampleRecord]:
        """Latest record per (item_id, question_key), repairing a torn last line."""
        out: dict[tuple[str, str], SampleRecord] = {}
        for r in read_samples(self.samples_path, repair=True):
            out[(r.item_id, r.question_key)] = r
        self._mirror = dict(out)
        return out

    def append(self, record: SampleRecord) -> None:
        if self._fh is None:
            self._fh = open(self.samples_path, "a", encoding="utf-8")
        if self._mirror is not None:
            # mirrored before the write: an interrupt between the write and this point must
            # not leave a record on disk that compact() would then drop
            self._mirror[(record.item_id, record.question_key)] = record
        self._fh.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def compact(self, order: Sequence[tuple[str, str]]) -> list[SampleRecord]:
        """Rewrite samples.jsonl atomically: one record per key, in ``order`` (unknown keys last)."""
        self.close()
        latest = self._mirror if self._mirror is not None else self.load_samples()
        rank = {k: i for i, k in enumerate(order)}
        keys = sorted(latest, key=lambda k: (rank.get(k, len(rank)), k))
        records = [latest[k] for k in keys]
        tmp = self.samples_path.with_name(SAMPLES + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            for r in records:
                fh.write(json.dumps(r.to_json(), ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.samples_path)
        return records


def iter_records(records: Iterable[SampleRecord]) -> Iterable[dict[str, Any]]:
    for r in records:
        yield r.to_json()
