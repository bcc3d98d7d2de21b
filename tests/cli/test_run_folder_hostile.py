"""Run folders and output folders from someone else: wrong types, special files and
symbolic links end in one line naming the file and the fix (exit 1), nothing is written
outside the folder the user named, and no answer is lost (issue 29)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from socialbench.cli import main


def run_cli(*args: object) -> int:
    with pytest.raises(SystemExit) as e:
        main([str(a) for a in args])
        raise SystemExit(0)
    code = e.value.code
    return code if isinstance(code, int) else 1


def one_error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip() and not x.startswith("note:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def evaluate(data: Path, out: Path, limit: int = 1) -> int:
    return run_cli(
        "eval", "-b", "socialnav-sub", "-d", data, "-m", "baseline:random", "-o", out,
        "--no-progress", "--no-cache", "--limit", limit,
    )  # fmt: skip


@pytest.fixture
def done_run(small_socialnav: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "run-a"
    assert evaluate(small_socialnav, out) == 0
    capsys.readouterr()
    return out


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", ["samples.jsonl", ".lock", "requests.log", "run.json"])
def test_resume_never_writes_through_a_link_to_another_runs_file(
    small_socialnav: Path, done_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    before = snapshot(done_run)
    mine = tmp_path / "run-b"
    mine.mkdir()
    (mine / name).symlink_to(done_run / (name if name != ".lock" else "samples.jsonl"))
    code = evaluate(small_socialnav, mine, limit=2)
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and str(mine / name) in line and "symbolic link" in line and "fix:" in line
    assert snapshot(done_run) == before  # the other run's answers are all there, unchanged


@pytest.mark.parametrize("name", ["samples.jsonl.tmp", "run.json.tmp", "metrics.json.tmp"])
def test_a_planted_tmp_link_is_never_written_through(
    small_socialnav: Path, done_run: Path, tmp_path: Path, name: str
) -> None:
    before = snapshot(done_run)
    (done_run / name).symlink_to(tmp_path / "outside.txt")
    (tmp_path / "outside.txt").write_text("keep")
    assert evaluate(small_socialnav, done_run, limit=2) == 0
    assert (tmp_path / "outside.txt").read_text() == "keep"
    assert len((done_run / "samples.jsonl").read_text().splitlines()) > len(before["samples.jsonl"].splitlines())


def test_score_out_never_writes_through_a_metrics_link(
    small_socialnav: Path, done_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("keep")
    out = tmp_path / "scored"
    out.mkdir()
    (out / "metrics.json").symlink_to(outside)
    code = run_cli("score", "-b", "socialnav-sub", "-p", done_run, "-d", small_socialnav, "--out", out)
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and str(out / "metrics.json") in line and outside.read_text() == "keep"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: {**r, "item_id": [r["item_id"]]}, "item_id"),
        (lambda r: {**r, "question_key": 7}, "question_key"),
        (lambda r: {**r, "latency_s": "fast"}, "latency_s"),
    ],
)
def test_score_of_a_record_of_the_wrong_type_is_one_line(
    small_socialnav: Path, done_run: Path, capsys: pytest.CaptureFixture[str], change, field: str
) -> None:
    lines = (done_run / "samples.jsonl").read_text().splitlines()
    lines[1] = json.dumps(change(json.loads(lines[1])))
    (done_run / "samples.jsonl").write_text("\n".join(lines) + "\n")
    code = run_cli("score", "-b", "socialnav-sub", "-p", done_run, "-d", small_socialnav)
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and f"samples.jsonl:2 [{field}]" in line and "fix:" in line


def test_score_of_a_run_json_limit_that_is_text_is_one_line(
    small_socialnav: Path, done_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = json.loads((done_run / "run.json").read_text())
    (done_run / "run.json").write_text(json.dumps({**run, "limit": "1"}))
    code = run_cli("score", "-b", "socialnav-sub", "-p", done_run, "-d", small_socialnav)
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and "run.json [limit]" in line


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_report_of_a_run_json_that_is_no_file_is_one_line(
    done_run: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    (done_run / "run.json").unlink()
    if kind == "fifo":
        os.mkfifo(done_run / "run.json")
    else:
        (done_run / "run.json").symlink_to("/dev/zero")
    code = run_cli("report", done_run, "--format", "md", "--no-plots")
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and "not a regular file" in line


def test_report_of_json_nested_100000_deep_is_one_line(done_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (done_run / "metrics.json").write_text("[" * 100_000 + "]" * 100_000)
    code = run_cli("report", done_run, "--format", "md", "--no-plots")
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and "nested more than" in line


def test_report_of_run_json_sessions_of_the_wrong_type_is_one_line(
    done_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = json.loads((done_run / "run.json").read_text())
    (done_run / "run.json").write_text(json.dumps({**run, "sessions": "many"}))
    code = run_cli("report", done_run, "--format", "md", "--no-plots")
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and "run.json [sessions]" in line


def test_report_never_writes_through_a_report_link(
    done_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (done_run / "report").symlink_to(elsewhere)
    code = run_cli("report", done_run, "--format", "md", "--no-plots")
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and str(done_run / "report") in line and list(elsewhere.iterdir()) == []


def test_report_never_writes_through_a_link_inside_its_folder(
    done_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("keep")
    (done_run / "report").mkdir()
    (done_run / "report" / "report.md").symlink_to(outside)
    code = run_cli("report", done_run, "--format", "md", "--no-plots")
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and "report.md" in line and outside.read_text() == "keep"


def test_a_build_stage_never_writes_through_a_link_in_the_work_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_text("keep\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "taxonomy.jsonl").symlink_to(outside)
    code = run_cli("build", "taxonomy", "-w", work)
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and str(work / "taxonomy.jsonl") in line and outside.read_text() == "keep\n"


def test_report_of_a_score_that_is_text_is_one_line(done_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    metrics = json.loads((done_run / "metrics.json").read_text())
    scorer = next(iter(metrics["scores"]))
    metrics["scores"][scorer]["All"]["PA"] = "0.3"
    (done_run / "metrics.json").write_text(json.dumps(metrics))
    code = run_cli("report", done_run, "--format", "md", "--no-plots")
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and f"scores.{scorer}.All.PA" in line and "must be a number" in line


def test_compare_of_a_run_whose_samples_are_a_fifo_is_one_line(
    small_socialnav: Path, done_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "run-b"
    assert evaluate(small_socialnav, other) == 0
    (other / "samples.jsonl").unlink()
    os.mkfifo(other / "samples.jsonl")  # nobody writes: reading it would block forever
    capsys.readouterr()
    code = run_cli("compare", done_run, other, "-d", small_socialnav)
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and str(other / "samples.jsonl") in line and "not a regular file" in line
