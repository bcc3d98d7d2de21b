"""Partial runs (interrupted, or not every question answered) in the report and ``compare``:
marked wherever shown, left out of the ranked tables unless ``--include-incomplete``
(:mod:`socialbench.report.provenance`)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.cli import app
from socialbench.records import read_samples
from socialbench.report.build import build_report
from socialbench.report.loading import load_runs
from socialbench.report.provenance import PARTIAL_MARK, completeness

ANSWERED = 7  # questions the interrupted run answered before it was stopped


@pytest.fixture(scope="module")
def partial_run(tmp_path_factory, sn_runs: dict[str, Path], sn_data: Path) -> Path:
    """The finished mock first-option run cut short as a Ctrl-C leaves it: its first
    ``ANSWERED`` answers in samples.jsonl, metrics.json scored from them with the runner's
    ``run`` block, and run.json status ``interrupted``."""
    d = tmp_path_factory.mktemp("report-partial") / "partial"
    shutil.copytree(sn_runs["first"], d)
    lines = (d / "samples.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (d / "samples.jsonl").write_text("".join(lines[:ANSWERED]), encoding="utf-8")
    bench = SocialNavSub()
    dataset = bench.load(sn_data, require_images=False, limit=None)
    records = read_samples(d / "samples.jsonl")
    metrics = bench.score(dataset, records, "paper").to_json()
    metrics["benchmark"] = "socialnav-sub"
    total = len(bench.question_order(dataset))
    metrics["run"] = {"questions": total, "answered": ANSWERED, "model_errors": 0, "complete": False}
    (d / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    run = json.loads((d / "run.json").read_text(encoding="utf-8"))
    run.update({"status": "interrupted", "answered": ANSWERED})
    (d / "run.json").write_text(json.dumps(run), encoding="utf-8")
    return d


def _report(runs: list[Path], out: Path, **kw) -> Path:
    build_report(load_runs(runs), out, formats=["md", "csv", "tex", "html"], figures=False, n_boot=20, **kw)
    return out


def _table1_names(out: Path) -> list[str]:
    rows = list(csv.reader(io.StringIO((out / "tables" / "socialnav_table1.csv").read_text(encoding="utf-8"))))
    return [r[1] for r in rows[1:]]


def test_an_interrupted_run_is_partial_and_says_how_much_it_answered(partial_run):
    c = completeness(load_runs([partial_run])[0])
    assert c.partial and c.why.startswith(f"partial: {ANSWERED}/") and "interrupted" in c.why


def test_a_complete_run_is_not_partial(sn_runs):
    assert not completeness(load_runs([sn_runs["random"]])[0]).partial


def _labels(runs: list[Path]) -> tuple[str, str]:
    """The labels of the complete run and of the partial run (marked), as the report gives them."""
    loaded = load_runs(runs)
    return loaded[0].label, loaded[1].label + PARTIAL_MARK


def test_table1_leaves_a_partial_run_out_by_default(sn_runs, partial_run, tmp_path):
    out = _report([sn_runs["random"], partial_run], tmp_path / "r")
    complete, partial = _labels([sn_runs["random"], partial_run])
    assert complete in _table1_names(out) and partial not in _table1_names(out)
    md = (out / "tables" / "socialnav_table1.md").read_text(encoding="utf-8")
    assert partial.rstrip(PARTIAL_MARK) not in md


def test_the_report_notes_which_partial_run_it_left_out_and_the_flag(sn_runs, partial_run, tmp_path):
    res = build_report(load_runs([sn_runs["random"], partial_run]), tmp_path / "r", formats=["md"], figures=False)
    left = [n for n in res["notes"] if "left out of the ranked tables" in n]
    assert len(left) == 1 and f"{ANSWERED}/" in left[0] and "--include-incomplete" in left[0]


def test_include_incomplete_puts_the_partial_run_in_table1_marked(sn_runs, partial_run, tmp_path):
    out = _report([sn_runs["random"], partial_run], tmp_path / "r", include_incomplete=True)
    _, partial = _labels([sn_runs["random"], partial_run])
    assert partial in _table1_names(out)


@pytest.mark.parametrize("ext", ["md", "tex"])
def test_table1_with_include_incomplete_explains_the_mark_in_a_note(sn_runs, partial_run, tmp_path, ext):
    out = _report([sn_runs["random"], partial_run], tmp_path / "r", include_incomplete=True)
    text = (out / "tables" / f"socialnav_table1.{ext}").read_text(encoding="utf-8")
    assert f"partial: {ANSWERED}/" in text and "interrupted" in text


def test_table1_in_latex_marks_the_partial_run_with_a_dagger(sn_runs, partial_run, tmp_path):
    out = _report([sn_runs["random"], partial_run], tmp_path / "r", include_incomplete=True)
    _, partial = _labels([sn_runs["random"], partial_run])
    tex = (out / "tables" / "socialnav_table1.tex").read_text(encoding="utf-8")
    assert partial.rstrip(PARTIAL_MARK) + r"\textsuperscript{\dag}" in tex


def test_the_html_report_marks_the_partial_run_in_table1_and_the_run_list(sn_runs, partial_run, tmp_path):
    out = _report([sn_runs["random"], partial_run], tmp_path / "r", include_incomplete=True)
    page = (out / "index.html").read_text(encoding="utf-8")
    _, partial = _labels([sn_runs["random"], partial_run])
    assert page.count(partial) >= 2 and f"partial: {ANSWERED}/" in page


@pytest.mark.parametrize("ext", ["md", "csv", "tex"])
def test_the_unranked_question_table_shows_the_partial_run_marked_by_default(sn_runs, partial_run, tmp_path, ext):
    out = _report([sn_runs["rule"], partial_run], tmp_path / "r")
    _, partial = _labels([sn_runs["rule"], partial_run])
    text = (out / "tables" / f"socialnav_questions_baselines.{ext}").read_text(encoding="utf-8")
    shown = partial.rstrip(PARTIAL_MARK) + (r"\textsuperscript{\dag}" if ext == "tex" else PARTIAL_MARK)
    assert shown in text


def test_a_report_of_complete_runs_is_unchanged_by_the_flag(sn_runs, tmp_path):
    runs = [sn_runs["random"], sn_runs["rule"]]
    a = _report(runs, tmp_path / "a")
    b = _report(runs, tmp_path / "b", include_incomplete=True)
    for name in ("socialnav_table1.md", "socialnav_table1.csv", "socialnav_table1.tex"):
        assert (a / "tables" / name).read_text(encoding="utf-8") == (b / "tables" / name).read_text(encoding="utf-8")


def _compare(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(app, ["compare", *args, "--n-boot", "20", "--n-perm", "20"])
    return res.exit_code, res.stdout, res.stderr


def test_compare_leaves_a_partial_run_out_of_the_leaderboard_by_default(sn_runs, partial_run):
    runs = [str(sn_runs["random"]), str(sn_runs["rule"]), str(partial_run)]
    code, out, err = _compare(*runs)
    assert code == 0 and PARTIAL_MARK not in out and "left out of the ranked tables" in err


def test_compare_with_include_incomplete_ranks_the_partial_run_marked(sn_runs, partial_run):
    runs = [str(sn_runs["random"]), str(sn_runs["rule"]), str(partial_run)]
    code, out, _ = _compare(*runs, "--include-incomplete")
    assert code == 0 and PARTIAL_MARK in out and f"partial: {ANSWERED}/" in out


def test_compare_of_one_complete_and_one_partial_run_names_the_flag(sn_runs, partial_run):
    code, _, err = _compare(str(sn_runs["random"]), str(partial_run))
    assert code != 0 and "--include-incomplete" in err


def _waypoint_runs(tmp_path: Path) -> tuple[Path, Path]:
    """Two waypoint runs on the bundled samples (first 2): baseline:random, complete; and a
    mock VLM whose first request is refused, so it finishes with an unanswered question."""
    from socialbench.benchmarks.base import get_benchmark
    from socialbench.benchmarks.options import EvalOptions
    from socialbench.models.base import FatalModelError
    from socialbench.models.mock import MockModel, first_option_answer
    from socialbench.runner.engine import RetryPolicy
    from socialbench.runner.run import RunRequest, run_eval
    from socialbench.vision.images import ImagePolicy

    bench, _ = get_benchmark("socialnav-waypoint")
    complete = tmp_path / "random"
    code = CliRunner().invoke(
        app,
        ["eval", "-b", "socialnav-waypoint", "-m", "baseline:random", "--limit", "2", "--out", str(complete)]
        + ["--no-progress", "--no-cache", "--no-render-cache"],
    )
    assert code.exit_code == 0, code.output
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    model.script.append(FatalModelError("refusal"))
    req = RunRequest(
        "socialnav-waypoint",
        bench.default_data(),
        model.spec,
        tmp_path / "mock",
        EvalOptions(limit=2),
        concurrency=1,
        show_progress=False,
        image_workers=0,
        retry=RetryPolicy(max_attempts=1, base_delay_s=0.01, timeout_s=30),
        image_policy=ImagePolicy(max_side=160),
    )
    assert not run_eval(req, bench, model).complete
    return complete, tmp_path / "mock"


def test_waypoint_table3_leaves_a_partial_run_out_unless_include_incomplete(tmp_path):
    complete, partial = _waypoint_runs(tmp_path)
    names = {}
    for flag in ([], ["--include-incomplete"]):
        out = tmp_path / f"rep{len(flag)}"
        res = CliRunner().invoke(
            app, ["report", str(complete), str(partial), "--out", str(out), "--format", "csv", "--no-plots", *flag]
        )
        assert res.exit_code == 0, res.output
        rows = (out / "tables" / "socialnav_table3_waypoints.csv").read_text(encoding="utf-8").splitlines()
        names[bool(flag)] = [r.split(",")[0] for r in rows[1:]]
    assert len(names[False]) == 1 and len(names[True]) == 2 and names[True][1].endswith(PARTIAL_MARK)


def test_a_table_that_names_a_partial_run_only_in_a_note_explains_the_mark(
    sn_runs, partial_run, tmp_path, tmp_path_factory
):
    # issue 41: the run is left out of Table 1, but its own generation settings are named
    # under every table ("Sent by first-option†: ..."): the table file explains the dagger
    d = tmp_path_factory.mktemp("partial-sent") / "partial"
    shutil.copytree(partial_run, d)
    run = json.loads((d / "run.json").read_text(encoding="utf-8"))
    run["generation"] = {"temperature": 0.7}
    (d / "run.json").write_text(json.dumps(run), encoding="utf-8")
    out = _report([sn_runs["random"], d], tmp_path / "r")
    _, partial = _labels([sn_runs["random"], d])
    md = (out / "tables" / "socialnav_table1.md").read_text(encoding="utf-8")
    assert f"Sent by {partial}" in md.replace("\\", "")
    assert f"{PARTIAL_MARK} Did not answer every question it was asked" in md


def test_note_partial_explains_a_mark_inside_a_row_name(partial_run):
    from socialbench.report.provenance import mark_partial, note_partial
    from socialbench.report.table import Row, Table

    (run,) = load_runs([partial_run])
    mark_partial([run])
    t = Table("t", "T", ("Model",), (), (Row((f"Human Oracle (7 questions: {run.label})",), ()),))
    (out,) = note_partial([t], [run])
    assert any(n.startswith(PARTIAL_MARK) and f"{ANSWERED}/" in n for n in out.notes)
