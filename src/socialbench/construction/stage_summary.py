"""Stage summaries of ``socialbench build``: counts in/out, removed and why, tokens, cost and
time of one stage run, written by :func:`write_summary` to ``<work>/summaries/<stage>.json``
and accumulated over reruns; :func:`read_summaries` reads them back in pipeline order."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from socialbench.files.atomic_write import write_bytes_atomic

__all__ = ["StageSummary", "write_summary", "read_summaries"]


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
