"""``report`` on a folder it cannot report says what the folder is and a fix that works when
followed verbatim: a dataset is evaluated first, a run without answers is resumed, and a run
with answers but no metrics.json is scored by the command the message prints."""

import shlex
import shutil
from pathlib import Path

import pytest

from socialbench.cli import main
from socialbench.errors import DataError
from socialbench.report.loading import load_run


def run_cli(*args):
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


def problem_of(path: Path):
    with pytest.raises(DataError) as exc:
        load_run(path)
    return exc.value.problems[0]


def test_an_empty_folder_is_no_run_and_no_score_is_suggested(tmp_path):
    p = problem_of(tmp_path)
    assert "not a run directory" in p.message and "--predictions" not in p.fix and " -p " not in p.fix


def test_a_dataset_folder_is_named_as_one_with_the_eval_to_run(small_socialnav):
    p = problem_of(small_socialnav)
    assert "dataset folder" in p.message and f"-d {small_socialnav}" in p.fix and "socialbench eval" in p.fix


def test_an_empty_samples_file_is_said_to_hold_no_answers(tmp_path):
    (tmp_path / "run.json").write_text('{"benchmark": "socialnav-sub", "data": "d", "status": "interrupted"}')
    (tmp_path / "samples.jsonl").write_text("")
    p = problem_of(tmp_path)
    assert p.file.endswith("samples.jsonl") and "is empty" in p.message and "'interrupted'" in p.message
    assert "no samples.jsonl" not in p.message and "resume" in p.fix


def test_the_suggested_score_command_makes_the_run_reportable(small_socialnav, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(small_socialnav, tmp_path / "data")
    args = ["eval", "-b", "socialnav-sub", "-d", "data", "-m", "baseline:random", "-o", "run", "--no-progress"]
    assert run_cli(*args, "--no-cache") == 0
    (tmp_path / "run" / "metrics.json").unlink()  # as a run killed before scoring leaves it
    fix = problem_of(Path("run")).fix
    command = shlex.split(fix.split("`")[1])
    assert command[0] == "socialbench"
    assert run_cli(*command[1:]) == 0
    assert run_cli("report", "run", "-o", "rep") == 0 and (tmp_path / "rep" / "index.html").is_file()
