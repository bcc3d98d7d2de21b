"""samples.jsonl says why each reply ended and why each question was retried, against a
local OpenAI-compatible server (issue 28 §4)."""

import json

from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.runner.engine import RetryPolicy
from socialbench.testing.openai_server import ScriptedOpenAIServer, status, truncated
from socialnav_http_run import run_first_sample


def _run(data, out, url):
    model = OpenAICompatModel("m", url, ModelOptions(timeout_s=5.0))
    retry = RetryPolicy(max_attempts=3, base_delay_s=0.01, timeout_s=5.0)
    return run_first_sample(data, out, model, concurrency=1, retry=retry)


def _rows(out):
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def test_a_reply_cut_off_at_the_token_limit_is_marked_truncated(small_socialnav, tmp_path):
    with ScriptedOpenAIServer() as srv:
        srv.push(truncated('{"answer": "ye'))
        res = _run(small_socialnav, tmp_path / "r", srv.base_url)
    rows = _rows(tmp_path / "r")
    ended = sorted((r["finish_reason"], r.get("truncated", False)) for r in rows)
    assert ended == [("length", True)] + [("stop", False)] * (len(rows) - 1)
    assert res.stats["truncated"] == 1


def test_a_retried_question_records_the_cause_of_each_failed_attempt(small_socialnav, tmp_path):
    with ScriptedOpenAIServer() as srv:
        srv.push(status(500), status(429, headers={"Retry-After": "0"}))
        res = _run(small_socialnav, tmp_path / "r", srv.base_url)
    # other questions take the slot during a backoff, so either may meet the 429
    causes = sorted(kind for r in _rows(tmp_path / "r") for kind in r.get("retry_causes", []))
    assert causes == ["rate_limit", "server_error"]
    assert res.stats["retry_causes"] == {"rate_limit": 1, "server_error": 1}
