"""Tests for the scripted OpenAI-compatible server (real HTTP on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import selectors
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from typing import Any

import httpx
import pytest

from socialbench.testing.openai_server import (
    ScriptedOpenAIServer,
    elide_inline_images,
    gemini_model,
    ok,
    openai_reasoning_model,
    status,
    wait_until,
)

SINGLE_PROMPT = (
    "Is the person moving toward the robot?\n"
    'Possible answers: "moving toward", "moving away", "not moving"\n'
    'Respond in JSON: {"answer": "<answer>"}'
)


def _chat(text: str) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text}]}


def _post(base_url: str, body: dict[str, Any], timeout: float = 5.0) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(
        base_url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def _content(response: dict[str, Any]) -> Any:
    return json.loads(response["choices"][0]["message"]["content"])


def test_completion_has_wire_format_fields_and_usage() -> None:
    with ScriptedOpenAIServer() as srv:
        code, resp = _post(srv.base_url, _chat(SINGLE_PROMPT))
    assert code == 200
    assert resp["id"].startswith("chatcmpl-")
    assert resp["model"] == "m"
    assert resp["choices"][0]["finish_reason"] == "stop"
    assert _content(resp) == {"answer": "moving toward"}
    usage = resp["usage"]
    assert usage["prompt_tokens"] >= len(SINGLE_PROMPT) // 4
    assert usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_script_is_consumed_in_order_then_responder_is_used() -> None:
    with ScriptedOpenAIServer(responder=lambda body: "fallback") as srv:
        srv.push(status(503), ok("scripted"))
        codes_texts = []
        for _ in range(3):
            code, resp = _post(srv.base_url, _chat("hi"))
            codes_texts.append((code, resp["choices"][0]["message"]["content"] if code == 200 else None))
        assert srv.count == 3
    assert codes_texts == [(503, None), (200, "scripted"), (200, "fallback")]


def test_status_action_sends_headers() -> None:
    with ScriptedOpenAIServer() as srv:
        srv.push(status(429, headers={"Retry-After": "7"}))
        with httpx.Client() as client:
            resp = client.post(srv.base_url + "/chat/completions", json=_chat("hi"))
    assert (resp.status_code, resp.headers["retry-after"]) == (429, "7")
    assert resp.json()["error"]["type"] == "rate_limit_error"


def test_requests_are_recorded() -> None:
    with ScriptedOpenAIServer() as srv:
        _post(srv.base_url, {**_chat("first"), "temperature": 0.5})
        _post(srv.base_url, _chat("second"))
        recorded = srv.requests
    assert [r["messages"][0]["content"] for r in recorded] == ["first", "second"]
    assert recorded[0]["temperature"] == 0.5


def test_reject_response_format_answers_400() -> None:
    with ScriptedOpenAIServer(reject_response_format=True) as srv:
        code, resp = _post(srv.base_url, {**_chat("hi"), "response_format": {"type": "json_object"}})
        plain_code, _ = _post(srv.base_url, _chat("hi"))
    assert code == 400
    assert resp["error"]["param"] == "response_format"
    assert plain_code == 200


def test_models_endpoint_lists_the_model() -> None:
    with ScriptedOpenAIServer(model_name="served-model") as srv:
        with urllib.request.urlopen(srv.base_url + "/models", timeout=5) as resp:
            data = json.loads(resp.read())
    assert [m["id"] for m in data["data"]] == ["served-model"]


async def _concurrent_posts(base_url: str, n: int) -> list[int]:
    async with httpx.AsyncClient(timeout=10) as client:
        responses = await asyncio.gather(
            *(client.post(base_url + "/chat/completions", json=_chat(f"q{i}")) for i in range(n))
        )
    return [r.status_code for r in responses]


def _posts_in_background(base_url: str, n: int) -> concurrent.futures.Future[list[int]]:
    """Start ``n`` concurrent posts on a worker thread; the future gives their status codes."""
    pool = concurrent.futures.ThreadPoolExecutor(1)
    future = pool.submit(asyncio.run, _concurrent_posts(base_url, n))
    pool.shutdown(wait=False)
    return future


def test_max_in_flight_reflects_concurrency() -> None:
    with ScriptedOpenAIServer() as srv:
        srv.hold()
        posts = _posts_in_background(srv.base_url, 8)
        wait_until(lambda: srv.count == 8, "8 requests are received")
        srv.release()
        codes = posts.result(timeout=60)
        peak = srv.max_in_flight
    assert codes == [200] * 8
    assert peak == 8


def test_sequential_requests_never_overlap() -> None:
    with ScriptedOpenAIServer(delay_s=0.02) as srv:
        for _ in range(3):
            _post(srv.base_url, _chat("hi"))
        assert srv.max_in_flight == 1


def test_max_concurrency_queues_extra_requests() -> None:
    with ScriptedOpenAIServer(max_concurrency=2) as srv:
        srv.hold()
        posts = _posts_in_background(srv.base_url, 6)
        wait_until(lambda: srv.count == 6, "6 requests are received")
        answering, waiting = srv.busy, srv.in_flight
        srv.release()
        codes = posts.result(timeout=60)
    assert (answering, waiting) == (2, 6)  # 2 hold the slots, 4 queue behind them
    assert codes == [200] * 6


def test_max_concurrency_reject_answers_429() -> None:
    with ScriptedOpenAIServer(max_concurrency=2, overflow="reject") as srv:
        srv.hold()
        posts = _posts_in_background(srv.base_url, 6)
        wait_until(lambda: srv.count == 6 and srv.in_flight == 2, "4 of 6 requests are refused")
        srv.release()
        codes = posts.result(timeout=60)
    assert sorted(codes) == [200, 200, 429, 429, 429, 429]


def test_exit_closes_port_and_thread() -> None:
    before = {t.ident for t in threading.enumerate()}
    with ScriptedOpenAIServer() as srv:
        srv.push(ok("x"))
        port = srv.port
        _post(srv.base_url, _chat("hi"))
    leaked = [t for t in threading.enumerate() if t.ident not in before]
    assert leaked == []
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def _read_ready_line(proc: subprocess.Popen[str], timeout: float) -> str:
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    try:
        if not sel.select(timeout):
            return ""
        return proc.stdout.readline().strip()
    finally:
        sel.close()


def test_server_without_keep_requests_counts_but_keeps_no_bodies() -> None:
    with ScriptedOpenAIServer(keep_requests=False) as srv:
        for _ in range(2):
            assert _post(srv.base_url, _chat(SINGLE_PROMPT))[0] == 200
        assert (srv.count, srv.requests, srv.request_headers) == (2, [], [])


def test_inline_images_are_elided_to_their_data_url_prefix() -> None:
    text = 'say "data:x;base64,abc" and a;base64,b'
    body = json.dumps(
        {"content": [{"type": "text", "text": text}, {"url": "data:image/png;base64,iVBO+/w=="}, {"url": "x"}]}
    ).encode()
    assert json.loads(elide_inline_images(body)) == {
        "content": [{"type": "text", "text": text}, {"url": "data:image/png;base64,"}, {"url": "x"}]
    }


def test_server_without_keep_requests_answers_requests_with_images_as_without() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64," + "QUJD" * 1000}}
    with_image = {
        "model": "m",
        "messages": [{"role": "user", "content": [{"type": "text", "text": SINGLE_PROMPT}, image]}],
    }
    with ScriptedOpenAIServer(keep_requests=False) as lean, ScriptedOpenAIServer() as whole:
        lean_reply = _post(lean.base_url, with_image)
        whole_reply = _post(whole.base_url, with_image)
    assert lean_reply[0] == whole_reply[0] == 200
    assert lean_reply[1]["choices"][0]["message"] == whole_reply[1]["choices"][0]["message"]
    assert lean_reply[1]["usage"] == whole_reply[1]["usage"]


def test_subprocess_mode_prints_ready_and_answers() -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "socialbench.testing.openai_server",
            "--port",
            "0",
            "--delay-ms",
            "50",
            "--max-concurrency",
            "4",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = _read_ready_line(proc, timeout=20)
        assert line.startswith("READY http://127.0.0.1:")
        base_url = line.split(" ", 1)[1]
        assert base_url.endswith("/v1")
        code, resp = _post(base_url, _chat(SINGLE_PROMPT))
        assert (code, _content(resp)) == (200, {"answer": "moving toward"})
        with urllib.request.urlopen(base_url.removesuffix("/v1") + "/stats", timeout=5) as r:
            assert json.loads(r.read())["count"] == 1
    finally:
        proc.kill()
        proc.communicate(timeout=10)


# --------------------------------------------------------------------------- served models


def test_reasoning_model_refuses_max_tokens_with_openais_body() -> None:
    with ScriptedOpenAIServer(served=openai_reasoning_model()) as srv:
        code, resp = _post(srv.base_url, {**_chat(SINGLE_PROMPT), "max_tokens": 10})
    assert code == 400
    assert resp == {
        "error": {
            "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            "type": "invalid_request_error",
            "param": "max_tokens",
            "code": "unsupported_parameter",
        }
    }


def test_reasoning_model_refuses_temperature_0_but_takes_1() -> None:
    with ScriptedOpenAIServer(served=openai_reasoning_model()) as srv:
        refused = _post(srv.base_url, {**_chat(SINGLE_PROMPT), "temperature": 0})
        taken = _post(srv.base_url, {**_chat(SINGLE_PROMPT), "temperature": 1})
    assert (refused[0], refused[1]["error"]["code"], taken[0]) == (400, "unsupported_value", 200)


def test_reasoning_model_reports_reasoning_tokens() -> None:
    with ScriptedOpenAIServer(served=openai_reasoning_model(reasoning_tokens=12)) as srv:
        _, resp = _post(srv.base_url, {**_chat(SINGLE_PROMPT), "max_completion_tokens": 100})
    assert resp["usage"]["completion_tokens_details"]["reasoning_tokens"] == 12


def test_gemini_model_answers_an_unknown_field_with_a_list() -> None:
    with ScriptedOpenAIServer(served=gemini_model(["seed"])) as srv:
        code, resp = _post(srv.base_url, {**_chat(SINGLE_PROMPT), "seed": 1})
    assert code == 400 and isinstance(resp, list)
    assert resp[0]["error"]["status"] == "INVALID_ARGUMENT" and 'Unknown name "seed"' in resp[0]["error"]["message"]


def test_subprocess_mode_serves_a_reasoning_model() -> None:
    argv = [sys.executable, "-m", "socialbench.testing.openai_server", "--port", "0", "--served", "openai-reasoning"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        base_url = _read_ready_line(proc, timeout=20).split(" ", 1)[1]
        code, resp = _post(base_url, {**_chat(SINGLE_PROMPT), "max_tokens": 10})
    finally:
        proc.kill()
        proc.communicate(timeout=10)
    assert (code, resp["error"]["param"]) == (400, "max_tokens")


def test_the_subprocess_options_describe_a_failing_backend():
    from socialbench.testing.openai_server import _parse_args, _served

    served = _served(_parse_args(["--fail-with", "429", "--fail-header", "Retry-After: 1"]))
    assert served is not None and served.always is not None
    assert (served.always.code, dict(served.always.headers)) == (429, {"Retry-After": "1"})


def test_a_failing_backend_answers_every_request_with_its_status():
    import urllib.error
    import urllib.request

    from socialbench.testing.openai_server import ScriptedOpenAIServer, failing_model, status

    with ScriptedOpenAIServer(served=failing_model(status(500))) as srv:
        codes = []
        for _ in range(2):
            req = urllib.request.Request(srv.base_url + "/chat/completions", data=b'{"messages": []}', method="POST")
            try:
                urllib.request.urlopen(req, timeout=10)
            except urllib.error.HTTPError as exc:
                codes.append(exc.code)
    assert codes == [500, 500]
