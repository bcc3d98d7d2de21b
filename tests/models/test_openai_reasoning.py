"""The OpenAI-compatible backend against servers that refuse generation settings (OpenAI's
reasoning models, Gemini's OpenAI-compatible endpoint), with their real error bodies."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

import pytest

from generate_in_turn import generate_in_turn
from socialbench.models.base import FatalModelError
from socialbench.models.endpoints import MultiEndpointModel
from socialbench.models.openai_compat import OpenAICompatModel, parse_completion
from socialbench.models.registry import ModelOptions
from socialbench.testing.openai_server import (
    Rejection,
    ScriptedOpenAIServer,
    ServedModel,
    gemini_model,
    openai_error,
    openai_reasoning_model,
    status,
)
from socialbench.types import Generation, GenerationConfig, Request

PROMPT = 'Which way?\nPossible answers: "left", "right"\nRespond as {"answer": "<answer>"}'
#: RobotEQ's paper settings: what a reasoning model refuses.
GREEDY = GenerationConfig(max_tokens=1024, temperature=0.0)


def _model(srv: ScriptedOpenAIServer) -> OpenAICompatModel:
    return OpenAICompatModel("o4-mini", srv.base_url, ModelOptions(timeout_s=5.0))


def _generate(model: OpenAICompatModel | MultiEndpointModel, *requests: Request) -> list[Generation]:
    return generate_in_turn(model, *requests)


def test_reasoning_model_gets_max_completion_tokens_and_its_default_temperature() -> None:
    with ScriptedOpenAIServer(served=openai_reasoning_model()) as srv:
        (gen,) = _generate(_model(srv), Request(prompt=PROMPT, config=GREEDY))
        last = srv.requests[-1]
    assert json.loads(gen.text) == {"answer": "left"}
    assert ("max_tokens" in last, last.get("max_completion_tokens"), "temperature" in last) == (False, 1024, False)


def test_adaptations_name_each_refused_field_with_the_servers_words() -> None:
    with ScriptedOpenAIServer(served=openai_reasoning_model()) as srv:
        model = _model(srv)
        _generate(model, Request(prompt=PROMPT, config=GREEDY))
    adapted = model.adaptations()
    assert sorted(adapted) == ["max_tokens", "temperature"]
    assert adapted["max_tokens"].startswith("sent as max_completion_tokens; HTTP 400 unsupported_parameter")
    assert "Only the default (1) value is supported" in adapted["temperature"]


def test_later_requests_are_sent_adapted_at_once() -> None:
    with ScriptedOpenAIServer(served=openai_reasoning_model()) as srv:
        _generate(_model(srv), *[Request(prompt=PROMPT + str(i), config=GREEDY) for i in range(3)])
        count = srv.count
    assert count == 3 + 2  # the first request was refused twice (max_tokens, temperature)


def test_each_adaptation_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="socialbench.models.openai_compat"):
        with ScriptedOpenAIServer(served=openai_reasoning_model()) as srv:
            _generate(_model(srv), *[Request(prompt=PROMPT + str(i), config=GREEDY) for i in range(3)])
    refused = [r.getMessage() for r in caplog.records if "the server refused" in r.getMessage()]
    assert len(refused) == 2


def test_reasoning_tokens_are_counted_apart() -> None:
    with ScriptedOpenAIServer(served=openai_reasoning_model(reasoning_tokens=40)) as srv:
        (gen,) = _generate(_model(srv), Request(prompt=PROMPT, config=GREEDY))
    assert gen.usage.reasoning_tokens == 40 and gen.usage.completion_tokens > 40


def test_reasoning_effort_is_sent() -> None:
    config = GenerationConfig(max_tokens=None, temperature=None, reasoning_effort="low")
    with ScriptedOpenAIServer(served=openai_reasoning_model()) as srv:
        _generate(_model(srv), Request(prompt=PROMPT, config=config))
        (body,) = srv.requests
    assert body["reasoning_effort"] == "low"


def test_refused_top_p_is_left_out() -> None:
    config = GenerationConfig(max_tokens=None, temperature=None, top_p=0.9)
    with ScriptedOpenAIServer(served=openai_reasoning_model()) as srv:
        model = _model(srv)
        _generate(model, Request(prompt=PROMPT, config=config))
        last = srv.requests[-1]
    assert "top_p" not in last and "top_p" in model.adaptations()


def test_gemini_list_shaped_error_is_read_and_the_named_field_left_out() -> None:
    config = GenerationConfig(max_tokens=None, temperature=None, reasoning_effort="high")
    with ScriptedOpenAIServer(served=gemini_model(unknown=["reasoning_effort"])) as srv:
        model = _model(srv)
        (gen,) = _generate(model, Request(prompt=PROMPT, config=config))
        last = srv.requests[-1]
    assert "reasoning_effort" not in last and json.loads(gen.text) == {"answer": "left"}
    assert 'Unknown name "reasoning_effort"' in model.adaptations()["reasoning_effort"]


def test_refusal_of_a_field_not_sent_is_a_bad_request() -> None:
    with ScriptedOpenAIServer() as srv:
        srv.push(status(400, openai_error("Invalid value for 'messages'.", "messages", "invalid_value")))
        with pytest.raises(FatalModelError) as info:
            _generate(_model(srv), Request(prompt=PROMPT, config=GREEDY))
    assert info.value.kind == "bad_request"


def test_a_sampling_server_is_sent_the_settings_unchanged() -> None:
    with ScriptedOpenAIServer() as srv:
        model = _model(srv)
        _generate(model, Request(prompt=PROMPT, config=GREEDY))
        (body,) = srv.requests
    assert (body["max_tokens"], body["temperature"], model.adaptations()) == (1024, 0.0, {})


def test_pool_reports_its_endpoints_adaptations() -> None:
    with ScriptedOpenAIServer(served=openai_reasoning_model()) as a, ScriptedOpenAIServer() as b:
        pool = MultiEndpointModel("o4-mini", [a.base_url, b.base_url], ModelOptions(timeout_s=5.0))
        _generate(pool, *[Request(prompt=PROMPT + str(i), config=GREEDY) for i in range(4)])
    assert sorted(pool.adaptations()) == ["max_tokens", "temperature"]


def test_shown_reasoning_is_kept_apart_from_the_answer() -> None:
    body = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": '{"answer": "left"}',
                    "reasoning_content": "the right is blocked",
                },
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 9, "completion_tokens_details": {"reasoning_tokens": 4}},
    }
    gen = parse_completion(json.dumps(body))
    assert (gen.text, gen.reasoning, gen.usage.reasoning_tokens) == ('{"answer": "left"}', "the right is blocked", 4)


def test_reply_cut_off_inside_its_reasoning_says_to_raise_max_tokens() -> None:
    body = {
        "choices": [
            {
                "message": {"role": "assistant", "content": "", "reasoning_content": "first, the"},
                "finish_reason": "length",
            }
        ]
    }
    with pytest.raises(FatalModelError, match="--max-tokens") as info:
        parse_completion(json.dumps(body))
    assert info.value.kind == "empty_response"


def test_a_value_out_of_range_is_the_runs_to_fix_not_adapted() -> None:
    too_large = openai_error(
        "max_tokens is too large: 100000. This model supports at most 16384 completion tokens, "
        "whereas you provided 100000.",
        "max_tokens",
        "invalid_value",
    )
    with ScriptedOpenAIServer() as srv:
        srv.push(status(400, too_large))
        model = _model(srv)
        with pytest.raises(FatalModelError, match="max_tokens is too large") as info:
            _generate(model, Request(prompt=PROMPT, config=GenerationConfig(max_tokens=100000)))
    assert (info.value.kind, model.adaptations()) == ("bad_request", {})


def _pydantic_extra_forbidden(body: Mapping[str, object]) -> Rejection | None:
    """A FastAPI server whose request model forbids extra fields and has no ``max_tokens``:
    pydantic v2's 422 body, in the exact shape FastAPI sends it."""
    if "max_tokens" not in body:
        return None
    entry = {"type": "extra_forbidden", "loc": ["body", "max_tokens"], "msg": "Extra inputs are not permitted"}
    return Rejection(422, {"detail": [{**entry, "input": body["max_tokens"]}]})


def test_a_422_detail_list_naming_max_tokens_is_adapted_like_a_400() -> None:
    with ScriptedOpenAIServer(served=ServedModel("fastapi-strict", _pydantic_extra_forbidden)) as srv:
        model = _model(srv)
        (gen,) = _generate(model, Request(prompt=PROMPT, config=GREEDY))
        last = srv.requests[-1]
    assert json.loads(gen.text) == {"answer": "left"}
    assert ("max_tokens" in last, last.get("max_completion_tokens")) == (False, 1024)
    assert model.adaptations()["max_tokens"] == (
        "sent as max_completion_tokens; HTTP 422: max_tokens: Extra inputs are not permitted"
    )
