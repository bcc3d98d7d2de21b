"""SocialNav-SUB folders as they are shipped (composites without raw frames, labels only) and
label values that used to pass validation and then break a run, through the command line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from socialbench.cli import main


def run_cli(*args: str) -> int:
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


@pytest.fixture()
def data(small_socialnav, tmp_path) -> Path:
    return Path(shutil.copytree(small_socialnav, tmp_path / "data"))


def _first_sample(data: Path) -> str:
    return json.loads((data / "prompts" / "sample_info.json").read_text())["samples"][0]["folderpath"]


def _eval(data: Path, out: Path, *extra: str) -> int:
    return run_cli(
        "eval", "-b", "socialnav-sub", "-d", str(data), "-o", str(out), "--no-progress", "--no-cache", *extra
    )


def test_composites_without_raw_frames_evaluate_img_with_bev(data, tmp_path):
    for jpg in data.glob("front_view/*/*.jpg"):
        jpg.unlink()
    code = _eval(data, tmp_path / "r", "-m", "mock:first-option", "--images", "img-with-bev", "--limit", "1")
    assert code == 0
    lines = (tmp_path / "r" / "samples.jsonl").read_text().splitlines()
    assert lines and all(json.loads(line)["error"] is None for line in lines)


def test_composites_without_raw_frames_refuse_img_naming_the_frame(data, tmp_path, capsys):
    for jpg in data.glob("front_view/*/*.jpg"):
        jpg.unlink()
    code = _eval(data, tmp_path / "r", "-m", "mock:first-option", "--images", "img", "--limit", "1")
    assert code == 1 and ".jpg" in capsys.readouterr().err


def test_validate_labels_only_folder_says_what_it_supports(data, capsys):
    shutil.rmtree(data / "front_view")
    for png in data.glob("prompts/*/*.png"):
        png.unlink()
    code = run_cli("data", "validate", "-b", "socialnav-sub", "-d", str(data))
    captured = capsys.readouterr()
    assert code == 0
    assert "OK for `socialbench score`" in captured.err + captured.out
    assert "missing frame" not in captured.err


def test_eval_of_a_vision_model_on_a_labels_only_folder_says_so_in_one_line(data, tmp_path, capsys):
    shutil.rmtree(data / "front_view")
    for png in data.glob("prompts/*/*.png"):
        png.unlink()
    code = _eval(data, tmp_path / "r", "-m", "mock:first-option")
    lines = capsys.readouterr().err.strip().splitlines()
    assert (code, len(lines)) == (1, 1) and "labels only" in lines[0] and "missing frame" not in lines[0]


def test_rule_based_on_a_labels_only_folder_is_refused_before_the_run(data, tmp_path, capsys):
    shutil.rmtree(data / "front_view")
    for png in data.glob("prompts/*/*.png"):
        png.unlink()
    code = _eval(data, tmp_path / "r", "-m", "baseline:rule-based")
    lines = capsys.readouterr().err.strip().splitlines()
    assert (code, len(lines), (tmp_path / "r").exists()) == (1, 1, False)
    assert "baseline:rule-based answers from the pedestrian tracks" in lines[0] and "3 of 3 sample(s)" in lines[0]


def test_rule_based_names_the_one_sample_without_odometry(data, tmp_path, capsys):
    sid = _first_sample(data)
    (data / "front_view" / sid / "traj_data.pkl").unlink()
    code = _eval(data, tmp_path / "r", "-m", "baseline:rule-based")
    assert code == 1 and f"which 1 of 3 sample(s) lack (e.g. {sid}: no odometry" in capsys.readouterr().err


def test_astronomical_n_answers_stops_eval_before_the_run(data, tmp_path, capsys):
    sid = _first_sample(data)
    labels = data / "human_labels" / sid / "common_answers.json"
    votes = json.loads(labels.read_text())
    key = next(k for k in votes if k.endswith("_n_answers") and k != "_n_answers")[: -len("_n_answers")]
    votes[key], votes[f"{key}_probabilities"], votes[f"{key}_n_answers"] = (votes[key][:1], [1.0], 10**40)
    labels.write_text(json.dumps(votes))
    assert _eval(data, tmp_path / "r", "-m", "baseline:random") == 1
    assert str(labels) in capsys.readouterr().err.replace("\n", "")
    assert not (tmp_path / "r" / "run.json").exists()
