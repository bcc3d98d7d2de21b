"""A missing goal_info.json changes answers: ``eval`` warns about it (it was silent while
``data validate`` warned), ``data validate`` says it once, and a folder with no sample list
gets no goal warning beside its real error."""

import os
import subprocess
import sys

from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset

GOAL_WARNING = "goal positions are unknown"


def socialbench(*args, cwd):
    env = {**os.environ, "COLUMNS": "400"}
    return subprocess.run(
        [sys.executable, "-m", "socialbench", *args], capture_output=True, text=True, cwd=cwd, timeout=300, env=env
    )


def without_goals(tmp_path):
    root = write_synthetic_dataset(tmp_path / "data", n_samples=2, people=[1, 2], seed=3)
    (root / "goal_info.json").unlink()
    return root


def test_eval_warns_that_the_goal_file_is_missing(tmp_path):
    root = without_goals(tmp_path)
    res = socialbench(
        "eval", "-b", "socialnav-sub", "-d", str(root), "-m", "baseline:rule-based", "-o", "run", "--no-progress",
        "--cache", str(tmp_path / "cache" / "responses.sqlite"), cwd=tmp_path,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert " ".join(res.stderr.split()).count(GOAL_WARNING) == 1


def test_eval_warns_again_when_the_dataset_comes_from_its_snapshot(tmp_path):
    root = without_goals(tmp_path)
    args = ["eval", "-b", "socialnav-sub", "-d", str(root), "-m", "baseline:rule-based", "--no-progress"]
    args += ["--cache", str(tmp_path / "cache" / "responses.sqlite")]
    socialbench(*args, "-o", "first", cwd=tmp_path)
    res = socialbench(*args, "-o", "second", cwd=tmp_path)
    assert res.returncode == 0 and GOAL_WARNING in " ".join(res.stderr.split())


def test_validate_lists_a_missing_goal_file_once(tmp_path):
    root = without_goals(tmp_path)
    res = socialbench("data", "validate", "-b", "socialnav-sub", "-d", str(root), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert " ".join(res.stderr.split()).count(GOAL_WARNING) == 1 and "1 warning(s)" in res.stdout


def test_validate_names_a_dangling_goal_link_once(tmp_path):
    root = without_goals(tmp_path)
    (root / "goal_info.json").symlink_to(tmp_path / "nowhere.json")
    res = socialbench("data", "validate", "-b", "socialnav-sub", "-d", str(root), cwd=tmp_path)
    text = " ".join(res.stderr.split())
    assert text.count(GOAL_WARNING) == 1 and "link to a file that does not exist" in text


def test_a_folder_without_a_sample_list_gets_no_goal_warning(tmp_path):
    root = tmp_path / "roboteq"  # e.g. a RobotEQ folder checked as socialnav-sub by mistake
    root.mkdir()
    (root / "labels.jsonl").write_text('{"id": "1"}\n')
    res = socialbench("data", "validate", "-b", "socialnav-sub", "-d", str(root), cwd=tmp_path)
    assert res.returncode == 1 and "sample list" in res.stderr and GOAL_WARNING not in " ".join(res.stderr.split())
