"""Tests for the scripted Anthropic Messages API server (real HTTP on 127.0.0.1)."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from typing import Any

import httpx
import pytest

from socialbench.testing.anthropic_served import claude_sampling_exclusive, claude_temperature_deprecated
from socialbench.testing.anthropic_server import ScriptedAnthropicServer, refusal, stall, status
from socialbench.testing.anthropic_validation import validate_messages_request

PROMPT = 'Which way?\nPossible answers: "left", "right"\nRespond as {"answer": "<answer>"}'
HEADERS = {"x-api-key": "test-key", "anthropic-version": "2023-06-01"}
PNG_B64 = base64.b64encode(b"\x89PNG\r\n\x1a\n fake").decode()


def _body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": PROMPT}]}
    body.update(overrides)
    return body


def _post(srv: ScriptedAnthropicServer, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(
        srv.base_url + "/v1/messages",
        content=json.dumps(body).encode(),
        headers={"content-type": "application/json", **(HEADERS if headers is None else headers)},
        timeout=5.0,
    )


def test_success_answers_first_option_in_messages_format() -> None:
    with ScriptedAnthropicServer() as srv:
        resp = _post(srv, _body())
    data = resp.json()
    assert resp.status_code == 200
    assert data["type"] == "message" and data["role"] == "assistant" and data["stop_reason"] == "end_turn"
    assert json.loads(data["content"][0]["text"]) == {"answer": "left"}
    assert data["usage"]["input_tokens"] > 0 and data["usage"]["output_tokens"] > 0


def test_image_blocks_count_towards_input_tokens() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}
    with_image = _body(messages=[{"role": "user", "content": [{"type": "text", "text": PROMPT}, image]}])
    with ScriptedAnthropicServer() as srv:
        plain = _post(srv, _body()).json()["usage"]["input_tokens"]
        pictured = _post(srv, with_image).json()["usage"]["input_tokens"]
    assert pictured > plain


def test_rate_limit_carries_retry_after_and_error_shape() -> None:
    with ScriptedAnthropicServer() as srv:
        srv.push(status(429, headers={"retry-after": "7"}))
        resp = _post(srv, _body())
    assert resp.status_code == 429
    assert resp.headers["retry-after"] == "7"
    assert resp.json()["type"] == "error" and resp.json()["error"]["type"] == "rate_limit_error"


def test_529_is_overloaded_error() -> None:
    with ScriptedAnthropicServer() as srv:
        srv.push(status(529))
        resp = _post(srv, _body())
    assert (resp.status_code, resp.json()["error"]["type"]) == (529, "overloaded_error")


def test_a_temperature_deprecated_model_refuses_temperature_in_the_apis_body() -> None:
    with ScriptedAnthropicServer(served=claude_temperature_deprecated()) as srv:
        refused = _post(srv, _body(temperature=0.0))
        default = _post(srv, _body(temperature=1))
    error = refused.json()
    assert (refused.status_code, error["type"], error["error"]["type"]) == (400, "error", "invalid_request_error")
    assert error["error"]["message"] == "`temperature` is deprecated for this model."
    assert default.status_code == 200


def test_a_sampling_exclusive_model_refuses_temperature_with_top_p_only() -> None:
    with ScriptedAnthropicServer(served=claude_sampling_exclusive()) as srv:
        both = _post(srv, _body(temperature=0.0, top_p=0.9))
        alone = _post(srv, _body(temperature=0.0))
    assert (both.status_code, alone.status_code) == (400, 200)
    assert both.json()["error"]["message"] == (
        "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
    )


def test_refusal_action_sets_stop_reason_refusal() -> None:
    with ScriptedAnthropicServer() as srv:
        srv.push(refusal())
        data = _post(srv, _body()).json()
    assert data["stop_reason"] == "refusal" and data["content"] == []


def test_missing_api_key_is_401() -> None:
    with ScriptedAnthropicServer() as srv:
        resp = _post(srv, _body(), headers={"anthropic-version": "2023-06-01"})
    assert (resp.status_code, resp.json()["error"]["type"]) == (401, "authentication_error")


def test_wrong_api_key_is_401_when_a_key_is_set() -> None:
    with ScriptedAnthropicServer(api_key="right-key") as srv:
        wrong = _post(srv, _body())
        right = _post(srv, _body(), headers={**HEADERS, "x-api-key": "right-key"})
    assert (wrong.status_code, right.status_code) == (401, 200)


def test_bearer_token_is_accepted_as_the_key() -> None:
    with ScriptedAnthropicServer(api_key="right-key") as srv:
        resp = _post(srv, _body(), headers={"authorization": "Bearer right-key", "anthropic-version": "2023-06-01"})
    assert resp.status_code == 200


def test_missing_version_header_is_400() -> None:
    with ScriptedAnthropicServer() as srv:
        resp = _post(srv, _body(), headers={"x-api-key": "k"})
    assert resp.status_code == 400 and "anthropic-version" in resp.json()["error"]["message"]


def test_invalid_body_is_400_naming_the_field() -> None:
    with ScriptedAnthropicServer() as srv:
        resp = _post(srv, _body(max_tokens=0))
    assert resp.status_code == 400
    assert resp.json()["error"] == {"type": "invalid_request_error", "message": "max_tokens: must be an integer >= 1"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}, "model"),
        (_body(messages=[]), "messages"),
        (_body(messages=[{"role": "assistant", "content": "x"}]), "messages.0.role"),
        (_body(system=[{"type": "image"}]), "system.0"),
        (
            _body(
                messages=[
                    {
                        "role": "user",
                        "content": [
                            {"type": "image", "source": {"type": "base64", "media_type": "image/bmp", "data": PNG_B64}}
                        ],
                    }
                ]
            ),
            "messages.0.content.0.source.media_type",
        ),
        (
            _body(
                messages=[
                    {
                        "role": "user",
                        "content": [
                            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "%%%"}}
                        ],
                    }
                ]
            ),
            "messages.0.content.0.source.data",
        ),
    ],
)
def test_validation_names_the_bad_field(body: dict[str, Any], field: str) -> None:
    problem = validate_messages_request(body)
    assert problem is not None and problem.split(":")[0] == field


def test_stall_delays_the_answer_and_records_the_request() -> None:
    with ScriptedAnthropicServer() as srv:
        srv.push(stall(0.2, text="late"))
        resp = _post(srv, _body(system="be brief"))
        recorded = srv.requests
    assert resp.json()["content"][0]["text"] == "late"
    assert recorded[0]["system"] == "be brief"
    assert resp.elapsed.total_seconds() >= 0.2


def test_subprocess_mode_prints_ready_and_serves() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "socialbench.testing.anthropic_server", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line.startswith("READY http://127.0.0.1:")
        url = line.split(" ", 1)[1]
        resp = httpx.post(url + "/v1/messages", json=_body(), headers=HEADERS, timeout=5.0)
        assert json.loads(resp.json()["content"][0]["text"]) == {"answer": "left"}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_subprocess_served_option_refuses_temperature() -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "socialbench.testing.anthropic_server",
            "--port",
            "0",
            "--served",
            "claude-temperature-deprecated",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip().split(" ", 1)[1]
        resp = httpx.post(url + "/v1/messages", json=_body(temperature=0.0), headers=HEADERS, timeout=5.0)
        assert (resp.status_code, resp.json()["error"]["message"]) == (
            400,
            "`temperature` is deprecated for this model.",
        )
    finally:
        proc.terminate()
        proc.wait(timeout=10)
