"""``compare`` gives no bootstrap interval, p-value or rank interval on fewer scenes than a
scene-clustered bootstrap needs, and says why (issue 39.3); with enough scenes it gives them;
waypoint runs are compared on accuracy, not on columns named PA / CWPA."""

from __future__ import annotations

from pathlib import Path

import pytest

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub import baselines as socialnav_baselines
from socialbench.benchmarks.socialnav_sub import bundled_demo_data
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.cli import main
from socialbench.models import baselines
from socialbench.models.registry import ModelOptions
from socialbench.report.compare import compare_csv, compare_runs, compare_tables
from socialbench.report.loading import load_runs
from socialbench.runner.run import RunRequest, run_eval


def _runs(out: Path, limit: int) -> list[Path]:
    """Random, Rule-Based and a second Random (seed 1) on the first ``limit`` demo scenes."""
    o = ModelOptions(seed=0)
    models = {
        "random": baselines.make_random("", o),
        "rule": socialnav_baselines.make_rule_based("", o),
        "random1": baselines.make_random("", ModelOptions(seed=1)),
    }
    dirs = []
    for name, model in models.items():
        req = RunRequest(
            "socialnav-sub",
            bundled_demo_data(),
            model.spec,
            out / name,
            EvalOptions(limit=limit, seed=0 if name != "random1" else 1),
            concurrency=8,
            show_progress=False,
            image_workers=0,
        )
        assert run_eval(req, SocialNavSub(), model).complete
        dirs.append(out / name)
    return dirs


@pytest.fixture(scope="module")
def one_scene(tmp_path_factory) -> dict:
    return compare_runs(load_runs(_runs(tmp_path_factory.mktemp("one"), 1)), n_boot=200, n_perm=200)


@pytest.fixture(scope="module")
def five_scenes(tmp_path_factory) -> dict:
    return compare_runs(load_runs(_runs(tmp_path_factory.mktemp("five"), 5)), n_boot=200, n_perm=200)


def test_one_scene_gives_no_bootstrap_p_value_or_interval(one_scene):
    assert one_scene["n_clusters"] == 1
    for pair in one_scene["pairs"]:
        for m in ("PA", "CWPA"):
            assert (pair[m]["p_bootstrap"], pair[m]["low"], pair[m]["high"], pair[m]["se"]) == (None,) * 4
            assert pair[m]["p_bootstrap_holm"] is None


def test_one_scene_keeps_the_paired_difference_and_the_exact_permutation_p(one_scene):
    pair = one_scene["pairs"][0]
    assert pair["PA"]["diff"] == pytest.approx(pair["PA"]["a"] - pair["PA"]["b"])
    assert 0.0 <= pair["PA"]["p_permutation"] <= 1.0


def test_one_scene_gives_no_rank_interval(one_scene):
    ranked = [e for e in one_scene["leaderboard"] if e["ranked"]]
    assert ranked and all(e["low"] is None and e["high"] is None for e in ranked)


def test_the_table_of_one_scene_prints_no_bootstrap_p_and_says_why(one_scene):
    pairs = compare_tables(one_scene)[0]
    boot = [i for i, c in enumerate(pairs.columns) if c == "p boot."]
    assert all(row.cells[i].text == "—" for row in pairs.rows for i in boot)
    assert "0.0050" not in {c.text for row in pairs.rows for c in row.cells}  # 1 / (1 + 200)
    assert "needs at least 5 scenes, and 1 scene allows only 1 distinct resample" in pairs.notes[0]


def test_the_csv_of_one_scene_leaves_the_bootstrap_cells_empty(one_scene):
    header, first = compare_csv(one_scene).splitlines()[:2]
    row = dict(zip(header.split(","), first.split(",")))
    assert (row["p_bootstrap"], row["low"], row["high"]) == ("", "", "")


def test_five_scenes_give_a_bootstrap_interval_around_the_difference(five_scenes):
    assert five_scenes["n_clusters"] == 5 and five_scenes["bootstrap_skipped"] is None
    pa = five_scenes["pairs"][0]["PA"]
    assert pa["low"] <= pa["diff"] <= pa["high"] and 0.0 < pa["p_bootstrap"] <= 1.0


def test_five_scenes_give_rank_intervals_around_the_ranks(five_scenes):
    pa = [e for e in five_scenes["leaderboard"] if e["metric"] == "PA"]
    assert all(e["low"] <= e["rank"] <= e["high"] for e in pa)


def _cli(*args: str) -> None:
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    assert e.value.code == 0


def test_waypoint_runs_are_compared_on_accuracy(tmp_path):
    dirs = []
    for model in ("baseline:random", "baseline:waypoint-nearest"):
        dirs.append(tmp_path / model.split(":")[1])
        _cli("eval", "-b", "socialnav-waypoint", "-m", model, "--out", str(dirs[-1]))
    result = compare_runs(load_runs(dirs), n_boot=200, n_perm=200)
    table = compare_tables(result)[0]
    assert [g for g, _ in table.groups] == ["Accuracy", "McNemar"]
    assert set(result["pairs"][0]) >= {"Accuracy"} and not {"PA", "CWPA"} & set(result["pairs"][0])
