"""openai: streams replies, learns from a server that refuses streaming, and times the first
byte apart from the whole reply (issue 28 §4)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import pytest

from generate_in_turn import generate_in_turn
from socialbench.models.base import RetryableModelError
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.openai_factory import create_openai_model
from socialbench.models.registry import ModelOptions
from socialbench.testing.openai_server import Rejection, ScriptedOpenAIServer, ServedModel, stall, wait_until
from socialbench.testing.slow_server import SlowOpenAIServer
from socialbench.types import Generation, Request

PROMPT = 'Which way?\nPossible answers: "left", "right"\nRespond as {"answer": "<answer>"}'


@pytest.fixture(autouse=True)
def _no_real_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def _model(url: str, first_byte_s: float | None = None, **extra: str) -> OpenAICompatModel:
    opts = ModelOptions(timeout_s=30.0, first_byte_timeout_s=first_byte_s, extra=tuple(extra.items()))
    return create_openai_model(f"test-model@{url}", opts)


def _generate(model: OpenAICompatModel, n: int = 1) -> list[Generation]:
    return generate_in_turn(model, *(Request(prompt=PROMPT) for _ in range(n)))


def _refusing(field: str, status: int, body: Any) -> ServedModel:
    def check(request: Mapping[str, Any]) -> Rejection | None:
        return Rejection(status, body) if field in request else None

    return ServedModel(f"no-{field}", check)


def test_a_streamed_reply_is_put_back_together_with_its_usage():
    with SlowOpenAIServer(workers=4, tokens=5, token_s=0.0) as srv:
        (gen,) = _generate(_model(srv.base_url))
        counts = srv.wait_idle()  # the server counts "finished" after its last write, which the client may read first
    assert gen.text == '{"answer": "left"}' and gen.usage.completion_tokens == 5
    assert counts["finished"] == 1  # it went through the streaming path


def test_streaming_is_asked_with_usage_by_default():
    with ScriptedOpenAIServer() as srv:  # answers whole: a server that ignores stream works too
        (gen,) = _generate(_model(srv.base_url))
        (body,) = srv.requests
    assert (body["stream"], body["stream_options"]) == (True, {"include_usage": True})
    assert gen.text == '{"answer": "left"}'


def test_stream_false_sends_no_streaming_fields():
    with ScriptedOpenAIServer() as srv:
        _generate(_model(srv.base_url, stream="false"))
        (body,) = srv.requests
    assert "stream" not in body and "stream_options" not in body


def test_a_refused_stream_options_is_left_out_once_and_recorded(caplog):
    # Azure's older API versions: 400 "Unrecognized request argument supplied: stream_options"
    body = {"error": {"message": "Unrecognized request argument supplied: stream_options", "code": None}}
    with ScriptedOpenAIServer(served=_refusing("stream_options", 400, body)) as srv:
        model = _model(srv.base_url)
        with caplog.at_level(logging.WARNING):
            gens = _generate(model, n=2)
        sent = srv.requests
    assert [g.text for g in gens] == ['{"answer": "left"}'] * 2
    assert ["stream_options" in b for b in sent] == [True, False, False] and all(b["stream"] for b in sent)
    assert "stream_options" in model.adaptations()
    assert sum("refused stream_options" in r.getMessage() for r in caplog.records) == 1


def test_a_server_that_refuses_streaming_gets_whole_requests_recorded():
    # a FastAPI server's 422 with a detail string
    with ScriptedOpenAIServer(served=_refusing("stream", 422, {"detail": "Streaming is not supported"})) as srv:
        model = _model(srv.base_url)
        (gen,) = _generate(model)
        last = srv.requests[-1]
    assert gen.text == '{"answer": "left"}' and "stream" not in last
    assert "Streaming is not supported" in model.adaptations()["stream"]


def test_no_first_byte_in_time_is_a_timeout_that_closes_the_connection():
    with ScriptedOpenAIServer() as srv:
        srv.push(stall(30.0))
        with pytest.raises(RetryableModelError) as info:
            _generate(_model(srv.base_url, first_byte_s=0.2))
        wait_until(lambda: srv.in_flight == 0, "the stalled request's handler ends (its client went)")
    assert info.value.kind == "timeout" and "first byte" in info.value.message
