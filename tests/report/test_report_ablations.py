"""The SocialNav-SUB ablation tables (2 / 13 and 14), Table 1's sections for runs whose
answers are partly not the model's, and Table 4 / 5 column rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from socialbench.metrics.failure_analysis import ActionShare, GroupFailure
from socialbench.report.loading import load_runs
from socialbench.report.renderers import to_csv, to_latex, to_markdown
from socialbench.report.socialnav_ablation_tables import socialnav_ablation_table, socialnav_gt_table
from socialbench.report.socialnav_item_tables import action_table, failure_env_table
from socialbench.report.socialnav_tables import socialnav_table1

CATS = ("Spatial reasoning", "Spatiotemporal reasoning", "Social reasoning")
SOCIAL_KEYS = (
    "q_robot_affected",
    "q_robot_action",
    "q_person_affected",
    "q_person_action",
    "q_robot_suggested_affected",
    "q_robot_suggested_action",
    "q_human_future_action_prediction",
)


def _block(pa: float) -> dict:
    return {"PA": pa, "CWPA": pa + 0.1, "PA_se": 0.01, "CWPA_se": 0.02, "n": 10}


def make_run(
    root: Path, name: str, model: str, method: str = "independent", images: str = "img-with-bev", pa: float = 0.5
) -> Path:
    """A run directory whose every score is ``pa`` (``pa + 0.01 * i`` for category i)."""
    d = root / name
    d.mkdir()
    run = {
        "benchmark": "socialnav-sub",
        "method": method,
        "images": images,
        "strategy": "standard",
        "per_behavior": False,
        "perturb": None,
        "protocol": "paper",
        "status": "complete",
        "model": model,
    }
    model_scores = {"All": _block(pa)}
    model_scores.update({c: _block(pa + 0.01 * i) for i, c in enumerate(CATS)})
    model_scores.update({k: _block(pa + 0.001 * i) for i, k in enumerate(SOCIAL_KEYS)})
    metrics = {
        "benchmark": "socialnav-sub",
        "protocol": "paper",
        "n_scored": 10,
        "scores": {"model": model_scores, "human:average": {"All": _block(0.6)}, "human:oracle": {"All": _block(0.74)}},
    }
    (d / "run.json").write_text(json.dumps(run))
    (d / "metrics.json").write_text(json.dumps(metrics))
    return d


GPT = "openai:gpt-4o@https://api.example.com/v1"
GEM = "openai:gemini-2.0@https://api.example.com/v1"


def test_ablation_rows_follow_the_paper_order(tmp_path):
    runs = load_runs(
        [
            make_run(tmp_path, "a", GPT, "independent", pa=0.3),
            make_run(tmp_path, "b", GPT, "cot", "img", pa=0.4),
            make_run(tmp_path, "c", GPT, "cot", pa=0.5),
        ]
    )
    t = socialnav_ablation_table(runs)
    assert [r.stub for r in t.rows] == [("gpt-4o", "BEV + CoT"), ("gpt-4o", "No CoT"), ("gpt-4o", "No BEV")]
    assert [r.cells[2].value for r in t.rows] == pytest.approx([0.52, 0.32, 0.42])


def test_ablation_keeps_models_apart(tmp_path):
    runs = load_runs(
        [
            make_run(tmp_path, "a", GPT, "cot"),
            make_run(tmp_path, "b", GPT, "independent"),
            make_run(tmp_path, "c", GEM, "cot"),
            make_run(tmp_path, "d", GEM, "cot", "img"),
        ]
    )
    t = socialnav_ablation_table(runs)
    assert [r.stub for r in t.rows] == [
        ("gpt-4o", "BEV + CoT"),
        ("gpt-4o", "No CoT"),
        ("gemini-2.0", "BEV + CoT"),
        ("gemini-2.0", "No BEV"),
    ]


def test_ablation_needs_two_configurations_of_one_model(tmp_path):
    assert (
        socialnav_ablation_table(
            load_runs([make_run(tmp_path, "a", GPT, "cot"), make_run(tmp_path, "b", GEM, "independent")])
        )
        is None
    )


def test_ablation_cells_are_pa_with_se_in_every_format(tmp_path):
    t = socialnav_ablation_table(
        load_runs([make_run(tmp_path, "a", GPT, "cot"), make_run(tmp_path, "b", GPT, "independent")])
    )
    assert t.rows[0].cells[0].text == "0.50 ± 0.01"
    assert "0.50 ± 0.01" in to_markdown(t) and r"0.50 $\pm$ 0.01" in to_latex(t)
    assert (
        to_csv(t).splitlines()[0] == "Model,Ablation,Spatial Reasoning,Spatial Reasoning SE,Spatiotemporal Reasoning,"
        "Spatiotemporal Reasoning SE,Social Reasoning,Social Reasoning SE"
    )


def test_cot_gt_table_compares_the_social_questions(tmp_path):
    runs = load_runs([make_run(tmp_path, "a", GPT, "cot", pa=0.5), make_run(tmp_path, "b", GPT, "cot-gt", pa=0.7)])
    t = socialnav_gt_table(runs)
    assert len(t.rows) == 7 and t.rows[0].stub == ("Robot Affected by Person",)
    assert (t.rows[1].cells[0].value, t.rows[1].cells[2].value) == pytest.approx((0.501, 0.701))
    assert len(t.columns) == 4


def test_cot_gt_table_adds_scene_context_when_present(tmp_path):
    runs = load_runs(
        [
            make_run(tmp_path, "a", GPT, "cot"),
            make_run(tmp_path, "b", GPT, "cot-gt"),
            make_run(tmp_path, "c", GPT, "scene-context", pa=0.6),
        ]
    )
    t = socialnav_gt_table(runs)
    assert len(t.columns) == 6 and t.rows[0].cells[4].value == pytest.approx(0.6)


def test_cot_gt_table_needs_both_runs(tmp_path):
    assert socialnav_gt_table(load_runs([make_run(tmp_path, "a", GPT, "cot")])) is None


def test_cot_gt_is_never_ranked_as_a_vlm(tmp_path):
    runs = load_runs(
        [
            make_run(tmp_path, "a", GPT, "cot", pa=0.5),
            make_run(tmp_path, "b", GPT, "cot-gt", pa=0.9),
            make_run(tmp_path, "c", GEM, "cot", pa=0.4),
        ]
    )
    t = socialnav_table1(runs)
    gt = next(r for r in t.rows if "cot-gt" in r.stub[0])
    assert gt.section == "Human-derived" and not any(c.bold for c in gt.cells)
    assert [r.cells[0].bold for r in t.rows if r.section == "VLM"] == [True, False]


def test_human_runs_are_in_their_own_section(tmp_path):
    runs = load_runs(
        [make_run(tmp_path, "a", "human:average", pa=0.64), make_run(tmp_path, "b", "baseline:random", pa=0.3)]
    )
    t = socialnav_table1(runs)
    sampled = next(r for r in t.rows if r.stub[0].startswith("Sampled Human"))
    assert sampled.section == "Human-derived" and not sampled.cells[0].bold
    assert "own vote counted" in sampled.stub[0]


def test_scene_context_is_perception_assisted(tmp_path):
    runs = load_runs(
        [make_run(tmp_path, "a", GPT, "scene-context", pa=0.9), make_run(tmp_path, "b", GPT, "cot", pa=0.5)]
    )
    rows = socialnav_table1(runs).rows
    assert next(r for r in rows if "scene-context" in r.stub[0]).section == "Perception-assisted"


def _share(action: str) -> ActionShare:
    return ActionShare(action, 1, 0.2, 0, 0.0, None)


def test_action_table_uses_the_paper_column_order():
    order = ["avoiding", "overtaking", "not considering", "following", "yielding to"]  # the question's option order
    t = action_table([("m", {"base_key": "q_robot_action", "actions": [_share(a) for a in order]})])
    assert t.columns == ("Yielding to", "Overtaking", "Following", "Avoiding", "Not considering")


def _env(values: dict) -> list:
    analyses = [
        {"attribute": a, "groups": [GroupFailure(a, v, 5, 1, 0.2, 0.1, 1.0) for v in vs]} for a, vs in values.items()
    ]
    return [("m", {"failure_rate": 0.2, "failure_rate_se": 0.05}, analyses)]


def test_failure_table_leaves_out_single_valued_attributes():
    t = failure_env_table(_env({"indoors": [True], "crowd size": ["1 person", "2-3 people"]}))
    assert t.columns == ("Overall FR", "crowd size: 1 person", "crowd size: 2-3 people")


def test_report_writes_the_ablation_tables_in_md_csv_and_tex(tmp_path):
    from socialbench.report.build import build_report

    runs = load_runs(
        [
            make_run(tmp_path, "a", GPT, "cot"),
            make_run(tmp_path, "b", GPT, "independent"),
            make_run(tmp_path, "c", GPT, "cot", "img"),
            make_run(tmp_path, "d", GPT, "cot-gt"),
        ]
    )
    build_report(runs, tmp_path / "out", formats=["md", "csv", "tex"], figures=False)
    names = {p.name for p in (tmp_path / "out" / "tables").iterdir()}
    assert {
        f"{t}.{ext}" for t in ("socialnav_table2_ablation", "socialnav_table14_cot_gt") for ext in ("md", "csv", "tex")
    } <= names
