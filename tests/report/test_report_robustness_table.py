"""Robustness table: each perturbed run is paired with the clean run of the same settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from socialbench.report.labels import assign_labels
from socialbench.report.robustness_table import robustness_table
from socialbench.report.run_dir import RunDir


def _stat(v: float) -> dict:
    return {"value": v, "se": 0.01}


def _rq_run(
    tmp_path: Path,
    name: str,
    model: str,
    f1: float,
    *,
    bench: str = "roboteq-bj",
    strategy: str = "standard",
    options: dict | None = None,
    perturb: dict | None = None,
    requests: dict | None = None,
) -> RunDir:
    block = {m: _stat(f1) for m in ("pa", "cwpa", "micro_f1", "macro_f1")}
    metrics = {
        "benchmark": bench,
        "protocol": "paper",
        "overall": block,
        "by_subset": {"synthetic": block, "real": block, "average": block},
        "requests": requests or {"requests": 4, "cached": 0, "latency_s_per_request": 1.5},
    }
    run = {"model": model, "strategy": strategy, "benchmark": bench, "options": options or {}, "perturb": perturb}
    return RunDir(tmp_path / name, run, metrics)


def test_robustness_pairs_a_perturbed_rag_run_with_the_clean_run_of_the_same_backend(tmp_path: Path) -> None:
    dense = {"rag_backend": "dense"}
    runs = [
        _rq_run(tmp_path, "bm25", "openai:gpt-4o", 0.5, strategy="rag"),
        _rq_run(tmp_path, "dense", "openai:gpt-4o", 0.7, strategy="rag", options=dense),
        _rq_run(
            tmp_path,
            "dense_blur",
            "openai:gpt-4o",
            0.6,
            strategy="rag",
            options=dense,
            perturb={"name": "blur", "strength": 1},
        ),
    ]
    assign_labels(runs)
    t = robustness_table(runs)
    assert t is not None and [r.stub[0] for r in t.rows] == ["gpt-4o (rag, dense)"]
    assert t.rows[0].cells[2].value == pytest.approx(10.0)
