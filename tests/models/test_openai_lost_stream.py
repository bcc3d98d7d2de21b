"""openai: a streamed reply that carries nothing (LiteLLM re-streaming a whole reply) is
sent again whole, and the run stops streaming, once and recorded (issue 42)."""

from __future__ import annotations

import logging

import pytest

from generate_in_turn import generate_in_turn
from socialbench.models.base import FatalModelError
from socialbench.models.openai_compat import OpenAICompatModel, stream_lost_reply
from socialbench.models.openai_factory import create_openai_model
from socialbench.models.registry import ModelOptions
from socialbench.testing.litellm_fake import FakeLiteLLM
from socialbench.testing.openai_server import ScriptedOpenAIServer, restreaming_proxy_model
from socialbench.types import Request

PROMPT = 'Which way?\nPossible answers: "left", "right"\nRespond as {"answer": "<answer>"}'


@pytest.fixture(autouse=True)
def _no_real_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def _model(url: str, **extra: str) -> OpenAICompatModel:
    return create_openai_model(f"test-model@{url}", ModelOptions(timeout_s=30.0, extra=tuple(extra.items())))


def _ask(model: OpenAICompatModel, n: int):
    return generate_in_turn(model, *(Request(prompt=PROMPT) for _ in range(n)))


def test_a_lost_stream_is_sent_again_whole_and_streaming_stops():
    with ScriptedOpenAIServer(served=restreaming_proxy_model()) as srv:
        model = _model(srv.base_url)
        gens = _ask(model, 3)
        sent = srv.requests
    assert [g.text for g in gens] == ['{"answer": "left"}'] * 3
    assert [bool(b.get("stream")) for b in sent] == [True, False, False, False]


def test_the_fallback_is_recorded_once_and_counted():
    with ScriptedOpenAIServer(served=restreaming_proxy_model()) as srv:
        model = _model(srv.base_url)
        _ask(model, 3)
    assert "no content and no usage" in model.adaptations()["stream"]
    assert model.extra_requests() == {"refusals_learned": 0, "stream_fallbacks": 1}


def test_the_fallback_is_logged_once_naming_stream_false(caplog):
    with ScriptedOpenAIServer(served=restreaming_proxy_model()) as srv:
        with caplog.at_level(logging.WARNING):
            _ask(_model(srv.base_url), 2)
    said = [r.getMessage() for r in caplog.records if "without streaming" in r.getMessage()]
    assert len(said) == 1 and "--model-opt stream=false" in said[0]


def test_behind_the_litellm_fake_every_answer_arrives():
    with ScriptedOpenAIServer() as upstream, FakeLiteLLM(upstream.base_url) as proxy:
        gens = _ask(_model(proxy.base_url), 2)
    assert [g.text for g in gens] == ['{"answer": "left"}'] * 2


def test_an_empty_reply_whose_stream_counts_tokens_is_the_models():
    completion = {"choices": [{"message": {"content": ""}, "finish_reason": "stop"}], "usage": {"completion_tokens": 2}}
    assert stream_lost_reply(completion) is False


def test_an_empty_whole_reply_after_the_fallback_stays_an_empty_response():
    with ScriptedOpenAIServer(served=restreaming_proxy_model()) as srv:
        srv.responder = lambda body: ""
        model = _model(srv.base_url)
        with pytest.raises(FatalModelError) as err:
            _ask(model, 1)
        sent = srv.requests
    assert err.value.kind == "empty_response" and len(sent) == 2


def test_a_pool_adds_up_its_endpoints_fallbacks():
    with (
        ScriptedOpenAIServer(served=restreaming_proxy_model()) as a,
        ScriptedOpenAIServer(served=restreaming_proxy_model()) as b,
    ):
        pool = create_openai_model(f"m@{a.base_url},{b.base_url}", ModelOptions(timeout_s=30.0))
        _ask(pool, 4)  # one after the other: each endpoint is used (fewest in flight, ties in turn)
    assert pool.extra_requests()["stream_fallbacks"] == 2


def test_an_empty_answer_without_usage_asked_is_no_lost_stream():
    """Once stream_options is refused, replies carry no usage by design: an empty answer
    then is the model's (empty_response), not a lost stream that turns streaming off."""
    from socialbench.models.base import ModelError
    from socialbench.testing.openai_server import Rejection, ServedModel, empty

    served = ServedModel(
        "no-stream-options",
        lambda body: (
            Rejection(400, {"error": {"message": "Unrecognized request argument supplied: stream_options"}})
            if "stream_options" in body
            else None
        ),
        reports_usage=False,
    )
    with ScriptedOpenAIServer(served=served) as srv:
        srv.push(empty())
        model = _model(srv.base_url)
        with pytest.raises(ModelError) as info:
            generate_in_turn(model, Request(prompt=PROMPT))
        sent = srv.requests
    assert info.value.kind == "empty_response" and "stream" not in model.adaptations()
    assert all(b.get("stream") for b in sent)
