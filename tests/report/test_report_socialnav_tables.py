"""SocialNav-SUB paper-table builder rules (Table 1 rows, sections, protocols)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from socialbench.errors import UsageError
from socialbench.report.loading import load_runs
from socialbench.report.robustness_table import robustness_table
from socialbench.report.run_dir import RunDir
from socialbench.report.socialnav_tables import socialnav_table1
from socialbench.report.table import EMPTY
from socialbench.report.waypoint_table import waypoint_table

FIXTURES = Path(__file__).parent / "fixtures"


def _sn_runs() -> list:
    return load_runs([FIXTURES / "socialnav" / n for n in ("rule_based", "gpt4o", "o4mini_cot", "gpt4o_blur")])


def test_socialnav_table1_puts_baselines_before_vlms_and_bolds_best_vlm() -> None:
    t = socialnav_table1(_sn_runs())
    assert [r.stub[0] for r in t.rows] == ["Human Oracle", "Average Human", "Rule-Based", "gpt-4o", "o4-mini (cot)"]
    assert [r.section for r in t.rows] == ["Baseline"] * 3 + ["VLM"] * 2
    all_pa = [r.cells[0] for r in t.rows]
    assert [c.bold for c in all_pa] == [False, False, False, False, True]  # rule-based 0.64 is not a VLM


def test_perturbed_runs_leave_table1_for_the_robustness_table() -> None:
    t = socialnav_table1(_sn_runs())
    assert not any("blur" in r.stub[0] for r in t.rows)
    rob = robustness_table(_sn_runs())
    assert rob is not None and rob.rows[0].stub == ("gpt-4o",)
    assert rob.rows[0].cells[2].value == pytest.approx(0.50 - 0.45)


def test_runs_with_different_protocols_cannot_share_a_table(tmp_path: Path) -> None:
    d = tmp_path / "official"
    shutil.copytree(FIXTURES / "socialnav" / "gpt4o", d)
    m = json.loads((d / "metrics.json").read_text())
    m["protocol"] = "official"
    (d / "metrics.json").write_text(json.dumps(m))
    runs = load_runs([FIXTURES / "socialnav" / "rule_based", d])
    with pytest.raises(UsageError, match="different protocols"):
        socialnav_table1(runs)


def _with_epochs(run: RunDir, n: int = 3) -> RunDir:
    """``run`` as if made with ``eval --epochs n``: its metrics the mean over identical
    epochs (every SE 0 across them), each epoch's own metrics under ``epochs.per_epoch``."""
    combined = json.loads(json.dumps(run.metrics))
    for scorer in combined["scores"].values():
        for block in scorer.values():
            block.update({k: 0.0 for k in block if k.endswith("_se")})
    epochs = {"n": n, "seeds": list(range(n)), "per_epoch": [run.metrics] * n}
    return RunDir(run.path, run.run, {**combined, "epochs": epochs}, label=run.label)


def _table1_note(runs: list[RunDir]) -> str:
    return socialnav_table1(runs).notes[0]


def test_table1_note_says_se_over_questions_without_epochs() -> None:
    note = _table1_note(_sn_runs())
    assert "Mean ± standard error over questions" in note and "epochs" not in note


def test_table1_note_names_the_runs_whose_se_is_across_epochs() -> None:
    runs = _sn_runs()
    runs[1] = _with_epochs(runs[1])
    assert (
        "Mean ± standard error over questions; runs made with --epochs (gpt-4o (3 epochs)): mean over the "
        "epochs ± standard error across the epochs." in _table1_note(runs)
    )


def test_table1_note_says_se_across_epochs_when_every_run_has_them() -> None:
    runs = [_with_epochs(r) for r in _sn_runs()]
    note = _table1_note(runs)
    assert "± standard error across the epochs" in note and "over questions;" not in note


def test_table1_human_rows_of_an_epochs_run_keep_the_se_over_questions() -> None:
    runs = _sn_runs()
    first = runs[0].metrics["scores"]["human:oracle"]["All"]
    oracle = socialnav_table1([_with_epochs(r) for r in runs]).rows[0].cells[0]
    assert (oracle.value, oracle.se) == (first["PA"], first["PA_se"])


# --------------------------------------------------------------------------- Table 3


def _waypoint_run(context: str, context_run: dict | None = None, model: str = "openai:m") -> RunDir:
    metrics = {
        "benchmark": "socialnav-waypoint",
        "context": context,
        "context_run": context_run,
        "overall": {"accuracy": {"value": 0.4, "se": 0.1, "n": 10}},
    }
    run = {
        "benchmark": "socialnav-waypoint",
        "model": model,
        "model_identity": f"id|{model}",
        "options": {"context": context},
    }
    return RunDir(Path(context.replace(":", "_")), run, metrics, label=f"{model} {context}")


CHECKED = {"kind": "same-model", "model": "openai:m", "model_identity": "id|openai:m"}


def _same_model_cell(runs: list[RunDir]):
    t = waypoint_table(runs)
    assert t is not None
    return t, t.rows[0].cells[t.columns.index("Same-Model")]


def test_a_checked_same_model_run_fills_the_same_model_column() -> None:
    t, cell = _same_model_cell([_waypoint_run("none"), _waypoint_run("model:sub", CHECKED)])
    assert cell.value == pytest.approx(40.0) and not any("Left out" in n for n in t.notes)


def test_a_model_context_run_without_the_check_is_left_out_and_named() -> None:
    t, cell = _same_model_cell([_waypoint_run("none"), _waypoint_run("model:sub")])
    assert cell is EMPTY and any(n.startswith("Left out of Same-Model: openai:m model:sub") for n in t.notes)


def test_another_models_context_is_never_filed_under_same_model() -> None:
    other = {**CHECKED, "model": "openai:other", "model_identity": "id|openai:other"}
    t, cell = _same_model_cell([_waypoint_run("none"), _waypoint_run("model:sub", other)])
    assert cell is EMPTY and any("Left out of Same-Model" in n for n in t.notes)
