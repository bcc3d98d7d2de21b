"""Tests for the Anthropic Messages backend against the local Messages-API server."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest

pytest.importorskip("anthropic")

from socialbench.errors import UsageError  # noqa: E402
from socialbench.models.anthropic_messages import AnthropicModel  # noqa: E402
from socialbench.models.anthropic_reply import parse_message  # noqa: E402
from socialbench.models.anthropic_request import THINKING_BUDGETS, build_params  # noqa: E402
from socialbench.models.base import FatalModelError, ModelError, RetryableModelError  # noqa: E402
from socialbench.models.registry import ModelOptions, create_model  # noqa: E402
from socialbench.runner.engine import Engine, RetryPolicy  # noqa: E402
from socialbench.testing.anthropic_server import (  # noqa: E402
    THINKING_TEXT,
    Action,
    ScriptedAnthropicServer,
    empty,
    malformed,
    refusal,
    stall,
    status,
)
from socialbench.testing.anthropic_validation import request_api_key, validate_messages_request  # noqa: E402
from socialbench.types import EncodedImage, Generation, GenerationConfig, Request  # noqa: E402

SENTINEL_KEY = "sk-ant-SENTINEL-do-not-leak-0123456789"
PROMPT = 'Which way?\nPossible answers: "left", "right"\nRespond as {"answer": "<answer>"}'
IMAGE = EncodedImage(data=b"\xff\xd8\xff\xe0 fake jpeg bytes", mime="image/jpeg", width=4, height=3)


@pytest.fixture(autouse=True)
def _hermetic_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_CUSTOM_HEADERS",
        "ANTHROPIC_PROFILE",
    ):
        monkeypatch.delenv(name, raising=False)


def _model(srv: ScriptedAnthropicServer, timeout_s: float = 5.0, **extra: str) -> AnthropicModel:
    opts = ModelOptions(timeout_s=timeout_s, extra=tuple({"base_url": srv.base_url, **extra}.items()))
    model = create_model("anthropic:claude-test", opts)
    assert isinstance(model, AnthropicModel)
    return model


def _generate(model: AnthropicModel, request: Request) -> Generation:
    async def go() -> Generation:
        try:
            return await model.generate(request)
        finally:
            await model.aclose()

    return asyncio.run(go())


def _sampling_adaptations(model: AnthropicModel) -> dict[str, str]:
    """The model's adaptations but JSON mode's (never sent: a test of its own)."""
    return {k: v for k, v in model.adaptations().items() if k != "json_mode"}


def _error_for(action: Action, timeout_s: float = 5.0) -> ModelError:
    with ScriptedAnthropicServer() as srv:
        srv.push(action)
        with pytest.raises(ModelError) as info:
            _generate(_model(srv, timeout_s), Request(prompt=PROMPT))
    return info.value


# --------------------------------------------------------------------------- success


def test_answers_through_the_messages_api() -> None:
    with ScriptedAnthropicServer() as srv:
        gen = _generate(_model(srv), Request(prompt=PROMPT))
    assert json.loads(gen.text) == {"answer": "left"}


def test_usage_is_taken_from_the_response() -> None:
    with ScriptedAnthropicServer() as srv:
        gen = _generate(_model(srv), Request(prompt=PROMPT))
    assert gen.usage.prompt_tokens == len(PROMPT) // 4
    assert gen.usage.completion_tokens == len(gen.text) // 4


def test_images_are_base64_blocks_after_the_text() -> None:
    with ScriptedAnthropicServer() as srv:
        _generate(_model(srv), Request(prompt=PROMPT, images=(IMAGE, IMAGE)))
        content = srv.requests[0]["messages"][0]["content"]
    assert [b["type"] for b in content] == ["text", "image", "image"]
    assert content[1]["source"] == {
        "type": "base64",
        "media_type": "image/jpeg",
        "data": base64.b64encode(IMAGE.data).decode(),
    }


def test_images_first_option_puts_images_before_text() -> None:
    params = build_params("m", Request(prompt="p", images=(IMAGE,)), images_first=True)
    assert [b["type"] for b in params["messages"][0]["content"]] == ["image", "text"]


def test_system_prompt_and_max_tokens_are_sent() -> None:
    request = Request(prompt=PROMPT, system="You are a robot.", config=GenerationConfig(max_tokens=77))
    with ScriptedAnthropicServer() as srv:
        _generate(_model(srv), request)
        body = srv.requests[0]
    assert (body["system"], body["max_tokens"], body["model"]) == ("You are a robot.", 77, "claude-test")


def test_the_runs_temperature_and_top_p_are_sent_by_default() -> None:
    request = Request(prompt=PROMPT, config=GenerationConfig(temperature=0.0, top_p=0.9))
    with ScriptedAnthropicServer() as srv:
        model = _model(srv)
        _generate(model, request)
        body = srv.requests[0]
    assert (body["temperature"], body["top_p"], _sampling_adaptations(model)) == (0.0, 0.9, {})


def test_unset_sampling_settings_are_not_sent() -> None:
    with ScriptedAnthropicServer() as srv:
        _generate(_model(srv), Request(prompt=PROMPT, config=GenerationConfig(temperature=None)))
        body = srv.requests[0]
    assert ("temperature" in body, "top_p" in body) == (False, False)


def test_send_temperature_false_leaves_it_out_and_records_it() -> None:
    request = Request(prompt=PROMPT, config=GenerationConfig(temperature=0.0))
    with ScriptedAnthropicServer() as srv:
        model = _model(srv, send_temperature="false")
        _generate(model, request)
        body = srv.requests[0]
    assert "temperature" not in body
    assert "send_temperature=false" in model.adaptations()["temperature"]


def test_sending_the_temperature_has_an_identity_of_its_own() -> None:
    # replies cached before the temperature was sent (identity without the mark) were sampled
    # at the provider's default: a run that sends temperature 0 must not be served them
    with ScriptedAnthropicServer() as srv:
        sending, not_sending = _model(srv), _model(srv, send_temperature="false")
    assert sending.identity() == not_sending.identity() + "|temperature-sent"


def test_a_refused_temperature_is_dropped_and_the_request_sent_again(caplog: pytest.LogCaptureFixture) -> None:
    from socialbench.testing.anthropic_served import claude_temperature_deprecated

    request = Request(prompt=PROMPT, config=GenerationConfig(temperature=0.0))
    with ScriptedAnthropicServer(served=claude_temperature_deprecated()) as srv:
        model = _model(srv)
        with caplog.at_level("WARNING", logger="socialbench.models.anthropic_messages"):
            first = _generate(model, request)
            _generate(model, request)
        sent = [("temperature" in body) for body in srv.requests]
    assert json.loads(first.text) == {"answer": "left"}
    assert sent == [True, False, False]  # refused once, then never sent again
    assert model.adaptations()["temperature"] == (
        "not sent (0.0 refused, the server's default applies); "
        "HTTP 400 invalid_request_error: `temperature` is deprecated for this model."
    )
    assert sum("refused temperature" in r.getMessage() for r in caplog.records) == 1


def test_temperature_and_top_p_refused_together_drop_top_p() -> None:
    from socialbench.testing.anthropic_served import claude_sampling_exclusive

    request = Request(prompt=PROMPT, config=GenerationConfig(temperature=0.0, top_p=0.9))
    with ScriptedAnthropicServer(served=claude_sampling_exclusive()) as srv:
        model = _model(srv)
        _generate(model, request)
        last = srv.requests[-1]
    assert (last["temperature"], "top_p" in last, sorted(_sampling_adaptations(model))) == (0.0, False, ["top_p"])
    assert "cannot both be specified" in model.adaptations()["top_p"]


def test_a_400_about_something_else_is_a_bad_request_not_an_adaptation() -> None:
    request = Request(prompt=PROMPT, config=GenerationConfig(temperature=0.0))
    with ScriptedAnthropicServer() as srv:
        srv.push(status(400))
        model = _model(srv)
        with pytest.raises(FatalModelError) as info:
            _generate(model, request)
    assert (info.value.kind, _sampling_adaptations(model)) == ("bad_request", {})


def test_api_key_from_named_env_var_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_CLAUDE_KEY", SENTINEL_KEY)
    with ScriptedAnthropicServer(api_key=SENTINEL_KEY) as srv:
        gen = _generate(_model(srv, api_key_env="MY_CLAUDE_KEY"), Request(prompt=PROMPT))
        headers = srv.request_headers[0]
    assert request_api_key(headers) == SENTINEL_KEY and gen.text


def test_missing_key_without_base_url_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="ANTHROPIC_API_KEY"):
        create_model("anthropic:claude-test")


def test_key_never_in_identity_repr_or_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SENTINEL_KEY)
    model = create_model("anthropic:claude-test")
    for text in (model.identity(), repr(model), model.spec):
        assert SENTINEL_KEY not in text
    assert model.identity() == "anthropic|claude-test|default|temperature-sent"


def test_wrong_key_error_message_does_not_leak_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SENTINEL_KEY)
    with ScriptedAnthropicServer(api_key="another") as srv:
        srv.push(
            status(
                401,
                body={"type": "error", "error": {"type": "authentication_error", "message": f"bad key {SENTINEL_KEY}"}},
            )
        )
        with pytest.raises(FatalModelError) as info:
            _generate(_model(srv), Request(prompt=PROMPT))
    assert info.value.kind == "auth" and SENTINEL_KEY not in str(info.value)


# --------------------------------------------------------------------------- errors


def test_429_is_rate_limit_with_retry_after() -> None:
    err = _error_for(status(429, headers={"retry-after": "3"}))
    assert isinstance(err, RetryableModelError)
    assert (err.kind, err.retry_after) == ("rate_limit", 3.0)


def test_529_is_overloaded() -> None:
    err = _error_for(status(529))
    assert isinstance(err, RetryableModelError) and err.kind == "overloaded"


def test_500_is_server_error() -> None:
    err = _error_for(status(500))
    assert isinstance(err, RetryableModelError) and err.kind == "server_error"


def test_400_is_bad_request_with_the_server_message() -> None:
    with ScriptedAnthropicServer() as srv:
        model = _model(srv)
        with pytest.raises(FatalModelError) as info:
            _generate(model, Request(prompt=PROMPT, config=GenerationConfig(max_tokens=0)))
    assert info.value.kind == "bad_request" and "max_tokens" in info.value.message


def test_401_is_auth() -> None:
    err = _error_for(status(401))
    assert isinstance(err, FatalModelError) and err.kind == "auth"


def test_refusal_stop_reason_is_refusal() -> None:
    err = _error_for(refusal())
    assert isinstance(err, FatalModelError) and err.kind == "refusal"


def test_empty_text_is_empty_response() -> None:
    err = _error_for(empty())
    assert isinstance(err, FatalModelError) and err.kind == "empty_response"


def test_non_json_body_is_malformed_response() -> None:
    err = _error_for(malformed())
    assert isinstance(err, RetryableModelError) and err.kind == "malformed_response"


def test_slow_answer_is_timeout() -> None:
    err = _error_for(stall(2.0), timeout_s=0.3)
    assert isinstance(err, RetryableModelError) and err.kind == "timeout"


def test_closed_port_is_connection_error() -> None:
    srv = ScriptedAnthropicServer().start()
    model = _model(srv)
    srv.stop()
    with pytest.raises(RetryableModelError) as info:
        _generate(model, Request(prompt=PROMPT))
    assert info.value.kind == "connection"


def test_closed_port_error_names_the_url() -> None:
    srv = ScriptedAnthropicServer().start()
    model = _model(srv)
    url = srv.base_url.rstrip("/")
    srv.stop()
    with pytest.raises(RetryableModelError) as info:
        _generate(model, Request(prompt=PROMPT))
    assert f"cannot connect to {url}" in info.value.message


def test_parse_message_counts_cache_tokens_as_input() -> None:
    body = {
        "content": [{"type": "text", "text": "hi"}],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 5,
            "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 7,
            "output_tokens": 2,
        },
    }
    assert parse_message(json.dumps(body)).usage.prompt_tokens == 112


# --------------------------------------------------------------------------- through the engine


def test_engine_retries_429_and_529_then_succeeds() -> None:
    with ScriptedAnthropicServer() as srv:
        srv.push(status(429, headers={"retry-after": "0"}), status(529))
        model = _model(srv)

        async def go():  # type: ignore[no-untyped-def]
            engine = Engine(model, concurrency=2, retry=RetryPolicy(max_attempts=4, base_delay_s=0.01, timeout_s=5))
            try:
                return await engine.run(Request(prompt=PROMPT))
            finally:
                await model.aclose()

        outcome = asyncio.run(go())
        served = srv.count
    assert (outcome.error, outcome.attempts, served) == (None, 3, 3)
    assert json.loads(outcome.text or "") == {"answer": "left"}


# --------------------------------------------------------------------------- URL credentials and usage

URL_KEY = "query-key-SECRET-42"


def _message_body(usage: object) -> dict[str, object]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": '{"answer": "left"}'}],
        "stop_reason": "end_turn",
        "usage": usage,
    }


def test_non_numeric_usage_keeps_the_answer() -> None:
    with ScriptedAnthropicServer() as srv:
        srv.push(status(200, body=_message_body({"input_tokens": "n/a", "output_tokens": 3})))
        gen = _generate(_model(srv), Request(prompt=PROMPT))
    assert json.loads(gen.text) == {"answer": "left"}
    assert (gen.usage.prompt_tokens, gen.usage.completion_tokens) == (0, 3)


def test_url_user_info_is_basic_auth_and_the_key_goes_in_x_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SENTINEL_KEY)
    with ScriptedAnthropicServer(api_key=SENTINEL_KEY) as srv:
        url = srv.base_url.replace("http://", f"http://alice:{URL_KEY}@", 1)
        model = create_model("anthropic:claude-test", ModelOptions(timeout_s=5, extra=(("base_url", url),)))
        gen = _generate(model, Request(prompt=PROMPT))  # type: ignore[arg-type]
        (headers,) = srv.request_headers
    assert gen.text and headers["x-api-key"] == SENTINEL_KEY
    assert headers["authorization"] == "Basic " + base64.b64encode(f"alice:{URL_KEY}".encode()).decode()


def test_url_query_is_sent_and_stays_out_of_identity_and_repr() -> None:
    with ScriptedAnthropicServer() as srv:
        model = _model(srv, base_url=f"{srv.base_url}?api-key={URL_KEY}")
        _generate(model, Request(prompt=PROMPT))
        (path,) = srv.request_paths
        other = _model(srv, base_url=f"{srv.base_url}?api-key=another-key-123")
    assert path == f"/v1/messages?api-key={URL_KEY}"
    assert URL_KEY not in model.identity() + repr(model) and model.identity() != other.identity()


# --------------------------------------------------------------------------- extended thinking

EFFORT_LOW = GenerationConfig(max_tokens=1024, temperature=0.0, reasoning_effort="low")


def test_reasoning_effort_turns_thinking_on_with_its_budget() -> None:
    with ScriptedAnthropicServer() as srv:
        gen = _generate(_model(srv), Request(prompt=PROMPT, config=EFFORT_LOW))
        body = srv.requests[0]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": THINKING_BUDGETS["low"]}
    assert body["max_tokens"] == THINKING_BUDGETS["low"] + 1024
    assert json.loads(gen.text) == {"answer": "left"}


def test_thinking_is_kept_apart_from_the_answer() -> None:
    with ScriptedAnthropicServer() as srv:
        gen = _generate(_model(srv), Request(prompt=PROMPT, config=EFFORT_LOW))
    assert gen.reasoning == THINKING_TEXT and THINKING_TEXT not in gen.text


def test_effort_none_sends_thinking_disabled() -> None:
    config = GenerationConfig(reasoning_effort="none")
    with ScriptedAnthropicServer() as srv:
        _generate(_model(srv), Request(prompt=PROMPT, config=config))
        body = srv.requests[0]
    assert (body["thinking"], body["max_tokens"], "output_config" in body) == ({"type": "disabled"}, 1024, False)


def test_fixed_thinking_budget_option_applies_to_every_request() -> None:
    with ScriptedAnthropicServer() as srv:
        model = _model(srv, thinking_budget="4096")
        _generate(model, Request(prompt=PROMPT))
        body = srv.requests[0]
    assert (body["thinking"]["budget_tokens"], body["max_tokens"]) == (4096, 4096 + 1024)
    assert model.identity().endswith("|thinking=4096")


def test_thinking_budget_below_the_apis_minimum_is_refused() -> None:
    with ScriptedAnthropicServer() as srv:
        with pytest.raises(UsageError, match="thinking_budget=512"):
            _model(srv, thinking_budget="512")


def test_with_thinking_a_temperature_other_than_1_is_not_sent_and_recorded() -> None:
    with ScriptedAnthropicServer() as srv:
        model = _model(srv)
        _generate(model, Request(prompt=PROMPT, config=EFFORT_LOW))
        body = srv.requests[0]
    assert "temperature" not in body
    assert sorted(_sampling_adaptations(model)) == ["max_tokens", "temperature"]


def test_with_thinking_a_low_top_p_is_not_sent() -> None:
    config = GenerationConfig(top_p=0.5, reasoning_effort="medium")
    with ScriptedAnthropicServer() as srv:
        _generate(_model(srv), Request(prompt=PROMPT, config=config))
        _generate(_model(srv), Request(prompt=PROMPT, config=GenerationConfig(top_p=0.5)))
        thinking, plain = srv.requests
    assert ("top_p" in thinking, plain.get("top_p")) == (False, 0.5)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"max_tokens": 2048}, "`max_tokens` must be greater than `thinking.budget_tokens`."),
        ({"temperature": 0.0}, "`temperature` may only be set to 1 when thinking is enabled."),
        ({"top_p": 0.5}, "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled."),
        ({"thinking": {"type": "enabled", "budget_tokens": 100}}, "greater than or equal to 1024"),
    ],
)
def test_the_scripted_server_keeps_the_thinking_rules(change: dict, problem: str) -> None:
    body = {
        "model": "m",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "hi"}],
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        **change,
    }
    assert problem in (validate_messages_request(body) or "")


def test_reply_cut_off_while_thinking_says_to_raise_max_tokens() -> None:
    body = {"content": [{"type": "thinking", "thinking": "first", "signature": "s"}], "stop_reason": "max_tokens"}
    with pytest.raises(FatalModelError, match="--max-tokens") as info:
        parse_message(json.dumps(body))
    assert info.value.kind == "empty_response"


def test_concurrent_refusals_drop_the_setting_once(caplog: pytest.LogCaptureFixture) -> None:
    from socialbench.testing.anthropic_served import claude_temperature_deprecated

    request = Request(prompt=PROMPT, config=GenerationConfig(temperature=0.0))
    with ScriptedAnthropicServer(served=claude_temperature_deprecated()) as srv:
        model = _model(srv)

        async def go() -> list[Generation]:
            try:
                return await asyncio.gather(*(model.generate(request) for _ in range(4)))
            finally:
                await model.aclose()

        with caplog.at_level("WARNING", logger="socialbench.models.anthropic_messages"):
            gens = asyncio.run(go())
        answered = [body for body in srv.requests if "temperature" not in body]
    assert (len(gens), len(answered), list(_sampling_adaptations(model))) == (4, 4, ["temperature"])
    assert sum("refused temperature" in r.getMessage() for r in caplog.records) == 1


# --------------------------------------------------------------------------- the current Messages API

EFFORT_XHIGH = GenerationConfig(max_tokens=1024, temperature=None, reasoning_effort="xhigh")


def _answer_all(model: AnthropicModel, *requests: Request) -> list[Generation]:
    async def go() -> list[Generation]:
        try:
            return [await model.generate(r) for r in requests]
        finally:
            await model.aclose()

    return asyncio.run(go())


def test_reasoning_effort_is_sent_as_output_config_effort() -> None:
    with ScriptedAnthropicServer() as srv:
        _generate(_model(srv), Request(prompt=PROMPT, config=GenerationConfig(reasoning_effort="high")))
        body = srv.requests[0]
    assert body["output_config"] == {"effort": "high"}


def test_minimal_effort_is_sent_as_low_and_recorded() -> None:
    with ScriptedAnthropicServer() as srv:
        model = _model(srv)
        _generate(model, Request(prompt=PROMPT, config=GenerationConfig(reasoning_effort="minimal")))
        body = srv.requests[0]
    assert body["output_config"] == {"effort": "low"}
    assert "'low'" in model.adaptations()["reasoning_effort"]


def test_an_adaptive_only_model_is_learnt_once_and_sent_adaptive_thinking() -> None:
    from socialbench.testing.anthropic_served import ENABLED_REFUSED, claude_adaptive_only

    request = Request(prompt=PROMPT, config=EFFORT_LOW)
    with ScriptedAnthropicServer(served=claude_adaptive_only()) as srv:
        model = _model(srv)
        gens = _answer_all(model, request, request, request)
        kinds = [body["thinking"]["type"] for body in srv.requests]
    assert [json.loads(g.text) for g in gens] == [{"answer": "left"}] * 3
    assert kinds == ["enabled", "adaptive", "adaptive", "adaptive"]  # one refusal for the run
    assert model.adaptations()["thinking"].startswith('sent as {"type": "adaptive"}')
    assert ENABLED_REFUSED in model.adaptations()["thinking"]


def test_adaptive_thinking_keeps_the_effort_and_the_answers_room() -> None:
    from socialbench.testing.anthropic_served import claude_adaptive_only

    with ScriptedAnthropicServer(served=claude_adaptive_only()) as srv:
        gen = _generate(_model(srv), Request(prompt=PROMPT, config=EFFORT_LOW))
        last = srv.requests[-1]
    assert (last["thinking"], last["output_config"], last["max_tokens"]) == (
        {"type": "adaptive"},
        {"effort": "low"},
        THINKING_BUDGETS["low"] + 1024,
    )
    assert gen.reasoning == THINKING_TEXT


def test_a_model_that_cannot_turn_thinking_off_is_sent_none_without_thinking() -> None:
    from socialbench.testing.anthropic_served import claude_adaptive_only

    request = Request(prompt=PROMPT, config=GenerationConfig(reasoning_effort="none"))
    with ScriptedAnthropicServer(served=claude_adaptive_only(disables=False)) as srv:
        model = _model(srv)
        _answer_all(model, request, request)
        sent = [body.get("thinking") for body in srv.requests]
    assert sent == [{"type": "disabled"}, None, None]
    assert "cannot turn thinking off" in model.adaptations()["thinking"]


def test_max_tokens_over_the_models_limit_is_capped_from_its_400() -> None:
    from socialbench.testing.anthropic_served import claude_budget_thinking

    request = Request(prompt=PROMPT, config=EFFORT_XHIGH)
    with ScriptedAnthropicServer(served=claude_budget_thinking(max_output_tokens=32_000)) as srv:
        model = _model(srv)
        gens = _answer_all(model, request, request)
        sent = [(body["max_tokens"], body["thinking"].get("budget_tokens")) for body in srv.requests]
    assert len(gens) == 2
    # 32768 + 1024 = 33792 refused once; then the limit, the answer keeping its 1024 tokens
    assert sent[0] == (33_792, 32_768) and sent[-2:] == [(32_000, 30_976), (32_000, 30_976)]
    assert model.adaptations()["max_tokens"].startswith("capped at 32000 (the model's output limit)")


def test_a_refused_effort_is_no_longer_sent() -> None:
    from socialbench.testing.anthropic_served import claude_budget_thinking

    request = Request(prompt=PROMPT, config=EFFORT_LOW)
    with ScriptedAnthropicServer(served=claude_budget_thinking()) as srv:
        model = _model(srv)
        _answer_all(model, request, request)
        sent = ["output_config" in body for body in srv.requests]
    assert sent == [True, False, False]
    assert "output_config.effort not sent" in model.adaptations()["reasoning_effort"]


def test_a_long_request_is_streamed_and_a_short_one_is_not() -> None:
    with ScriptedAnthropicServer() as srv:
        model = _model(srv, timeout_s=120.0)
        short, long = _answer_all(model, Request(prompt=PROMPT), Request(prompt=PROMPT, config=EFFORT_XHIGH))
        streamed = srv.streams
    assert (streamed, model.streamed) == (1, 1)
    assert json.loads(short.text) == json.loads(long.text) == {"answer": "left"}
    assert long.reasoning == THINKING_TEXT and long.finish_reason == "end_turn"


def test_a_streamed_reply_keeps_its_usage() -> None:
    with ScriptedAnthropicServer() as srv:
        gen = _generate(_model(srv, stream="true"), Request(prompt=PROMPT))
    assert (gen.usage.prompt_tokens, gen.usage.completion_tokens) == (len(PROMPT) // 4, len(gen.text) // 4)


def test_a_server_that_ignores_stream_is_still_read() -> None:
    with ScriptedAnthropicServer() as srv:
        srv.push(status(200, body=_message_body({"input_tokens": 5, "output_tokens": 3})))
        gen = _generate(_model(srv, stream="true"), Request(prompt=PROMPT))
    assert json.loads(gen.text) == {"answer": "left"} and gen.usage.completion_tokens == 3


def test_a_generation_longer_than_the_timeout_is_streamed_not_abandoned_and_resent() -> None:
    """A reply generated slowly (0.25 s between events, about 2 s in all) with a 1 s timeout:
    streamed, it is one request, answered; unstreamed, each attempt would be abandoned at the
    timeout (and billed at the real API) and sent again."""
    with ScriptedAnthropicServer(event_gap_s=0.25) as srv:
        model = _model(srv, timeout_s=1.0)

        async def go():  # type: ignore[no-untyped-def]
            engine = Engine(model, concurrency=1, retry=RetryPolicy(max_attempts=3, base_delay_s=0.01, timeout_s=1.0))
            try:
                return await engine.run(Request(prompt=PROMPT, config=EFFORT_XHIGH))
            finally:
                await model.aclose()

        outcome = asyncio.run(go())
        served = srv.count
    assert (outcome.error, outcome.attempts, served) == (None, 1, 1)


def test_a_stream_that_stops_sending_is_a_timeout() -> None:
    with ScriptedAnthropicServer(event_gap_s=1.0) as srv:
        with pytest.raises(RetryableModelError) as info:
            _generate(_model(srv, timeout_s=0.3, stream="true"), Request(prompt=PROMPT))
    assert info.value.kind == "timeout"


def test_json_mode_is_not_sent_and_run_json_says_so() -> None:
    with ScriptedAnthropicServer() as srv:
        model = _model(srv)
        _answer_all(model, Request(prompt=PROMPT), Request(prompt=PROMPT))
        body = srv.requests[0]
    assert "format" not in body.get("output_config", {})
    assert model.adaptations()["json_mode"].startswith("not sent")
    assert model.json_mode_sent() == {"with_output_format": 0, "without_output_format": 2}


def test_a_run_without_json_mode_records_no_json_adaptation() -> None:
    with ScriptedAnthropicServer() as srv:
        model = _model(srv)
        _generate(model, Request(prompt=PROMPT, config=GenerationConfig(json_mode=False)))
    assert "json_mode" not in model.adaptations() and model.json_mode_sent()["without_output_format"] == 0


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"thinking": {"type": "adaptive", "budget_tokens": 2048}}, "thinking.adaptive.budget_tokens: Extra inputs"),
        ({"thinking": {"type": "adaptive"}, "temperature": 0.0}, "`temperature` may only be set to 1"),
        ({"thinking": {"type": "sometimes"}}, "thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'"),
        ({"output_config": {"effort": "minimal"}}, "output_config.effort: Input should be 'low'"),
        ({"output_config": {"format": {"type": "json_object"}}}, "output_config.format.type"),
        ({"output_config": {"format": {"type": "json_schema"}}}, "output_config.format.schema: Field required"),
        ({"output_config": {"verbosity": "low"}}, "output_config.verbosity: Extra inputs are not permitted"),
        ({"stream": "yes"}, "stream: Input should be a valid boolean"),
    ],
)
def test_the_scripted_server_keeps_the_current_rules(change: dict, problem: str) -> None:
    body = {"model": "m", "max_tokens": 4096, "messages": [{"role": "user", "content": "hi"}], **change}
    assert problem in (validate_messages_request(body) or "")


@pytest.mark.parametrize(
    "change",
    [
        {"thinking": {"type": "adaptive"}, "output_config": {"effort": "xhigh"}},
        {"thinking": {"type": "disabled"}, "temperature": 0.0},
        {"output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}},
        {"stream": True},
    ],
)
def test_the_scripted_server_takes_current_requests(change: dict) -> None:
    body = {"model": "m", "max_tokens": 4096, "messages": [{"role": "user", "content": "hi"}], **change}
    assert validate_messages_request(body) is None
