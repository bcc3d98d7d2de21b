"""``socialbench export inspect``: a run as an Inspect AI log, read back with Inspect's own log
reader (issue 31 §2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="inspect_ai (optional extra inspect) is not installed")

from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ContentImage  # noqa: E402

from socialbench.benchmarks.options import EvalOptions  # noqa: E402
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub  # noqa: E402
from socialbench.cli import main  # noqa: E402
from socialbench.errors import UsageError  # noqa: E402
from socialbench.export.inspect_format import RECORDS_KEY, flatten_numbers  # noqa: E402
from socialbench.export.inspect_log import export_inspect  # noqa: E402
from socialbench.models.base import FatalModelError  # noqa: E402
from socialbench.models.mock import MockModel, first_option_answer  # noqa: E402
from socialbench.runner.engine import RetryPolicy  # noqa: E402
from socialbench.runner.run import RunRequest, run_eval  # noqa: E402


@pytest.fixture(scope="module")
def cot_run(small_socialnav, tmp_path_factory) -> Path:
    """A CoT run on 3 samples whose first request was refused (its dependants not asked)."""
    out = tmp_path_factory.mktemp("inspect-export") / "run"
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    model.script.append(FatalModelError("refusal", "declined"))
    req = RunRequest(
        benchmark_name="socialnav-sub",
        data=small_socialnav,
        model_spec="mock",
        out=out,
        options=EvalOptions(method="cot"),
        concurrency=1,
        retry=RetryPolicy(max_attempts=1, base_delay_s=0.001, timeout_s=5),
        cache_path=None,
        show_progress=False,
    )
    run_eval(req, SocialNavSub(), model)
    return out


@pytest.fixture(scope="module")
def log(cot_run, tmp_path_factory):
    path = tmp_path_factory.mktemp("inspect-log") / "run.eval"
    export_inspect(cot_run, path)
    return read_eval_log(str(path))


def _samples_jsonl(run: Path) -> list[dict]:
    latest = {}
    for line in (run / "samples.jsonl").read_text().splitlines():
        rec = json.loads(line)
        latest[(rec["item_id"], rec["question_key"])] = rec
    return list(latest.values())


def test_every_record_of_the_run_is_in_the_log(cot_run, log):
    logged = [r for s in log.samples for r in s.scores["socialbench"].metadata[RECORDS_KEY]]
    key = lambda r: (r["item_id"], r["question_key"])  # noqa: E731
    assert sorted(logged, key=key) == sorted(_samples_jsonl(cot_run), key=key)


def test_rebuilt_requests_are_the_ones_the_run_sent(log):
    assert len(log.samples) == 3
    assert all(s.metadata["requests_match_run"] for s in log.samples)


def test_requests_carry_their_images_and_replies_follow(cot_run, log):
    sample = log.samples[-1]
    users = [m for m in sample.messages if isinstance(m, ChatMessageUser)]
    replies = [m for m in sample.messages if isinstance(m, ChatMessageAssistant)]
    assert users and len(users) == len(replies)
    assert all(any(isinstance(c, ContentImage) for c in m.content) for m in users)
    raws = {r["raw"] for r in _samples_jsonl(cot_run) if r["item_id"] == sample.id and r["raw"]}
    assert {m.text for m in replies} == raws


def test_metrics_are_the_runs_own(cot_run, log):
    (score,) = log.results.scores
    logged = {k.removeprefix("paper/"): m.value for k, m in score.metrics.items() if k.startswith("paper/")}
    own = flatten_numbers(json.loads((cot_run / "metrics.json").read_text()))
    assert logged and logged == {k: own[k] for k in logged}
    assert "official/scores/model/All/CWPA" in score.metrics


def test_the_failed_question_is_an_error_of_its_sample(log):
    errored = [s for s in log.samples if s.error is not None]
    assert len(errored) == 1
    assert "refusal" in errored[0].error.message and "dependency_error" in errored[0].error.message


def test_an_out_file_inspect_cannot_read_is_refused(cot_run, tmp_path):
    with pytest.raises(UsageError, match=r"\.eval or \.json"):
        export_inspect(cot_run, tmp_path / "run.txt")


def test_the_command_writes_a_log(cot_run, tmp_path, capsys):
    out = tmp_path / "cli.json"
    main(["export", "inspect", str(cot_run), "--out", str(out)])
    assert "3 samples" in capsys.readouterr().out
    assert len(read_eval_log(str(out)).samples) == 3
