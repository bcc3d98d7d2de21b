"""The scene-blind baselines as models: listed, run by eval, recorded, shown in Table 3."""

from __future__ import annotations

import json

import pytest

from socialbench.cli import main
from socialbench.models.registry import backends


def run(tmp_path, model: str, name: str) -> dict:
    out = tmp_path / name
    main(["eval", "-b", "socialnav-waypoint", "-m", model, "--out", str(out), "--no-progress", "--no-cache"])
    return json.loads((out / "metrics.json").read_text())


def test_the_waypoint_baselines_are_registered_models():
    from socialbench.benchmarks.base import load_benchmark_code

    load_benchmark_code()
    specs = {b.prefix for b in backends()}
    assert {
        "baseline:waypoint-nearest",
        "baseline:waypoint-straightest",
        "baseline:waypoint-constant-velocity",
        "baseline:waypoint-toward-goal",
        "baseline:waypoint-closest-to-goal",
    } <= specs


def test_the_nearest_baseline_scores_chance(tmp_path):
    acc = run(tmp_path, "baseline:waypoint-nearest", "r")["overall"]["accuracy"]
    assert acc["value"] == pytest.approx(0.2) and acc["n"] == 10


def test_each_record_carries_the_items_candidates(tmp_path):
    run(tmp_path, "baseline:waypoint-nearest", "r")
    rec = json.loads((tmp_path / "r" / "samples.jsonl").read_text().splitlines()[0])
    cands = rec["extra"]["waypoints"]["candidates"]
    assert len(cands) == 5 and sum(c["gold"] for c in cands) == 1
    assert {"label", "x", "y", "pixel", "gold", "source"} <= set(cands[0])


def test_the_baselines_are_rows_of_table3(tmp_path):
    run(tmp_path, "baseline:waypoint-nearest", "near")
    run(tmp_path, "baseline:waypoint-toward-goal", "goal")
    main(
        ["report", str(tmp_path / "near"), str(tmp_path / "goal"), "--out", str(tmp_path / "rep")]
        + ["--format", "csv", "--no-plots"]
    )
    rows = (tmp_path / "rep" / "tables" / "socialnav_table3_waypoints.csv").read_text().splitlines()
    assert {r.split(",")[0] for r in rows[1:]} == {"Baseline: nearest candidate", "Baseline: toward the goal"}


def test_toward_goal_without_a_goal_is_an_error_not_a_guess():
    import asyncio

    from socialbench.benchmarks.base import load_benchmark_code
    from socialbench.models.base import FatalModelError
    from socialbench.models.registry import create_model
    from socialbench.types import Item, Question, Request

    load_benchmark_code()  # the benchmark's code registers its baselines, as eval does

    q = Question("q_waypoint", "q_waypoint", "Waypoint selection", "single", "Which?", ("A", "B"))
    cands = [{"label": c, "x": 1.0, "y": y, "pixel": None} for c, y in (("A", 0.0), ("B", 1.0))]
    item = Item("s1", (q,), {}, {"waypoints": {"answer": "A", "goal": None, "candidates": cands}})
    model = create_model("baseline:waypoint-toward-goal")
    with pytest.raises(FatalModelError, match="no goal"):
        asyncio.run(model.generate(Request(prompt="", images=(), item=item, question=q)))
