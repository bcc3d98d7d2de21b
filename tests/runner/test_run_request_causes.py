"""run.json counts every request sent, by cause: attempts, retries, refusals learned from,
stream fallbacks and the images probe add up to what the server received (issue 42)."""

import json

from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.runner.engine import RetryPolicy
from socialbench.testing.openai_server import (
    Rejection,
    ScriptedOpenAIServer,
    ServedModel,
    openai_reasoning_model,
    restreaming_proxy_model,
    status,
)
from socialnav_http_run import run_first_sample

RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, timeout_s=10.0)
#: Azure's older API versions refuse stream_options with a 400 naming it.
NO_STREAM_OPTIONS = ServedModel(
    "no-stream-options",
    lambda body: (
        Rejection(400, {"error": {"message": "Unrecognized request argument supplied: stream_options"}})
        if "stream_options" in body
        else None
    ),
)


def _run(data, out, srv, concurrency=1):
    model = OpenAICompatModel("m", srv.base_url, ModelOptions(timeout_s=10.0))
    run_first_sample(data, out, model, concurrency=concurrency, retry=RETRY)
    return json.loads((out / "run.json").read_text())


def test_requests_sent_is_every_post_the_server_received(small_socialnav, tmp_path):
    with ScriptedOpenAIServer(served=openai_reasoning_model()) as srv:
        srv.push(status(500))
        run = _run(small_socialnav, tmp_path / "r", srv, concurrency=4)
        received = srv.count
    assert run["requests_sent"] == received
    assert run["sessions"][-1]["requests_sent"] == received


def test_requests_by_cause_name_the_refusals_retries_and_probe(small_socialnav, tmp_path):
    with ScriptedOpenAIServer(served=NO_STREAM_OPTIONS) as srv:
        srv.push(status(500))
        run = _run(small_socialnav, tmp_path / "r", srv)
    causes = run["requests_by_cause"]
    assert (causes["retries"], causes["probes"], causes["refusals_learned"]) == (1, 1, 1)
    assert causes["first_attempts"] == run["requests"] - run["retries"]
    assert sum(causes.values()) == run["requests_sent"]


def test_a_stream_fallback_is_counted_and_recorded(small_socialnav, tmp_path):
    with ScriptedOpenAIServer(served=restreaming_proxy_model()) as srv:
        run = _run(small_socialnav, tmp_path / "r", srv)
        received = srv.count
    assert run["requests_by_cause"]["stream_fallbacks"] == 1 and run["requests_sent"] == received
    assert "stream" in run["generation_adapted"] and run["model_errors"] == 0
