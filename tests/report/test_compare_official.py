"""`compare` takes official SocialNav-SUB experiment folders and `socialbench score` output
directly: it reads the predictions they were scored from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.cli import main
from socialbench.errors import UsageError
from socialbench.report.compare import compare_runs
from socialbench.report.loading import load_runs


def run_cli(*args: str) -> int:
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


@pytest.fixture(scope="module")
def official(tmp_path_factory, sn_data: Path) -> Path:
    """An official experiment folder answering the last option of every question."""
    exp = tmp_path_factory.mktemp("official") / "exp"
    for item in load_socialnav(sn_data).items:
        answers = {q.key: ([q.options[-1]] if q.kind == "multi" else q.options[-1]) for q in item.questions}
        (exp / item.item_id).mkdir(parents=True)
        (exp / item.item_id / "question_answers.json").write_text(json.dumps(answers))
    return exp


def test_official_folder_compares_directly_with_data(official, sn_data, sn_runs):
    runs = load_runs([official, sn_runs["rule"]], data=sn_data)
    result = compare_runs(runs, data=sn_data, n_boot=20, n_perm=20)
    assert result["n"] > 0 and len(result["pairs"]) == 1


def test_official_folder_without_data_asks_for_it(official, sn_runs):
    with pytest.raises(UsageError, match="--data"):
        load_runs([official, sn_runs["rule"]])


def test_score_output_of_an_official_folder_compares(official, sn_data, sn_runs, tmp_path):
    scored = tmp_path / "scored"
    assert run_cli("score", "-b", "socialnav-sub", "-p", str(official), "-d", str(sn_data), "-o", str(scored)) == 0
    assert not (scored / "samples.jsonl").exists()
    runs = load_runs([scored, sn_runs["rule"]])
    result = compare_runs(runs, n_boot=20, n_perm=20)
    assert result["n"] > 0


def test_compare_command_on_an_official_folder(official, sn_data, sn_runs, capsys):
    code = run_cli(
        "compare", str(official), str(sn_runs["rule"]), "--data", str(sn_data), "--n-boot", "20", "--n-perm", "20"
    )
    out = capsys.readouterr().out
    assert code == 0 and "| exp " in out  # the official folder's row, named after it
