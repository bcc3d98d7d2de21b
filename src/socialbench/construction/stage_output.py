"""The resumable output of a ``socialbench build`` stage: an append-only JSONL (each line flushed
and fsynced) whose ids are skipped on a rerun, plus the sidecar ``<output>.failures.jsonl`` of
failure records ``{"id", "kind", "message", "attempts", "stage"}``, retried on the next run (a
failure whose id has since succeeded no longer counts). A truncated last line is ignored when
reading and overwritten by the next append."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from socialbench.construction.jsonl import append_jsonl, iter_jsonl, latest_by_id, repair_tail

__all__ = ["failures_path", "StageOutput"]


def failures_path(output: str | Path) -> Path:
    """The failure sidecar of a stage output: ``<output>.failures.jsonl``."""
    p = Path(output)
    return p.with_name(p.name.removesuffix(".jsonl") + ".failures.jsonl")


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
        repair_tail(self.path)
        repair_tail(self.failures)
        self.done: set[str] = set()
        if self.path.is_file():
            self.done = {r["id"] for r in iter_jsonl(self.path)}
        self.written = 0

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
