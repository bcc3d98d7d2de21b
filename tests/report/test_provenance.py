"""Runs whose answers are not wholly the model's own (cot-gt, scene-context, human:*) are never
ranked as a model: the predicate (:mod:`socialbench.report.provenance`), and ``compare``, the
bootstrap table, Table 4 / 5, Table 1, Table 14 and the figures that use it, on runs made by
the real ``eval`` on the bundled demo scenes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub import bundled_demo_data
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.metrics.failures import failure_summary
from socialbench.metrics.ranking import holm
from socialbench.models import baselines
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.models.registry import ModelOptions
from socialbench.report.compare import APART, MODELS, compare_runs, compare_tables
from socialbench.report.item_data import ItemData
from socialbench.report.loading import load_runs
from socialbench.report.plots import legend_label
from socialbench.report.provenance import ASSISTED, HUMAN_DERIVED, MODEL, answer_source, given_keys
from socialbench.report.run_dataset import scoring_entries
from socialbench.report.run_dir import RunDir
from socialbench.report.socialnav_ablation_tables import socialnav_gt_table
from socialbench.report.socialnav_item_tables import socialnav_item_tables
from socialbench.report.socialnav_tables import socialnav_table1
from socialbench.runner.run import RunRequest, run_eval

SOCIAL = "Social reasoning"


class TextVLM(MockModel):
    """A stand-in VLM (spec ``vlm:first-option``, so reports file it under "VLM") that answers
    the first option it reads in the prompt's text; it looks at no image, so none is rendered."""

    needs_prompt = False

    def __init__(self) -> None:
        super().__init__("vlm:first-option", lambda r: first_option_answer(r.prompt))


#: name -> (model factory, eval options): two ranked runs and the four kept apart.
RUNS = {
    "vlm": (TextVLM, {"method": "cot"}),
    "random": (lambda: baselines.make_random("", ModelOptions(seed=1)), {"method": "cot"}),
    "cot-gt": (TextVLM, {"method": "cot-gt"}),
    "cot-gt-no-obstruction": (TextVLM, {"method": "cot-gt", "gt_without_obstruction": True}),
    "scene-context": (TextVLM, {"method": "scene-context"}),
    "oracle": (lambda: baselines.make_oracle("", ModelOptions()), {}),
}


@pytest.fixture(scope="module")
def run_dirs(tmp_path_factory) -> dict[str, Path]:
    """Complete runs of the first 5 demo scenes (as few as a bootstrap rank interval needs),
    one per entry of :data:`RUNS`."""
    out = tmp_path_factory.mktemp("provenance-runs")
    dirs = {}
    for name, (make, options) in RUNS.items():
        req = RunRequest(
            "socialnav-sub",
            bundled_demo_data(),
            "m",
            out / name,
            EvalOptions(limit=5, **options),
            concurrency=8,
            show_progress=False,
            image_workers=0,
        )
        assert run_eval(req, SocialNavSub(), make()).complete
        dirs[name] = out / name
    return dirs


@pytest.fixture(scope="module")
def runs(run_dirs: dict[str, Path]) -> dict[str, RunDir]:
    loaded = load_runs(list(run_dirs.values()))
    return dict(zip(run_dirs, loaded))


@pytest.fixture(scope="module")
def comparison(runs: dict[str, RunDir]) -> dict:
    return compare_runs(list(runs.values()), seed=0, n_boot=200, n_perm=500)


def _pa(r: RunDir) -> float:
    return float(r.metrics["scores"]["model"]["All"]["PA"])


# --------------------------------------------------------------------------- the predicate


@pytest.mark.parametrize(
    ("model", "run", "kind"),
    [
        ("human:oracle", {}, HUMAN_DERIVED),
        ("human:average", {"method": "cot"}, HUMAN_DERIVED),
        ("replay:human/samples.jsonl", {}, HUMAN_DERIVED),
        ("openai:gpt-4o", {"method": "cot-gt"}, HUMAN_DERIVED),
        ("openai:gpt-4o", {"method": "scene-context"}, ASSISTED),
        ("openai:gpt-4o", {"options": {"context": "human-oracle"}}, HUMAN_DERIVED),
        ("openai:gpt-4o", {"method": "cot"}, MODEL),
        ("openai:gpt-4o", {"options": {"context": "model:runs/gpt"}}, MODEL),
        ("baseline:rule-based", {}, MODEL),
    ],
)
def test_answer_source_kind(model: str, run: dict, kind: str) -> None:
    assert answer_source(model, run).kind == kind


def test_answer_source_says_why() -> None:
    assert "--method cot-gt" in answer_source("openai:gpt-4o", {"method": "cot-gt"}).why
    assert answer_source("openai:gpt-4o", {"method": "cot"}).why == ""


def test_answer_source_names_the_withheld_obstruction_answer() -> None:
    why = answer_source("openai:gpt-4o", {"method": "cot-gt", "gt_without_obstruction": True}).why
    assert "except Person Goal Obstruction" in why


def test_given_keys_are_the_human_modes_of_a_cot_gt_run(runs: dict[str, RunDir]) -> None:
    ds = load_socialnav(bundled_demo_data(), limit=5)
    spatial = {(it.item_id, q.key) for it in ds.items for q in it.questions if q.category != SOCIAL}
    assert given_keys(runs["cot-gt"]) == spatial
    assert given_keys(runs["vlm"]) == set()


# --------------------------------------------------------------------------- compare


def test_the_runs_kept_apart_would_top_the_ranking(runs: dict[str, RunDir]) -> None:
    # what makes the next tests matter: ranked with the models, these would come first
    best_model = max(_pa(runs["vlm"]), _pa(runs["random"]))
    assert _pa(runs["cot-gt"]) > best_model and _pa(runs["oracle"]) > best_model


def test_compare_leaderboard_ranks_only_the_models(comparison: dict) -> None:
    pa = [e for e in comparison["leaderboard"] if e["metric"] == "PA"]
    ranked = [e for e in pa if e["ranked"]]
    assert sorted(e["run"] for e in ranked) == ["Random (cot)", "first-option (cot)"]
    assert sorted(e["rank"] for e in ranked) == [1, 2]
    assert all(1 <= e["low"] <= e["high"] <= 2 for e in ranked)


def test_compare_leaderboard_lists_the_runs_kept_apart_without_a_rank(comparison: dict) -> None:
    apart = {e["run"]: e for e in comparison["leaderboard"] if e["metric"] == "PA" and not e["ranked"]}
    assert set(apart) == {
        "first-option (cot-gt)",
        "first-option (cot-gt, no goal-obstruction GT)",
        "first-option (scene-context)",
        "Human Oracle (run)",
    }
    assert all(e["rank"] is None and e["low"] is None for e in apart.values())
    assert apart["first-option (scene-context)"]["kept_apart"] == ASSISTED
    assert apart["Human Oracle (run)"]["kept_apart"] == HUMAN_DERIVED


def test_compare_pairs_are_split_into_two_holm_families(comparison: dict) -> None:
    models = [p for p in comparison["pairs"] if p["family"] == MODELS]
    apart = [p for p in comparison["pairs"] if p["family"] == APART]
    assert len(models) == 1 and len(apart) == 14
    for family in (models, apart):
        raw = [p["PA"]["p_permutation"] for p in family]
        assert [p["PA"]["p_permutation_holm"] for p in family] == pytest.approx(holm(raw))


def test_compare_runs_record_their_answer_source(comparison: dict) -> None:
    kinds = {r["label"]: r["answer_source"] for r in comparison["runs"]}
    assert kinds["first-option (cot)"] == MODEL and kinds["first-option (cot-gt)"] == HUMAN_DERIVED


def test_compare_leaderboard_table_says_not_ranked_and_why(comparison: dict) -> None:
    board = next(t for t in compare_tables(comparison) if t.name == "compare_leaderboard")
    row = next(r for r in board.rows if r.stub == ("first-option (cot-gt)",) and r.section == "PA")
    assert row.cells[1].text == f"not ranked ({HUMAN_DERIVED})"
    assert any("--method cot-gt: the spatial and spatiotemporal answers are the human mode" in n for n in board.notes)


def test_compare_pairs_table_puts_pairs_with_a_run_kept_apart_last(comparison: dict) -> None:
    pairs = next(t for t in compare_tables(comparison) if t.name == "compare_pairs")
    sections = [r.section for r in pairs.rows]
    assert sections[0] == "Ranked runs" and set(sections[1:]) == {"With a run kept apart (not ranked)"}


# --------------------------------------------------------------------------- report tables


@pytest.fixture(scope="module")
def item_tables(runs: dict[str, RunDir]) -> dict:
    ordered = list(runs.values())
    tables = socialnav_item_tables(ordered, ItemData(ordered, None), ["scene_type"], seed=0, n_boot=50)
    return {t.name: t for t in tables}


def test_table4_puts_the_runs_kept_apart_after_the_models(item_tables: dict) -> None:
    t = item_tables["socialnav_failures_by_attribute"]
    sections = [r.section for r in t.rows]
    assert sections == ["Baseline", "VLM", ASSISTED, HUMAN_DERIVED, HUMAN_DERIVED, HUMAN_DERIVED]
    assert any("never ranked" in n and "Human Oracle (run)" in n for n in t.notes)


def test_table4_counts_only_the_model_answers_of_a_cot_gt_run(item_tables: dict, runs: dict[str, RunDir]) -> None:
    ds = load_socialnav(bundled_demo_data(), limit=5)
    entries = scoring_entries(ds, runs["cot-gt"].samples())
    social = [e for e in entries if e.question.category == SOCIAL]
    row = next(r for r in item_tables["socialnav_failures_by_attribute"].rows if r.stub == ("first-option (cot-gt)",))
    assert row.cells[0].value == pytest.approx(failure_summary(social)["failure_rate"])
    # counting the human modes (which never fail) would have diluted the rate
    assert failure_summary(entries)["failure_rate"] < row.cells[0].value


def test_metrics_json_failures_count_only_the_model_answers(run_dirs: dict[str, Path]) -> None:
    failures = json.loads((run_dirs["cot-gt"] / "metrics.json").read_text())["failures"]
    asked = sum(
        1 for line in (run_dirs["cot-gt"] / "samples.jsonl").read_text().splitlines() if '"human-mode"' not in line
    )
    assert failures["n"] == asked


def test_bootstrap_table_puts_the_runs_kept_apart_in_their_sections(item_tables: dict) -> None:
    t = item_tables["socialnav_bootstrap_ci"]
    by_label = {r.stub[0]: r.section for r in t.rows}
    assert by_label["first-option (cot)"] == "VLM"
    assert by_label["first-option (scene-context)"] == ASSISTED
    assert by_label["Human Oracle (run)"] == HUMAN_DERIVED


def test_table1_never_bolds_a_run_kept_apart(runs: dict[str, RunDir]) -> None:
    t = socialnav_table1(list(runs.values()))
    apart = [r for r in t.rows if r.section in (ASSISTED, HUMAN_DERIVED)]
    assert len(apart) == 4 and not any(c.bold for r in apart for c in r.cells)


def test_table14_shows_the_follow_up_without_obstruction(runs: dict[str, RunDir]) -> None:
    t = socialnav_gt_table(list(runs.values()))
    assert t is not None
    assert [g for g, _ in t.groups] == [
        "CoT",
        "CoT with ground-truth spatial(temporal) answers",
        "CoT-GT without Person Goal Obstruction",
        "Scene context (rule-based perception)",
    ]
    robot_affected = next(r for r in t.rows if r.stub == ("Robot Affected by Person",))
    follow_up = runs["cot-gt-no-obstruction"].metrics["scores"]["model"]["q_robot_affected"]["PA"]
    assert robot_affected.cells[4].value == pytest.approx(follow_up)


def test_figure_legends_label_the_runs_kept_apart(runs: dict[str, RunDir]) -> None:
    assert legend_label(runs["cot-gt"]) == f"first-option (cot-gt) [{HUMAN_DERIVED}, not ranked]"
    assert legend_label(runs["vlm"]) == "first-option (cot)"


def test_viewer_features_only_the_models_failures(runs: dict[str, RunDir], tmp_path: Path) -> None:
    from socialbench.report.viewer import viewer_payload

    shown = [runs["vlm"], runs["scene-context"]]
    data = ItemData(shown, None)
    args = ([r.label for r in shown], [data.entries[0], data.entries[1]], data.items(), "paper", tmp_path)
    apart = viewer_payload(*args, images="none", featured=1000, models=[True, False])
    every = viewer_payload(*args, images="none", featured=1000)
    vlm_failed = {(r["i"], r["k"]) for r in apart["records"] if r["a"][0][2] == "failed"}
    featured = {(r["i"], r["k"]) for r in apart["records"] if r["feat"] and r["sel"] == "failure"}
    assert featured == vlm_failed
    # counted as a model, the perception module's own failures would be featured too
    assert {(r["i"], r["k"]) for r in every["records"] if r["feat"] and r["sel"] == "failure"} > vlm_failed


def test_question_tables_say_which_columns_are_kept_apart(runs: dict[str, RunDir]) -> None:
    from socialbench.report.socialnav_tables import socialnav_question_table

    t = socialnav_question_table(list(runs.values()), "models")
    assert t is not None
    assert any("never ranked" in n and "first-option (scene-context) (Perception-assisted" in n for n in t.notes)


def test_compare_command_prints_the_runs_kept_apart_unranked(run_dirs: dict[str, Path]) -> None:
    import typer
    from typer.testing import CliRunner

    from socialbench.report.commands import register

    app = typer.Typer(add_completion=False)
    app.callback()(lambda: None)  # keep the subcommands named
    register(app)
    paths = [str(run_dirs[k]) for k in ("vlm", "random", "cot-gt")]
    res = CliRunner().invoke(app, ["compare", *paths, "--n-boot", "50", "--n-perm", "100"])
    assert res.exit_code == 0, res.output
    board = res.output.split("Leaderboard", 1)[1]
    gt_lines = [line for line in board.splitlines() if "first-option (cot-gt)" in line and "|" in line]
    assert len(gt_lines) == 2  # PA and CWPA
    assert all("not ranked (Human-derived)" in line for line in gt_lines)
