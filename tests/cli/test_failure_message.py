"""The message after a run with failed questions names each kind with its count, and says
to fix the data (not to run again) when the failures come from the dataset."""

import pytest

from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.cli import main
from socialbench.cli.evaluate import failure_message


def run_cli(*args):
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


def test_item_errors_are_named_and_point_at_the_data(small_socialnav, tmp_path, capsys, monkeypatch):
    real = SocialNavSub.solve

    async def first_item_broken(self, item, dataset, ctx):
        if item is dataset.items[0]:
            raise ValueError("broken item")
        await real(self, item, dataset, ctx)

    monkeypatch.setattr(SocialNavSub, "solve", first_item_broken)
    code = run_cli(
        "eval",
        "-b",
        "socialnav-sub",
        "-d",
        str(small_socialnav),
        "-m",
        "baseline:random",
        "-o",
        str(tmp_path / "r"),
        "--no-progress",
        "--no-cache",
    )
    err = capsys.readouterr().err
    assert code == 2 and "item_error" in err and "data validate" in err and "retry" not in err


def test_message_counts_each_kind():
    run = {"model_errors": 7, "error_kinds": {"timeout": 3, "missing_input": 4}}
    text = failure_message(run, "socialnav-sub", "DATA")
    assert "timeout 3" in text and "missing_input 4" in text


def test_model_failures_alone_advise_a_retry():
    text = failure_message({"model_errors": 2, "error_kinds": {"rate_limit": 2}}, "socialnav-sub", "DATA")
    assert "run the same command again to retry" in text and "data validate" not in text


def test_replay_without_answers_names_the_source_not_a_retry():
    text = failure_message({"model_errors": 2, "error_kinds": {"missing_answer": 2}}, "socialnav-sub", "DATA")
    assert "replay predictions made on this dataset" in text and "run the same command again" not in text


def test_each_kind_shows_its_first_message():
    run = {"model_errors": 3, "error_kinds": {"connection": 3}}
    text = failure_message(run, "socialnav-sub", "DATA", {"connection": "cannot connect to http://h:1/v1"})
    assert "connection 3: cannot connect to http://h:1/v1" in text


def test_replay_of_a_limited_run_on_the_whole_dataset_says_what_is_missing(small_socialnav, tmp_path, capsys):
    args = ("-b", "socialnav-sub", "-d", str(small_socialnav), "--no-progress", "--no-cache")
    run_cli("eval", *args, "-m", "baseline:random", "--limit", "1", "-o", str(tmp_path / "first"))
    code = run_cli("eval", *args, "-m", f"replay:{tmp_path / 'first'}", "-o", str(tmp_path / "replayed"))
    err = capsys.readouterr().err
    assert code == 2 and "has no answer for" in err and "run the same command again" not in err
