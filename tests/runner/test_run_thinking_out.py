"""A reasoning model that thinks the whole token limit away: the failed records keep their
usage and finish reason, run.json's totals count them, and the end message names the fix
(issue 42)."""

import json

from socialbench.cli.evaluate import failure_message
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.runner.engine import RetryPolicy
from socialbench.testing.openai_server import ScriptedOpenAIServer, failing_model, thinking_out
from socialnav_http_run import run_first_sample


def _run(data, out):
    with ScriptedOpenAIServer(served=failing_model(thinking_out())) as srv:
        model = OpenAICompatModel("m", srv.base_url, ModelOptions(timeout_s=10.0))
        res = run_first_sample(data, out, model, concurrency=4, retry=RetryPolicy(max_attempts=2, timeout_s=10.0))
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    return res, rows, json.loads((out / "run.json").read_text())


def test_failed_records_keep_usage_and_finish_reason(small_socialnav, tmp_path):
    _, rows, _ = _run(small_socialnav, tmp_path / "r")
    assert rows and all(r["error"] == "empty_response" for r in rows)
    assert all(r["finish_reason"] == "length" and r["truncated"] for r in rows)
    assert all(r["usage"]["completion_tokens"] == 1024 == r["usage"]["reasoning_tokens"] for r in rows)


def test_run_json_totals_count_the_failed_replies_tokens(small_socialnav, tmp_path):
    _, rows, run = _run(small_socialnav, tmp_path / "r")
    assert run["reasoning_tokens"] == 1024 * len(rows) == run["completion_tokens"]
    assert run["sessions"][-1]["engine"]["truncated"] == len(rows)


def test_the_end_message_advises_max_tokens_not_a_rerun(small_socialnav, tmp_path):
    res, rows, _ = _run(small_socialnav, tmp_path / "r")
    text = failure_message(res.metrics["run"], "socialnav-sub", small_socialnav)
    assert res.metrics["run"]["errors_truncated"] == len(rows)
    assert "raise --max-tokens" in text and "run the same command again" not in text
