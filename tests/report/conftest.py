"""Run directories for the report tests, made by real runs of the built-in baselines on the
small synthetic SocialNav-SUB dataset (plus a ``sample_metadata.json`` with scene
attributes). Session-scoped: treat them as read-only."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub import baselines as socialnav_baselines
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.models import baselines, mock
from socialbench.models.registry import ModelOptions
from socialbench.records import read_samples
from socialbench.runner.run import RunRequest, run_eval
from socialbench.runner.store import RunStore
from socialbench.types import SampleRecord

XSS_SCRIPT = "<script>document.body.setAttribute('data-pwned','script')</script>"
XSS_IMG = "<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">"

SCENES = {
    "101_Spot_1_155": {"indoors": True, "blind_corner": False},
    "45_Spot_2_424": {"indoors": False, "blind_corner": True},
    "101_Spot_1_860": {"indoors": False, "blind_corner": False},
}


def _models() -> dict:
    o = ModelOptions(seed=0)
    return {
        "random": baselines.make_random("", o),
        "rule": socialnav_baselines.make_rule_based("", o),
        "first": mock.make_mock("first-option", o),
        "human": baselines.make_average("", o),
    }


@pytest.fixture(scope="session")
def sn_data(tmp_path_factory, small_socialnav: Path) -> Path:
    """The small dataset with scene attributes in sample_metadata.json."""
    root = tmp_path_factory.mktemp("report-data") / "data"
    shutil.copytree(small_socialnav, root)
    ids = [i.item_id for i in load_socialnav(root).items]
    assert sorted(ids) == sorted(SCENES)
    (root / "sample_metadata.json").write_text(json.dumps(SCENES))
    return root


@pytest.fixture(scope="session")
def sn_runs(tmp_path_factory, sn_data: Path) -> dict[str, Path]:
    """Complete runs: random, rule (rule-based), first (mock first option), human (sampled)."""
    out = tmp_path_factory.mktemp("report-runs")
    runs = {}
    for name, model in _models().items():
        req = RunRequest(
            "socialnav-sub", sn_data, model.spec, out / name, EvalOptions(), concurrency=8, show_progress=False
        )
        assert run_eval(req, SocialNavSub(), model).complete
        runs[name] = out / name
    return runs


@pytest.fixture(scope="session")
def xss_run(tmp_path_factory, sn_data: Path, sn_runs: dict[str, Path]) -> Path:
    """A copy of the random run whose replies carry script payloads (scored as invalid)."""
    d = tmp_path_factory.mktemp("report-xss") / "xss"
    shutil.copytree(sn_runs["random"], d)
    records = read_samples(d / "samples.jsonl")
    payloads = [XSS_SCRIPT, XSS_IMG, "</script><script>document.body.setAttribute('data-pwned','close')</script>"]
    changed = []
    for i, r in enumerate(records):
        if i < 3:
            r = SampleRecord(r.item_id, r.question_key, payloads[i], None, None, None, 0.1, {})
        changed.append(r)
    (d / "samples.jsonl").write_text("".join(json.dumps(r.to_json()) + "\n" for r in changed))
    bench = SocialNavSub()
    metrics = bench.score(load_socialnav(sn_data), changed, "paper")
    run = json.loads((d / "run.json").read_text())
    run["model"] = "openai:evil-model"
    RunStore(d).write_run(run)
    RunStore(d).write_metrics(metrics)
    return d
