"""Which runs are partial (:func:`socialbench.report.provenance.completeness`): from run.json's
status and the answered / asked counts the runner writes; and a partial RobotEQ run left out
of Table 1 and named in ``roboteq_runs``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.models.base import FatalModelError
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.report.build import build_report
from socialbench.report.loading import load_runs
from socialbench.report.provenance import PARTIAL_MARK, completeness, rankable
from socialbench.report.run_dir import RunDir
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.run import RunRequest, run_eval

FIXTURES = Path(__file__).parent / "fixtures" / "roboteq"


def _run(status: str | None = None, **block: object) -> RunDir:
    run = {"benchmark": "socialnav-sub", "model": "openai:gpt-4o"}
    if status is not None:
        run["status"] = status
    return RunDir(path=Path("run"), run=run, metrics={"run": block} if block else {})


def test_a_killed_run_left_running_is_partial_even_without_counts():
    c = completeness(_run("running"))
    assert c.partial and c.why == "partial: questions answered unknown (run.json status: running)"


def test_a_complete_status_with_fewer_answers_than_questions_is_partial():
    assert completeness(_run("complete", questions=10, answered=9)).partial


def test_a_complete_run_that_answered_every_question_is_not_partial():
    assert not completeness(_run("complete", questions=10, answered=10, complete=True)).partial


def test_a_run_without_run_json_or_counts_is_not_partial():
    assert not completeness(_run()).partial


def test_the_count_uses_thousands_separators():
    assert completeness(_run("interrupted", questions=1104, answered=44)).why == (
        "partial: 44/1,104 questions answered (run.json status: interrupted)"
    )


def test_an_epochs_run_sums_its_epochs_counts():
    epochs = [{"questions": 10, "answered": 10}, {"questions": 10, "answered": 4}]
    c = completeness(_run("interrupted", complete=False, epochs=epochs))
    assert (c.answered, c.expected, c.partial) == (14, 20, True)


def test_rankable_keeps_every_run_with_include_incomplete():
    runs = [_run("complete"), _run("interrupted")]
    assert rankable(runs, include_incomplete=True) == (runs, [])


def test_a_real_eval_whose_model_failed_some_questions_is_partial(small_socialnav, tmp_path):
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    model.script.extend([FatalModelError("refusal")] * 3)
    req = RunRequest(
        "socialnav-sub",
        small_socialnav,
        model.spec,
        tmp_path / "run",
        EvalOptions(),
        concurrency=1,
        retry=RetryPolicy(max_attempts=1, base_delay_s=0.001, timeout_s=5),
        show_progress=False,
    )
    res = run_eval(req, SocialNavSub(), model)
    c = completeness(load_runs([tmp_path / "run"])[0])
    total = res.metrics["run"]["questions"]
    assert (
        c.partial
        and c.why == f"partial: {total - 3}/{total} questions answered (run.json status: finished_with_errors)"
    )


def _interrupted_copy(name: str, to: Path, answered: int) -> Path:
    """A copy of a RobotEQ fixture run as an interrupted run leaves it."""
    d = to / name
    shutil.copytree(FIXTURES / name, d)
    run = json.loads((d / "run.json").read_text(encoding="utf-8"))
    run.update({"status": "interrupted", "answered": answered})
    (d / "run.json").write_text(json.dumps(run), encoding="utf-8")
    metrics = json.loads((d / "metrics.json").read_text(encoding="utf-8"))
    metrics["run"] = {**metrics["run"], "answered": answered, "complete": False}
    (d / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    return d


def test_a_partial_roboteq_run_is_left_out_of_table1_and_named_in_roboteq_runs(tmp_path):
    partial = _interrupted_copy("qwen", tmp_path, 44)
    runs = load_runs([FIXTURES / "gpt55", FIXTURES / "opus46", partial])
    label = runs[2].label
    build_report(runs, tmp_path / "r", formats=["md"], figures=False)
    table1 = (tmp_path / "r" / "tables" / "roboteq_table1.md").read_text(encoding="utf-8")
    coverage = (tmp_path / "r" / "tables" / "roboteq_runs.md").read_text(encoding="utf-8")
    assert label not in table1 and "not shown: partial: 44/200 questions answered" in coverage


def test_a_row_merging_a_complete_and_a_partial_run_is_marked_and_noted(tmp_path):
    """The robustness row of a complete clean run and its interrupted blurred run."""
    blurred = _interrupted_copy("qwen_blur", tmp_path, 44)
    runs = load_runs([FIXTURES / "qwen", blurred])
    clean = runs[0].label
    build_report(runs, tmp_path / "r", formats=["md"], figures=False, include_incomplete=True)
    md = (tmp_path / "r" / "tables" / "robustness.md").read_text(encoding="utf-8")
    assert f"| {clean}{PARTIAL_MARK} |" in md and "partial: 44/" in md
