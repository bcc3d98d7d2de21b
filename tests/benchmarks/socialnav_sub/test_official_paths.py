"""A run scored under ``--protocol official`` reads fenced replies as the official GPT path
does (INVALID, scored as the first option); under ``official-gemini`` as the official Gemini
path does (the JSON inside the fence). The path is recorded with the run's protocol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub import bundled_demo_data
from socialbench.models.mock import MockModel
from socialbench.runner.run import RunRequest, run_eval
from socialbench.types import Request


def _last_option_fenced(request: Request) -> str:
    """The last option, as JSON in a Markdown fence (what chat models often write)."""
    q = request.question
    assert q is not None
    answer = [q.options[-1]] if q.kind == "multi" else q.options[-1]
    return "```json\n" + json.dumps({"answer": answer}) + "\n```"


def _eval(out: Path, protocol: str) -> dict:
    model = MockModel("mock:fenced", _last_option_fenced)
    bench, _ = get_benchmark("socialnav-sub")
    req = RunRequest(
        "socialnav-sub",
        bundled_demo_data(),
        model.spec,
        out,
        EvalOptions(protocol=protocol, limit=2),
        show_progress=False,
        image_workers=0,
        render_cache=None,
    )
    metrics: dict = run_eval(req, bench, model).metrics
    return metrics


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    root = tmp_path_factory.mktemp("paths")
    out = {}
    for protocol in ("official", "official-gemini"):
        metrics = _eval(root / protocol, protocol)
        out[protocol] = (metrics, json.loads((root / protocol / "run.json").read_text()))
    return out


def test_fenced_replies_are_invalid_on_the_gpt_path(runs: dict[str, tuple[dict, dict]]) -> None:
    metrics, _ = runs["official"]
    assert metrics["failures"]["invalid_rate"] == 1.0


def test_fenced_replies_are_read_on_the_gemini_path(runs: dict[str, tuple[dict, dict]]) -> None:
    metrics, _ = runs["official-gemini"]
    assert metrics["failures"]["invalid_rate"] == 0.0


def test_run_json_and_metrics_name_the_path(runs: dict[str, tuple[dict, dict]]) -> None:
    assert [(runs[p][1]["protocol"], runs[p][0]["protocol"]) for p in runs] == [
        ("official", "official"),
        ("official-gemini", "official-gemini"),
    ]
