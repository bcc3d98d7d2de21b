"""A run against a dead backend gives up, keeps every question as a failure, and the same
command answers them once the server answers (issue 42)."""

import json

from socialbench.cli.evaluate import failure_message
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.runner.engine import RetryPolicy
from socialbench.testing.openai_server import ScriptedOpenAIServer, failing_model, status
from socialnav_http_run import run_first_sample

RETRY = RetryPolicy(max_attempts=6, base_delay_s=0.001, max_delay_s=0.002, timeout_s=10.0, give_up_after=3)


def _run(data, out, srv):
    model = OpenAICompatModel("m", srv.base_url, ModelOptions(timeout_s=10.0))
    return run_first_sample(data, out, model, concurrency=4, retry=RETRY)


def _rows(out):
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def test_a_dead_backend_gets_a_bounded_number_of_requests(small_socialnav, tmp_path):
    with ScriptedOpenAIServer(served=failing_model(status(500))) as srv:
        res = _run(small_socialnav, tmp_path / "r", srv)
        received = srv.count
    questions = res.metrics["run"]["questions"]
    assert received <= 3 * 4 < questions  # 3 rounds of at most 4 in flight; 6 per question before
    assert res.metrics["run"]["model_errors"] == questions


def test_every_question_not_answered_is_recorded_as_a_failure(small_socialnav, tmp_path):
    with ScriptedOpenAIServer(served=failing_model(status(500))) as srv:
        _run(small_socialnav, tmp_path / "r", srv)
    kinds = {r["error"] for r in _rows(tmp_path / "r")}
    assert kinds <= {"server_error", "gave_up"} and "gave_up" in kinds
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["sessions"][-1]["engine"]["gave_up"]["kind"] == "server_error"


def test_the_same_command_answers_them_once_the_server_answers(small_socialnav, tmp_path):
    with ScriptedOpenAIServer(served=failing_model(status(500))) as srv:
        _run(small_socialnav, tmp_path / "r", srv)
        srv.served = None  # the server is back
        res = _run(small_socialnav, tmp_path / "r", srv)
    assert res.complete and res.metrics["run"]["model_errors"] == 0


def test_the_end_message_says_the_run_gave_up(small_socialnav, tmp_path):
    with ScriptedOpenAIServer(served=failing_model(status(500))) as srv:
        res = _run(small_socialnav, tmp_path / "r", srv)
    text = failure_message(res.metrics["run"], "socialnav-sub", small_socialnav)
    assert "stopped sending" in text and "run the same command again" in text
