"""A run against a real local OpenAI-compatible server that misbehaves on a script."""

from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.runner.engine import RetryPolicy
from socialbench.testing.openai_server import ScriptedOpenAIServer, malformed, stall, status
from socialnav_http_run import run_first_sample


def run(data, out, url, timeout=2.0, cache=None):
    model = OpenAICompatModel("m", url, ModelOptions(timeout_s=timeout))
    retry = RetryPolicy(max_attempts=4, base_delay_s=0.01, timeout_s=timeout)
    return run_first_sample(data, out, model, concurrency=2, retry=retry, cache_path=cache)


def test_transient_failures_are_retried_until_every_question_is_answered(small_socialnav, tmp_path):
    with ScriptedOpenAIServer() as srv:
        srv.push(status(429, headers={"Retry-After": "0"}), status(500), malformed(), stall(1.0))
        res = run(small_socialnav, tmp_path / "r", srv.base_url, timeout=0.5)
    assert res.complete and res.stats["retries"] == 4 and res.stats["errors"] == 0


def test_second_run_is_served_from_the_cache(small_socialnav, tmp_path):
    cache = tmp_path / "cache.sqlite"
    with ScriptedOpenAIServer() as srv:
        run(small_socialnav, tmp_path / "r1", srv.base_url, cache=cache)
        first = srv.count
        res = run(small_socialnav, tmp_path / "r2", srv.base_url, cache=cache)
    # 15 questions + the first run's images probe; the second run sends nothing, probe included
    assert first == 15 + 1 and srv.count == first and res.stats["cache_hits"] == 15


def test_json_mode_is_requested_from_the_server(small_socialnav, tmp_path):
    with ScriptedOpenAIServer() as srv:
        run(small_socialnav, tmp_path / "r", srv.base_url)
        # the questions: every request but the images probe (the one without image parts)
        bodies = [b for b in srv.requests if len(b["messages"][-1]["content"]) > 1]
    assert len(bodies) == 15 and all(b.get("response_format") == {"type": "json_object"} for b in bodies)
