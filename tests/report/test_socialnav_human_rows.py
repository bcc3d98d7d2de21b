"""SocialNav-SUB Table 1's Human Oracle / Average Human rows are computed on the questions
the ranked rows were scored on, whatever the order of the runs (issue 41): a ``--limit 1``
run or an interrupted run listed first no longer sets them for complete runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.models import baselines
from socialbench.models.registry import ModelOptions
from socialbench.report.loading import load_runs
from socialbench.report.run_dir import RunDir
from socialbench.report.socialnav_tables import socialnav_question_table, socialnav_table1
from socialbench.runner.run import RunRequest, run_eval


@pytest.fixture(scope="module")
def limit1(tmp_path_factory, sn_data: Path) -> Path:
    """A complete ``--limit 1`` run of the random baseline (1 of the 3 scenes)."""
    out = tmp_path_factory.mktemp("limit1") / "random-limit1"
    model = baselines.make_random("", ModelOptions(seed=3))
    req = RunRequest(
        "socialnav-sub", sn_data, model.spec, out, EvalOptions(limit=1), concurrency=4, show_progress=False
    )
    assert run_eval(req, SocialNavSub(), model).complete
    return out


def _interrupted() -> RunDir:
    """A run interrupted before its first answer, as its metrics.json says it."""
    metrics = {"benchmark": "socialnav-sub", "protocol": "paper", "n_scored": 0, "n_missing": 117, "note": "none"}
    run = {"benchmark": "socialnav-sub", "model": "openai:gpt-4o", "status": "interrupted"}
    return RunDir(Path("interrupted"), run, metrics, label="gpt-4o")


def _human(table, name: str = "Human Oracle"):
    return [(r.stub[0], tuple(c.value for c in r.cells)) for r in table.rows if r.stub[0].startswith(name)]


def _oracle_all_pa(path: Path) -> float:
    (run,) = load_runs([path])
    return float(run.metrics["scores"]["human:oracle"]["All"]["PA"])


def test_human_rows_do_not_depend_on_the_order_of_the_runs(sn_runs, limit1):
    runs = load_runs([limit1, sn_runs["random"], sn_runs["rule"]])
    first = socialnav_table1(runs)
    last = socialnav_table1([runs[1], runs[2], runs[0]])
    assert sorted(_human(first)) == sorted(_human(last))


def test_a_limit_run_listed_first_gets_human_rows_of_its_own_labelled(sn_runs, limit1):
    runs = load_runs([limit1, sn_runs["random"], sn_runs["rule"]])
    rows = dict(_human(socialnav_table1(runs)))
    (full,) = [k for k in rows if k.endswith(f"questions: {runs[1].label}, {runs[2].label})")]
    (one,) = [k for k in rows if k != full]
    assert full.startswith("Human Oracle (") and one.endswith(f"questions: {runs[0].label})")
    assert rows[full][0] == pytest.approx(_oracle_all_pa(sn_runs["random"]))
    assert "scored on different questions" in socialnav_table1(runs).notes[0]


def test_runs_on_one_question_set_share_one_pair_of_human_rows(sn_runs):
    t = socialnav_table1(load_runs([sn_runs["random"], sn_runs["rule"]]))
    assert [name for name, _ in _human(t, "")[:2]] == ["Human Oracle", "Average Human"]
    assert "every ranked run was scored on" in t.notes[0]


def test_an_interrupted_run_listed_first_leaves_the_human_rows_filled(sn_runs):
    runs = [_interrupted(), *load_runs([sn_runs["random"], sn_runs["rule"]])]
    ((name, cells),) = _human(socialnav_table1(runs))
    assert name == "Human Oracle" and cells[0] == pytest.approx(_oracle_all_pa(sn_runs["random"]))


def test_table12_takes_its_human_columns_from_the_same_set(sn_runs, limit1):
    runs = load_runs([limit1, sn_runs["random"], sn_runs["rule"]])
    t = socialnav_question_table(runs, "baselines")
    assert t is not None
    groups = [g for g, _ in t.groups]
    assert sum(g.startswith("Human Oracle (") for g in groups) == 2
