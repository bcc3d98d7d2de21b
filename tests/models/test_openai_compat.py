"""Tests for the OpenAI-compatible backend against the real scripted server on 127.0.0.1."""

from __future__ import annotations

import base64
import gc
import json
import logging
from typing import Any

import pytest

from generate_in_turn import generate_in_turn
from socialbench.errors import UsageError
from socialbench.models import openai_body
from socialbench.models.base import FatalModelError, ModelError, RetryableModelError
from socialbench.models.openai_body import build_messages, encode_chat_body
from socialbench.models.openai_compat import (
    OpenAICompatModel,
    parse_completion,
    parse_retry_after,
    parse_spec,
)
from socialbench.models.openai_factory import create_openai_model
from socialbench.models.registry import ModelOptions, create_model
from socialbench.testing.openai_server import (
    Action,
    ScriptedOpenAIServer,
    empty,
    malformed,
    ok,
    refusal,
    stall,
    status,
)
from socialbench.types import EncodedImage, Generation, GenerationConfig, Request

SENTINEL_KEY = "sk-SENTINEL-do-not-leak-0123456789"
PROMPT = 'Which way?\nPossible answers: "left", "right"\nRespond as {"answer": "<answer>"}'


@pytest.fixture(autouse=True)
def _no_real_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def _model(srv: ScriptedOpenAIServer, timeout_s: float = 5.0, **extra: str) -> OpenAICompatModel:
    opts = ModelOptions(timeout_s=timeout_s, extra=tuple(extra.items()))
    return create_openai_model(f"test-model@{srv.base_url}", opts)


def _generate(model: OpenAICompatModel, *requests: Request) -> list[Generation]:
    return generate_in_turn(model, *requests)


def _error_for(action: Action, timeout_s: float = 5.0) -> ModelError:
    with ScriptedOpenAIServer() as srv:
        srv.push(action)
        with pytest.raises(ModelError) as info:
            _generate(_model(srv, timeout_s=timeout_s), Request(prompt="hi"))
    return info.value


# --------------------------------------------------------------------------- success


def test_success_returns_text_and_usage() -> None:
    with ScriptedOpenAIServer() as srv:
        (gen,) = _generate(_model(srv), Request(prompt=PROMPT))
    assert json.loads(gen.text) == {"answer": "left"}
    assert gen.usage.prompt_tokens >= len(PROMPT) // 4
    assert gen.usage.completion_tokens > 0


def test_request_carries_model_settings_and_json_mode() -> None:
    cfg = GenerationConfig(max_tokens=77, temperature=0.3, json_mode=True, seed=5)
    with ScriptedOpenAIServer() as srv:
        _generate(_model(srv), Request(prompt=PROMPT, system="be brief", config=cfg))
        (body,) = srv.requests
    assert body["model"] == "test-model"
    assert (body["max_tokens"], body["temperature"]) == (77, 0.3)
    assert body["response_format"] == {"type": "json_object"}
    assert body["messages"][0] == {"role": "system", "content": "be brief"}
    assert body["messages"][1]["role"] == "user"


def test_seed_is_sent_only_when_asked() -> None:
    cfg = GenerationConfig(seed=5)
    with ScriptedOpenAIServer() as srv:
        _generate(_model(srv), Request(prompt=PROMPT, config=cfg))
        _generate(_model(srv, send_seed="true"), Request(prompt=PROMPT, config=cfg))
        plain, seeded = srv.requests
    assert ("seed" in plain, seeded.get("seed")) == (False, 5)


def test_unset_settings_are_not_sent() -> None:
    cfg = GenerationConfig(max_tokens=None, temperature=None, top_p=None, reasoning_effort=None)
    with ScriptedOpenAIServer() as srv:
        _generate(_model(srv), Request(prompt=PROMPT, config=cfg))
        (body,) = srv.requests
    assert set(body) == {"model", "messages", "response_format", "stream", "stream_options"}


def test_json_mode_off_sends_no_response_format() -> None:
    with ScriptedOpenAIServer() as srv:
        _generate(_model(srv), Request(prompt=PROMPT, config=GenerationConfig(json_mode=False)))
        (body,) = srv.requests
    assert "response_format" not in body


def test_images_are_sent_as_data_urls_after_the_text() -> None:
    images = (
        EncodedImage(data=b"\x89PNG-fake-bytes", mime="image/png", width=2, height=2),
        EncodedImage(data=b"\xff\xd8jpeg-bytes", mime="image/jpeg", width=3, height=1),
    )
    with ScriptedOpenAIServer() as srv:
        _generate(_model(srv), Request(prompt=PROMPT, images=images))
        # the second request is the images probe (the scripted server reports usage)
        body, _probe = srv.requests
    parts = body["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": PROMPT}
    urls = [p["image_url"]["url"] for p in parts[1:]]
    expected = [f"data:{img.mime};base64,{base64.b64encode(img.data).decode()}" for img in images]
    assert urls == expected


def test_encoded_body_decodes_to_params_and_messages() -> None:
    images = (
        EncodedImage(data=b"\x89PNG-fake-bytes", mime="image/png", width=2, height=2),
        EncodedImage(data=b"\xff\xd8jpeg-bytes", mime="image/jpeg", width=3, height=1),
    )
    request = Request(prompt='Wer geht "links"?\n\u00e9\u2192 \\ end', system="sys \u00fc", images=images + images[:1])
    params = {"model": "m/\u00e4", "temperature": 0.0, "max_tokens": 5, "response_format": {"type": "json_object"}}
    body = encode_chat_body(request, params)
    assert json.loads(body.decode("utf-8")) == {**params, "messages": build_messages(request)}


def test_encoded_body_with_an_unusual_mime_type_is_valid_json() -> None:
    image = EncodedImage(data=b"bytes", mime='image/x"odd\\type', width=1, height=1)
    request = Request(prompt="p", images=(image,))
    assert json.loads(encode_chat_body(request, {})) == {"messages": build_messages(request)}


def test_an_images_part_is_encoded_once_for_all_its_questions(monkeypatch: pytest.MonkeyPatch) -> None:
    image = EncodedImage(data=b"\xff\xd8shared-jpeg", mime="image/jpeg", width=2, height=2)
    calls: list[bytes] = []
    real_b64encode = base64.b64encode

    def counting_b64encode(data: bytes) -> bytes:
        calls.append(data)
        return real_b64encode(data)

    monkeypatch.setattr(openai_body.base64, "b64encode", counting_b64encode)
    bodies = [encode_chat_body(Request(prompt=f"question {i}", images=(image,)), {}) for i in range(3)]
    assert calls == [image.data]
    assert len({json.loads(b)["messages"][0]["content"][1]["image_url"]["url"] for b in bodies}) == 1


def test_an_images_encoded_part_is_released_with_the_image() -> None:
    gc.collect()  # images left unreachable by earlier tests go now, not inside the count below
    image = EncodedImage(data=b"\xff\xd8short-lived", mime="image/jpeg", width=2, height=2)
    encode_chat_body(Request(prompt="p", images=(image,)), {})
    assert image in openai_body._IMAGE_PARTS
    before = len(openai_body._IMAGE_PARTS)
    del image
    gc.collect()
    assert len(openai_body._IMAGE_PARTS) == before - 1


def test_encoded_body_without_images_or_params_is_valid_json() -> None:
    request = Request(prompt="plain text")
    assert json.loads(encode_chat_body(request, {})) == {"messages": build_messages(request)}


def test_request_is_sent_as_json_content() -> None:
    with ScriptedOpenAIServer() as srv:
        _generate(_model(srv), Request(prompt=PROMPT))
        (headers,) = srv.request_headers
    assert headers["content-type"] == "application/json"


def test_local_server_without_key_sends_placeholder() -> None:
    with ScriptedOpenAIServer() as srv:
        _generate(_model(srv), Request(prompt=PROMPT))
        (headers,) = srv.request_headers
    assert headers["authorization"] == "Bearer EMPTY"


def test_api_key_env_option_selects_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_LOCAL_KEY", "local-secret")
    with ScriptedOpenAIServer() as srv:
        _generate(_model(srv, api_key_env="MY_LOCAL_KEY"), Request(prompt=PROMPT))
        (headers,) = srv.request_headers
    assert headers["authorization"] == "Bearer local-secret"


# --------------------------------------------------------------------------- error mapping


def test_429_maps_to_rate_limit_with_retry_after() -> None:
    err = _error_for(status(429, headers={"Retry-After": "3"}))
    assert isinstance(err, RetryableModelError)
    assert (err.kind, err.retry_after) == ("rate_limit", 3.0)


def test_429_retry_after_ms_header_is_used() -> None:
    err = _error_for(status(429, headers={"retry-after-ms": "1500"}))
    assert (err.kind, err.retry_after) == ("rate_limit", 1.5)


def test_500_maps_to_server_error() -> None:
    err = _error_for(status(500))
    assert isinstance(err, RetryableModelError) and err.kind == "server_error"


def test_529_maps_to_overloaded() -> None:
    err = _error_for(status(529))
    assert isinstance(err, RetryableModelError) and err.kind == "overloaded"


def test_503_saying_overloaded_maps_to_overloaded() -> None:
    err = _error_for(status(503, body={"error": {"message": "Engine is overloaded"}}))
    assert err.kind == "overloaded"


def test_stall_past_timeout_maps_to_timeout() -> None:
    err = _error_for(stall(3.0), timeout_s=0.3)
    assert isinstance(err, RetryableModelError) and err.kind == "timeout"


def test_connection_refused_maps_to_connection() -> None:
    with ScriptedOpenAIServer() as srv:
        model = _model(srv)
    with pytest.raises(RetryableModelError) as info:  # the server is gone now
        _generate(model, Request(prompt="hi"))
    assert info.value.kind == "connection"


def test_connection_refused_names_the_url_without_its_credentials() -> None:
    with ScriptedOpenAIServer() as srv:
        host = srv.base_url.split("//", 1)[1]
        model = create_openai_model(f"test-model@http://bob:hunter2@{host}?api-key=s3cret", ModelOptions())
    with pytest.raises(RetryableModelError) as info:  # the server is gone now
        _generate(model, Request(prompt="hi"))
    message = info.value.message
    assert f"cannot connect to http://{host}/chat/completions" in message
    assert "hunter2" not in message and "s3cret" not in message


def test_body_that_is_not_utf8_maps_to_malformed_response() -> None:
    with pytest.raises(RetryableModelError) as info:
        parse_completion(b'{"choices": [{"message": {"content": "\xff"}}]}')
    assert info.value.kind == "malformed_response"


def test_malformed_body_maps_to_malformed_response() -> None:
    err = _error_for(malformed())
    assert isinstance(err, RetryableModelError) and err.kind == "malformed_response"


def test_refusal_maps_to_refusal() -> None:
    err = _error_for(refusal("I can't help with that."))
    assert isinstance(err, FatalModelError) and err.kind == "refusal"
    assert "can't help" in err.message


def test_empty_content_maps_to_empty_response() -> None:
    err = _error_for(empty())
    assert isinstance(err, FatalModelError) and err.kind == "empty_response"


def test_400_maps_to_bad_request() -> None:
    err = _error_for(status(400, body={"error": {"message": "prompt too long"}}))
    assert isinstance(err, FatalModelError) and err.kind == "bad_request"
    assert "prompt too long" in err.message


def test_401_maps_to_auth() -> None:
    err = _error_for(status(401))
    assert isinstance(err, FatalModelError) and err.kind == "auth"


def test_403_maps_to_auth() -> None:
    assert _error_for(status(403)).kind == "auth"


def test_404_maps_to_not_found() -> None:
    err = _error_for(status(404))
    assert isinstance(err, FatalModelError) and err.kind == "not_found"


def test_scripted_text_is_returned_verbatim() -> None:
    with ScriptedOpenAIServer() as srv:
        srv.push(ok("plain words"))
        (gen,) = _generate(_model(srv), Request(prompt=PROMPT))
    assert gen.text == "plain words"


# --------------------------------------------------------------------------- response_format fallback


def test_response_format_rejection_falls_back_once(caplog: pytest.LogCaptureFixture) -> None:
    with ScriptedOpenAIServer(reject_response_format=True) as srv:
        model = _model(srv)
        with caplog.at_level(logging.INFO, logger="socialbench.models.openai_compat"):
            first, second = _generate(model, Request(prompt=PROMPT), Request(prompt=PROMPT))
        sent = ["response_format" in body for body in srv.requests]
    assert json.loads(first.text) == json.loads(second.text) == {"answer": "left"}
    assert sent == [True, False, False]
    assert "response_format" in model.adaptations()
    assert sum("response_format" in r.getMessage() for r in caplog.records) == 1


def test_plain_400_with_json_mode_is_not_a_fallback() -> None:
    with ScriptedOpenAIServer() as srv:
        srv.push(status(400, body={"error": {"message": "image too large"}}))
        model = _model(srv)
        with pytest.raises(FatalModelError):
            _generate(model, Request(prompt=PROMPT))
        assert srv.count == 1
    assert "response_format" not in model.adaptations()


# --------------------------------------------------------------------------- spec, key, identity


def test_missing_api_key_without_base_url_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        create_openai_model("gpt-4o", ModelOptions())


@pytest.mark.parametrize(
    ("rest", "expected"),
    [
        (
            "Qwen/Qwen2.5-VL-7B-Instruct@http://localhost:8000/v1",
            ("Qwen/Qwen2.5-VL-7B-Instruct", "http://localhost:8000/v1"),
        ),
        ("gpt-4o", ("gpt-4o", None)),
        ("llama3.2-vision:11b@http://127.0.0.1:11434/v1", ("llama3.2-vision:11b", "http://127.0.0.1:11434/v1")),
        ("org/name@v2@https://host.example/v1", ("org/name@v2", "https://host.example/v1")),
    ],
)
def test_parse_spec(rest: str, expected: tuple[str, Any]) -> None:
    assert parse_spec(rest) == expected


def test_empty_model_name_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="no model name"):
        parse_spec("@http://localhost:8000/v1")


def test_registry_builds_the_model_from_a_spec() -> None:
    model = create_model("openai:llama3.2-vision:11b@http://127.0.0.1:11434/v1")
    assert isinstance(model, OpenAICompatModel)
    assert (model.model, model.base_url) == ("llama3.2-vision:11b", "http://127.0.0.1:11434/v1")
    assert model.spec == "openai:llama3.2-vision:11b@http://127.0.0.1:11434/v1"
    assert (model.cacheable, model.needs_prompt) == (True, True)


def test_identity_names_model_and_endpoint() -> None:
    local = create_openai_model("Qwen/Qwen2.5-VL-7B-Instruct@http://localhost:8000/v1", ModelOptions())
    assert local.identity() == "openai|Qwen/Qwen2.5-VL-7B-Instruct|http://localhost:8000/v1"


def test_identity_uses_default_without_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL_KEY)
    assert create_openai_model("gpt-4o", ModelOptions()).identity() == "openai|gpt-4o|default"


def test_key_never_in_identity_repr_or_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL_KEY)
    for rest in ("gpt-4o", "m@http://localhost:8000/v1"):
        model = create_openai_model(rest, ModelOptions())
        for text in (model.identity(), repr(model), str(model), model.spec):
            assert SENTINEL_KEY not in text


def test_key_echoed_by_server_is_redacted_from_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL_KEY)
    body = {"error": {"message": f"Incorrect API key provided: {SENTINEL_KEY}"}}
    err = _error_for(status(401, body=body))
    assert err.kind == "auth"
    assert SENTINEL_KEY not in str(err) and SENTINEL_KEY not in err.message


def test_parse_retry_after_reads_http_dates() -> None:
    headers = {"Retry-After": "Wed, 21 Oct 2015 07:28:10 GMT"}
    now = 1445412480.0  # 2015-10-21 07:28:00 UTC
    assert parse_retry_after(headers, now=now) == pytest.approx(10.0)


def test_parse_retry_after_without_header_is_none() -> None:
    assert parse_retry_after({"content-type": "application/json"}) is None


def test_credentials_in_the_base_url_stay_out_of_spec_and_identity() -> None:
    from socialbench.models.openai_compat import OpenAICompatModel

    m = OpenAICompatModel("m", "https://user:s3cret@example.org:8443/v1?api-key=s3cret")
    assert "s3cret" not in m.spec and "s3cret" not in m.identity()
    assert m.spec == "openai:m@https://example.org:8443/v1"


# --------------------------------------------------------------------------- URL credentials and usage

URL_PASSWORD = "pa:ss@word-SECRET"  # ':' and '@' percent-encoded in the URL below
URL_KEY = "query-key-SECRET-42"


def _with_userinfo(base_url: str) -> str:
    return base_url.replace("http://", "http://alice:pa%3Ass%40word-SECRET@", 1)


def _completion_body(usage: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": '{"answer": "left"}'}, "finish_reason": "stop"}
        ],
        "usage": usage,
    }


def test_url_user_info_is_sent_as_http_basic_auth() -> None:
    with ScriptedOpenAIServer() as srv:
        model = create_openai_model(f"test-model@{_with_userinfo(srv.base_url)}", ModelOptions(timeout_s=5))
        (gen,) = _generate(model, Request(prompt=PROMPT))
        (headers,) = srv.request_headers
    expected = base64.b64encode(f"alice:{URL_PASSWORD}".encode()).decode()
    assert json.loads(gen.text) == {"answer": "left"}
    assert headers["authorization"] == f"Basic {expected}"


def test_url_query_is_sent_with_every_request() -> None:
    with ScriptedOpenAIServer() as srv:
        model = create_openai_model(
            f"test-model@{srv.base_url}?api-version=2024-06-01&api-key={URL_KEY}", ModelOptions(timeout_s=5)
        )
        _generate(model, Request(prompt=PROMPT), Request(prompt=PROMPT + " again"))
        paths = srv.request_paths
    assert paths == [f"/v1/chat/completions?api-version=2024-06-01&api-key={URL_KEY}"] * 2


def test_identity_differs_when_only_the_url_query_differs() -> None:
    a = OpenAICompatModel("m", f"http://localhost:8000/v1?api-key={URL_KEY}")
    b = OpenAICompatModel("m", "http://localhost:8000/v1?api-key=another-key-123")
    assert a.identity() != b.identity()
    assert URL_KEY not in a.identity()


def test_url_credentials_stay_out_of_repr() -> None:
    model = OpenAICompatModel("m", f"http://alice:{URL_KEY}@localhost:8000/v1?api-key={URL_KEY}")
    assert URL_KEY not in repr(model)


def test_url_secret_echoed_by_server_is_redacted_from_errors() -> None:
    with ScriptedOpenAIServer() as srv:
        srv.push(status(401, body={"error": {"message": f"api-key {URL_KEY} is not valid here"}}))
        model = create_openai_model(f"test-model@{srv.base_url}?api-key={URL_KEY}", ModelOptions(timeout_s=5))
        with pytest.raises(ModelError) as info:
            _generate(model, Request(prompt=PROMPT))
    assert info.value.kind == "auth" and URL_KEY not in str(info.value)


def test_spec_error_does_not_echo_url_credentials() -> None:
    with pytest.raises(UsageError) as info:
        parse_spec(f"@http://alice:{URL_KEY}@localhost:8000/v1")
    assert URL_KEY not in str(info.value)


def test_non_numeric_usage_keeps_the_answer() -> None:
    with ScriptedOpenAIServer() as srv:
        srv.push(status(200, body=_completion_body({"prompt_tokens": "n/a", "completion_tokens": 7})))
        (gen,) = _generate(_model(srv), Request(prompt=PROMPT))
    assert json.loads(gen.text) == {"answer": "left"}
    assert (gen.usage.prompt_tokens, gen.usage.completion_tokens) == (0, 7)


@pytest.mark.parametrize(
    "usage", [{"prompt_tokens": None, "completion_tokens": -4}, {"prompt_tokens": 1.5}, "n/a", [3]]
)
def test_odd_usage_shapes_count_as_unknown(usage: Any) -> None:
    gen = parse_completion(json.dumps(_completion_body(usage)))
    assert (gen.text, gen.usage.prompt_tokens, gen.usage.completion_tokens) == ('{"answer": "left"}', 0, 0)
