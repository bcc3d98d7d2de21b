"""A scripted, local OpenAI-compatible chat-completions server for tests and benchmarks.

A real ``aiohttp.web`` server on ``127.0.0.1``: ``POST /v1/chat/completions``,
``GET /v1/models`` and ``GET /stats`` (request counters). In-process,
:class:`ScriptedOpenAIServer` runs its own event loop in a background thread; each request
consumes one scripted :class:`Action` (:func:`ok`, :func:`status`, :func:`stall`, ...) queued
with ``push``, else the responder answers (default:
:func:`~socialbench.testing.responders.first_option_responder`). As a subprocess,
``python -m socialbench.testing.openai_server --port 0 --delay-ms 200`` prints
``READY http://127.0.0.1:PORT/v1`` and serves until killed, counting requests without
keeping their bodies (docs/models.md, "Dry runs against local scripted servers").
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from aiohttp import web

from socialbench.testing.responders import Responder, first_option_responder, get_responder, message_text

ActionKind = Literal["ok", "status", "stall", "malformed", "refusal", "empty", "truncated", "thinking_out"]
Overflow = Literal["queue", "reject"]

DEFAULT_MODEL_NAME = "scripted-model"
_IMAGE_TOKEN_ESTIMATE = 85  # a flat per-image cost, like a low-detail OpenAI image


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class Action:
    """One scripted reply. Build it with :func:`ok`, :func:`status`, :func:`stall`, ..."""

    kind: ActionKind
    text: str | None = None  # reply content (ok / stall), refusal text, or raw body (malformed)
    code: int = 200
    body: Any = None  # status(): JSON-able value or str; None means a standard error body
    headers: Mapping[str, str] = field(default_factory=dict)
    seconds: float = 0.0  # stall(): how long to sleep before answering


def ok(text: str) -> Action:
    """Answer 200 with ``text`` as the message content."""
    return Action("ok", text=text)


def truncated(text: str) -> Action:
    """Answer 200 with ``text`` cut off at the token limit (``finish_reason: "length"``)."""
    return Action("truncated", text=text)


def status(code: int, body: Any = None, headers: Mapping[str, str] | None = None) -> Action:
    """Answer with HTTP ``code``; ``body`` defaults to an OpenAI-style error object."""
    return Action("status", code=code, body=body, headers=dict(headers or {}))


def stall(seconds: float, text: str | None = None) -> Action:
    """Sleep ``seconds`` and then answer normally (``text``, or the responder's answer)."""
    return Action("stall", text=text, seconds=seconds)


def malformed(body: str = "<html>upstream gateway hiccup: this is not JSON") -> Action:
    """Answer 200 with a body that is not JSON (content type still ``application/json``)."""
    return Action("malformed", text=body)


def refusal(message: str = "I'm sorry, but I can't help with that.") -> Action:
    """Answer 200 with ``message.refusal`` set, content null, finish_reason content_filter."""
    return Action("refusal", text=message)


def empty() -> Action:
    """Answer 200 with an empty content string."""
    return Action("empty", text="")


def thinking_out() -> Action:
    """Answer as a reasoning model that spent the whole token limit thinking: content
    ``""``, ``finish_reason: "length"``, and every completion token (the request's limit,
    ``max_completion_tokens`` or ``max_tokens``, else 1024) a reasoning token."""
    return Action("thinking_out")


def hang() -> Action:
    """Never answer (a dead backend that accepts connections): sleeps a day."""
    return Action("stall", seconds=86_400.0)


#: The two events LiteLLM 1.108.7's proxy sends for a streamed request whose upstream
#: answered a whole (non-streamed) reply: an empty delta, no usage (captured from a real
#: proxy in front of this server; docs/models.md, "Behind a LiteLLM proxy").
LOST_STREAM_EVENTS = (
    {"index": 0, "delta": {}, "finish_reason": "stop"},
    {"index": 0, "delta": {}},
)


def lost_stream_body(model: str, serial: int) -> str:
    """The server-sent events of a reply lost in re-streaming (:data:`LOST_STREAM_EVENTS`)."""
    lines = []
    for choice in LOST_STREAM_EVENTS:
        chunk = {
            "id": f"chatcmpl-lost-{serial:08x}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [choice],
        }
        lines.append(f"data: {json.dumps(chunk)}\n\n")
    return "".join(lines) + "data: [DONE]\n\n"


# --------------------------------------------------------------------------- request size


def estimate_prompt_tokens(request_json: Mapping[str, Any], images_seen: bool = True) -> int:
    """A cheap token estimate: ~4 characters a token plus a flat cost per image (none when
    not ``images_seen``: a text-only model, whose server drops the image parts)."""
    chars = 0
    images = 0
    messages = request_json.get("messages")
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, Mapping):
            continue
        chars += len(message_text(message))
        content = message.get("content")
        if isinstance(content, list):
            images += sum(1 for p in content if isinstance(p, Mapping) and p.get("type") == "image_url")
    return max(1, chars // 4) + (_IMAGE_TOKEN_ESTIMATE * images if images_seen else 0)


def elide_inline_images(body: bytes) -> bytes:
    """``body`` with the base64 text of every ``"data:<mime>;base64,...`` JSON string
    removed (each becomes ``"data:<mime>;base64,``; base64 holds no ``"``). Parsing the
    images as JSON would be most of the server's CPU, taken from the client being measured
    on the same machine (perf/throughput.py)."""
    out: list[bytes] = []
    emitted = search = 0  # body[:emitted] is in out
    while True:
        url = body.find(b'"data:', search)
        close = body.find(b'"', url + 1) if url >= 0 else -1
        if close < 0:
            break
        mark = body.find(b";base64,", url, close)
        if mark >= 0 and body[url - 1 : url] != b"\\":  # not an escaped quote inside a text
            out.append(body[emitted : mark + len(b";base64,")])
            emitted = close
        search = close + 1
    if not out:
        return body
    out.append(body[emitted:])
    return b"".join(out)


def _completion_tokens(text: str | None) -> int:
    return max(1, len(text) // 4) if text else 0


def _error_body(code: int) -> dict[str, Any]:
    kinds = {
        400: ("bad request", "invalid_request_error"),
        401: ("Incorrect API key provided", "invalid_request_error"),
        403: ("permission denied", "permission_error"),
        404: ("The model does not exist", "invalid_request_error"),
        429: ("Rate limit reached, please retry later", "rate_limit_error"),
        529: ("Overloaded", "overloaded_error"),
    }
    message, kind = kinds.get(code, (f"scripted error {code}", "server_error"))
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


# --------------------------------------------------------------------------- served models


@dataclass(frozen=True)
class Rejection:
    """A 400 (or 422) answer a served model gives to a setting it does not take; a ``str``
    body is sent as plain text, anything else as JSON."""

    status: int
    body: Any


@dataclass(frozen=True)
class ServedModel:
    """How the served model treats a request: ``check`` returns the rejection of a body it
    refuses (None: taken); each reply reports ``reasoning_tokens`` hidden thinking tokens;
    without ``sees_images`` (text-only) prompt tokens count the text alone; without
    ``reports_usage`` replies carry no ``usage``."""

    name: str
    check: Callable[[Mapping[str, Any]], Rejection | None] | None = None
    reasoning_tokens: int = 0
    sees_images: bool = True
    reports_usage: bool = True
    #: Every request gets this action (a failing backend: :func:`status`, :func:`hang`)
    #: unless one is queued with ``push``.
    always: Action | None = None
    #: Streamed requests get a reply lost in re-streaming (:func:`lost_stream_body`), as
    #: from LiteLLM in front of a server that ignores ``stream``; others are answered whole.
    loses_streams: bool = False


def failing_model(action: Action) -> ServedModel:
    """A backend that answers every request with ``action`` (a 429, a 500, a hang)."""
    return ServedModel("failing", always=action)


def restreaming_proxy_model() -> ServedModel:
    """A model behind LiteLLM's proxy whose upstream ignores ``stream``: every streamed reply
    arrives empty (:data:`LOST_STREAM_EVENTS`), non-streamed ones whole."""
    return ServedModel("lost-streams", loses_streams=True)


def text_only_model() -> ServedModel:
    """A text-only model: the server drops image parts and counts only the text's tokens."""
    return ServedModel("text-only", sees_images=False)


def openai_error(message: str, param: str, code: str) -> dict[str, Any]:
    """OpenAI's 400 body: ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


def _refuse(message: str, param: str, code: str) -> Rejection:
    return Rejection(400, openai_error(message, param, code))


def _reasoning_check(body: Mapping[str, Any]) -> Rejection | None:
    """What OpenAI's reasoning models (o-series, GPT-5) refuse, in their words."""
    if "max_tokens" in body:
        return _refuse(
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            "max_tokens",
            "unsupported_parameter",
        )
    temperature = body.get("temperature", 1)
    if temperature != 1:
        return _refuse(
            f"Unsupported value: 'temperature' does not support {temperature} with this model. "
            "Only the default (1) value is supported.",
            "temperature",
            "unsupported_value",
        )
    if "top_p" in body:
        return _refuse(
            "Unsupported parameter: 'top_p' is not supported with this model.", "top_p", "unsupported_parameter"
        )
    return None


def openai_reasoning_model(reasoning_tokens: int = 48) -> ServedModel:
    """A model like OpenAI's reasoning models: ``max_tokens`` is refused (use
    ``max_completion_tokens``), a temperature other than 1 and ``top_p`` are refused, with
    the real error bodies; ``reasoning_effort`` is taken; every reply reports
    ``reasoning_tokens`` thinking tokens (included in ``completion_tokens``)."""
    return ServedModel("openai-reasoning", _reasoning_check, reasoning_tokens)


def gemini_model(unknown: Sequence[str]) -> ServedModel:
    """A model behind Gemini's OpenAI-compatible endpoint that does not know the fields
    ``unknown``: its 400 is a list, ``[{"error": {"code", "message", "status", "details"}}]``,
    naming the field only in the message ("Unknown name ...")."""
    names = tuple(unknown)

    def check(body: Mapping[str, Any]) -> Rejection | None:
        for name in names:
            if name in body:
                text = f'Invalid JSON payload received. Unknown name "{name}": Cannot find field.'
                error = {
                    "code": 400,
                    "message": text,
                    "status": "INVALID_ARGUMENT",
                    "details": [
                        {
                            "@type": "type.googleapis.com/google.rpc.BadRequest",
                            "fieldViolations": [{"description": text}],
                        }
                    ],
                }
                return Rejection(400, [{"error": error}])
        return None

    return ServedModel("gemini", check)


def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = 60.0) -> None:
    """Poll ``condition`` until it holds. ``timeout_s`` only guards against a hang (an
    AssertionError naming ``what``); it is not a speed requirement."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting until {what}")
        time.sleep(0.002)


# --------------------------------------------------------------------------- server core


class _Core:
    """State and request handling shared by the threaded and the subprocess modes."""

    def __init__(
        self,
        responder: Responder | None,
        delay_s: float,
        reject_response_format: bool,
        max_concurrency: int | None,
        overflow: Overflow,
        model_name: str,
        keep_requests: bool = True,
        served: ServedModel | None = None,
    ) -> None:
        self.responder: Responder = responder or first_option_responder
        self.served = served
        # the subprocess server only counts: nobody reads its requests, and they hold images
        self.keep_requests = keep_requests
        self.count = 0
        self.delay_s = delay_s
        self.reject_response_format = reject_response_format
        self.max_concurrency = max_concurrency
        self.overflow = overflow
        self.model_name = model_name
        self.lock = threading.Lock()
        self.script: collections.deque[Action] = collections.deque()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []  # path and query string of each kept request
        self.in_flight = 0
        self.max_in_flight = 0
        self.busy = 0  # requests holding a concurrency slot
        self.gate = threading.Event()  # cleared by ScriptedOpenAIServer.hold(): answers wait for it
        self.gate.set()
        self._slots: asyncio.Semaphore | None = None
        self._serial = 0

    def record(self, body: dict[str, Any], headers: dict[str, str], path: str = "") -> None:
        """Count a received request (and keep its body, headers and path with query string
        if ``keep_requests``)."""
        with self.lock:
            self.count += 1
            if self.keep_requests:
                self.requests.append(body)
                self.headers.append(headers)
                self.paths.append(path)

    def new_app(self) -> web.Application:
        """An application with this core's concurrency slots (routes are added by callers)."""
        if self.max_concurrency is not None:
            self._slots = asyncio.Semaphore(self.max_concurrency)
        return web.Application(client_max_size=256 * 1024 * 1024)

    def make_app(self) -> web.Application:
        app = self.new_app()
        app.router.add_post("/v1/chat/completions", self.chat_completions)
        app.router.add_get("/v1/models", self.models)
        app.router.add_get("/stats", self.stats)
        return app

    def snapshot(self) -> dict[str, int]:
        with self.lock:
            return {
                "count": self.count,
                "in_flight": self.in_flight,
                "max_in_flight": self.max_in_flight,
                "queued_actions": len(self.script),
            }

    async def stats(self, _: web.Request) -> web.Response:
        return web.json_response(self.snapshot())

    async def models(self, _: web.Request) -> web.Response:
        return web.json_response(
            {
                "object": "list",
                "data": [{"id": self.model_name, "object": "model", "created": 0, "owned_by": "socialbench"}],
            }
        )

    async def counted(
        self, handle: Callable[[web.Request], Awaitable[web.StreamResponse]], request: web.Request
    ) -> web.StreamResponse:
        """Run ``handle(request)`` counted in ``in_flight`` / ``max_in_flight``."""
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await handle(request)
        finally:
            with self.lock:
                self.in_flight -= 1

    async def chat_completions(self, request: web.Request) -> web.StreamResponse:
        return await self.counted(self._handle, request)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        try:
            raw = await request.read()
            # A server that keeps requests (for tests to inspect) keeps them whole.
            body = json.loads(raw if self.keep_requests else elide_inline_images(raw))
            if not isinstance(body, dict):
                raise ValueError("not an object")
        except ValueError:
            return web.json_response(
                {"error": {"message": "request body is not a JSON object", "type": "invalid_request_error"}},
                status=400,
            )
        self.record(body, {k.lower(): v for k, v in request.headers.items()}, request.path_qs)
        if self.reject_response_format and "response_format" in body:
            return web.json_response(
                {
                    "error": {
                        "message": "response_format is not supported",
                        "type": "invalid_request_error",
                        "param": "response_format",
                    }
                },
                status=400,
            )
        rejection = self.served.check(body) if self.served is not None and self.served.check is not None else None
        if rejection is not None:
            if isinstance(rejection.body, str):  # a plain-text rejection (TGI's, axum's 422)
                return web.Response(status=rejection.status, text=rejection.body)
            return web.json_response(rejection.body, status=rejection.status)
        return await self.dispatch(body)

    # ------------------------------------------------------------------ shared dispatch
    # The wire-format hooks below are what the Messages-API server overrides.

    def reply(self, body: dict[str, Any], text: str) -> web.Response:
        """A successful answer carrying ``text`` (lost, for a model that loses streams)."""
        if self.served is not None and self.served.loses_streams and body.get("stream"):
            with self.lock:
                self._serial += 1
                serial = self._serial
            events = lost_stream_body(str(body.get("model") or self.model_name), serial)
            return web.Response(text=events, content_type="text/event-stream")
        return self._completion(body, text, "stop")

    def refusal_reply(self, body: dict[str, Any], message: str | None) -> web.Response:
        """A refusal (``message`` is the model's refusal text, when the format has one)."""
        return self._completion(body, None, "content_filter", refusal_text=message)

    def error_payload(self, code: int) -> dict[str, Any]:
        """The JSON body of an error with HTTP status ``code``."""
        return _error_body(code)

    async def dispatch(self, body: dict[str, Any]) -> web.StreamResponse:
        """Take the next scripted action (if any) and answer within the concurrency slots."""
        with self.lock:
            action = self.script.popleft() if self.script else None
        if action is None and self.served is not None:
            action = self.served.always
        if self._slots is None:
            return await self._respond(body, action)
        if self.overflow == "reject" and self._slots.locked():
            return web.json_response(self.error_payload(429), status=429, headers={"Retry-After": "1"})
        async with self._slots:
            with self.lock:
                self.busy += 1
            try:
                return await self._respond(body, action)
            finally:
                with self.lock:
                    self.busy -= 1

    async def _respond(self, body: dict[str, Any], action: Action | None) -> web.StreamResponse:
        while not self.gate.is_set():  # held (ScriptedOpenAIServer.hold)
            await asyncio.sleep(0.005)
        if self.delay_s > 0:
            await asyncio.sleep(self.delay_s)
        if action is None:
            return self.reply(body, self.responder(body))
        if action.kind == "ok":
            return self.reply(body, action.text or "")
        if action.kind == "truncated":
            return self._completion(body, action.text or "", "length")
        if action.kind == "thinking_out":
            limit = body.get("max_completion_tokens", body.get("max_tokens"))
            spent = limit if isinstance(limit, int) and limit > 0 else 1024
            return self._completion(body, "", "length", thinking=spent)
        if action.kind == "stall":
            await asyncio.sleep(action.seconds)
            return self.reply(body, action.text if action.text is not None else self.responder(body))
        if action.kind == "empty":
            return self.reply(body, "")
        if action.kind == "refusal":
            return self.refusal_reply(body, action.text)
        if action.kind == "malformed":
            return web.Response(status=200, text=action.text or "", content_type="application/json")
        payload = self.error_payload(action.code) if action.body is None else action.body
        if isinstance(payload, str):
            return web.Response(status=action.code, text=payload, headers=dict(action.headers))
        return web.json_response(payload, status=action.code, headers=dict(action.headers))

    def _completion(
        self,
        body: dict[str, Any],
        text: str | None,
        finish_reason: str,
        refusal_text: str | None = None,
        thinking: int = 0,
    ) -> web.Response:
        with self.lock:
            self._serial += 1
            serial = self._serial
        prompt_tokens = estimate_prompt_tokens(body, self.served is None or self.served.sees_images)
        completion_tokens = _completion_tokens(text if refusal_text is None else refusal_text)
        usage: dict[str, Any] = {}
        reasoning_tokens = thinking or (self.served.reasoning_tokens if self.served is not None else 0)
        if reasoning_tokens:
            completion_tokens += reasoning_tokens
            usage["completion_tokens_details"] = {
                "reasoning_tokens": reasoning_tokens,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            }
        message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": refusal_text}
        reply: dict[str, Any] = {
            "id": f"chatcmpl-scripted-{serial:08x}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model") or self.model_name),
            "system_fingerprint": "fp_scripted",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}],
        }
        if self.served is None or self.served.reports_usage:
            reply["usage"] = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                **usage,
            }
        return web.json_response(reply)


async def _start_site(core: _Core, host: str, port: int) -> tuple[web.AppRunner, int]:
    runner = web.AppRunner(core.make_app(), access_log=None, handler_cancellation=True, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=2048)
    await site.start()
    return runner, int(runner.addresses[0][1])


# --------------------------------------------------------------------------- in-process


class ScriptedOpenAIServer:
    """An OpenAI-compatible server on 127.0.0.1 running in a background thread.

    Use as a context manager; ``base_url`` is ``http://127.0.0.1:PORT/v1``. ``requests``,
    ``count`` and ``max_in_flight`` (peak number of requests received and not yet answered)
    may be read from any thread. With ``max_concurrency`` only that many requests are
    worked on at once; the rest wait (``overflow="queue"``) or get a 429 (``"reject"``).
    With ``keep_requests=False`` requests are only counted (``requests`` stays empty).
    """

    #: Path after ``http://HOST:PORT`` in :attr:`base_url` (what the matching SDK takes).
    url_path: ClassVar[str] = "/v1"

    def __init__(
        self,
        responder: Responder | None = None,
        delay_s: float = 0.0,
        *,
        reject_response_format: bool = False,
        max_concurrency: int | None = None,
        overflow: Overflow = "queue",
        model_name: str = DEFAULT_MODEL_NAME,
        host: str = "127.0.0.1",
        port: int = 0,
        keep_requests: bool = True,
        served: ServedModel | None = None,
    ) -> None:
        self._core = _Core(
            responder, delay_s, reject_response_format, max_concurrency, overflow, model_name, keep_requests, served
        )
        self._host = host
        self._port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()
        self._startup_error: BaseException | None = None

    # -- configuration that tests may change while running
    @property
    def reject_response_format(self) -> bool:
        return self._core.reject_response_format

    @reject_response_format.setter
    def reject_response_format(self, value: bool) -> None:
        self._core.reject_response_format = value

    @property
    def responder(self) -> Responder:
        return self._core.responder

    @responder.setter
    def responder(self, value: Responder | None) -> None:
        self._core.responder = value or first_option_responder

    @property
    def served(self) -> ServedModel | None:
        """How the served model treats requests (None: it takes every setting and answers)."""
        return self._core.served

    @served.setter
    def served(self, value: ServedModel | None) -> None:
        self._core.served = value

    # -- records
    @property
    def base_url(self) -> str:
        if self._thread is None:
            raise RuntimeError(f"{type(self).__name__} is not running; use it as a context manager")
        return f"http://{self._host}:{self._port}{self.url_path}"

    @property
    def port(self) -> int:
        return self._port

    @property
    def requests(self) -> list[dict[str, Any]]:
        """A copy of the JSON bodies received so far, in arrival order."""
        with self._core.lock:
            return list(self._core.requests)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        """HTTP headers (lower-case names) of each recorded request, same order as ``requests``."""
        with self._core.lock:
            return list(self._core.headers)

    @property
    def request_paths(self) -> list[str]:
        """Path and query string (``/v1/chat/completions?api-version=2``) of each recorded
        request, same order as ``requests``."""
        with self._core.lock:
            return list(self._core.paths)

    @property
    def count(self) -> int:
        with self._core.lock:
            return self._core.count

    @property
    def max_in_flight(self) -> int:
        with self._core.lock:
            return self._core.max_in_flight

    @property
    def in_flight(self) -> int:
        """Requests received and not yet answered."""
        with self._core.lock:
            return self._core.in_flight

    @property
    def busy(self) -> int:
        """Requests holding one of the ``max_concurrency`` slots (0 without a limit)."""
        with self._core.lock:
            return self._core.busy

    def hold(self) -> None:
        """Hold every answer until :meth:`release`. Requests are still received, counted and
        take their concurrency slot (or get their 429), so a test can observe concurrency
        as events instead of relying on ``delay_s`` outlasting the client's sends."""
        self._core.gate.clear()

    def release(self) -> None:
        """Answer the held requests (and answer new ones without holding)."""
        self._core.gate.set()

    def push(self, *actions: Action) -> None:
        """Queue scripted replies; each request consumes one before the responder is used."""
        with self._core.lock:
            self._core.script.extend(actions)

    # -- lifecycle
    def start(self) -> ScriptedOpenAIServer:
        if self._thread is not None:
            raise RuntimeError("ScriptedOpenAIServer already started")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="scripted-openai-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout=15):
            self.stop()
            raise RuntimeError("ScriptedOpenAIServer did not start within 15 s")
        if self._startup_error is not None:
            self._thread.join(timeout=5)
            self._thread = None
            err = self._startup_error
            raise RuntimeError(f"ScriptedOpenAIServer failed to start: {err}") from err
        return self

    def _run(self) -> None:
        loop = self._loop
        assert loop is not None
        asyncio.set_event_loop(loop)
        try:
            started = _start_site(self._core, self._host, self._port)
            self._runner, self._port = loop.run_until_complete(started)
        except BaseException as exc:  # reported to start()
            self._startup_error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(self._shutdown())
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _shutdown(self) -> None:
        current = asyncio.current_task()
        handlers = [t for t in asyncio.all_tasks() if t is not current]
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()

    def stop(self) -> None:
        """Stop serving, cancel pending handlers, close the port and join the thread."""
        thread, loop = self._thread, self._loop
        if thread is None or loop is None:
            return
        if thread.is_alive() and not loop.is_closed():
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=15)
        self._thread = None
        self._runner = None

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = f"{self._host}:{self._port}" if self._thread else "stopped"
        return f"{type(self).__name__}({where}, count={self.count})"


# --------------------------------------------------------------------------- subprocess


async def serve_forever(
    port: int = 0,
    host: str = "127.0.0.1",
    delay_s: float = 0.0,
    max_concurrency: int | None = None,
    overflow: Overflow = "queue",
    model_name: str = DEFAULT_MODEL_NAME,
    reject_response_format: bool = False,
    responder: Responder | None = None,
    served: ServedModel | None = None,
) -> None:
    """Serve with ``responder`` (default :func:`first_option_responder`) until cancelled;
    prints ``READY <base_url>`` first. ``served``: how the model treats generation settings."""
    core = _Core(responder, delay_s, reject_response_format, max_concurrency, overflow, model_name, False, served)
    await serve_core(core, host, port, "/v1")


async def serve_core(core: _Core, host: str, port: int, path: str) -> None:
    """Serve ``core`` until cancelled; prints ``READY http://HOST:PORT<path>`` first."""
    runner, bound = await _start_site(core, host, port)
    print(f"READY http://{host}:{bound}{path}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def server_arg_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The command-line options both scripted servers take."""
    p = argparse.ArgumentParser(prog=prog, description=description)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    p.add_argument("--delay-ms", type=float, default=0.0, help="sleep before each answer")
    p.add_argument("--max-concurrency", type=int, default=None, help="requests worked on at once")
    p.add_argument(
        "--overflow",
        choices=["queue", "reject"],
        default="queue",
        help="beyond --max-concurrency: wait for a slot, or answer 429",
    )
    p.add_argument(
        "--responder",
        choices=["valid", "first-option", "sampling"],
        default="valid",
        help="valid: a well-formed answer to every socialbench prompt (default); first-option: the "
        'first \'Possible answers:\' option, else {"answer": "ok"}; sampling: a random option at a '
        "temperature above 0 (see socialbench.testing.responders)",
    )
    return p


def parse_server_args(p: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse and check the options of :func:`server_arg_parser` (plus any added)."""
    args = p.parse_args(argv)
    if args.max_concurrency is not None and args.max_concurrency < 1:
        p.error("--max-concurrency must be at least 1")
    if args.delay_ms < 0:
        p.error("--delay-ms must not be negative")
    return args


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = server_arg_parser(
        "python -m socialbench.testing.openai_server",
        "Scripted local OpenAI-compatible chat-completions server.",
    )
    p.add_argument("--model-name", default=DEFAULT_MODEL_NAME)
    p.add_argument("--reject-response-format", action="store_true")
    p.add_argument(
        "--served",
        choices=["plain", "openai-reasoning", "lost-streams"],
        default="plain",
        help="openai-reasoning: refuse max_tokens and a temperature but 1 with OpenAI's error bodies, "
        "report reasoning tokens (openai_reasoning_model); lost-streams: answer streamed requests "
        "with an empty event stream, as LiteLLM re-streaming a whole reply (restreaming_proxy_model)",
    )
    p.add_argument("--fail-with", type=int, default=None, help="answer every request with this HTTP status")
    p.add_argument(
        "--fail-header", action="append", default=[], help="NAME:VALUE header of each --fail-with answer (repeatable)"
    )
    p.add_argument("--hang", action="store_true", help="never answer (accept and hold every request)")
    return parse_server_args(p, argv)


def _served(args: argparse.Namespace) -> ServedModel | None:
    """The served model the command-line options describe."""
    if args.hang:
        return failing_model(hang())
    if args.fail_with is not None:
        headers = dict(h.split(":", 1) for h in args.fail_header if ":" in h)
        return failing_model(status(args.fail_with, headers={k.strip(): v.strip() for k, v in headers.items()}))
    if args.served == "openai-reasoning":
        return openai_reasoning_model()
    if args.served == "lost-streams":
        return restreaming_proxy_model()
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    try:
        asyncio.run(
            serve_forever(
                port=args.port,
                host=args.host,
                delay_s=args.delay_ms / 1000.0,
                max_concurrency=args.max_concurrency,
                overflow=args.overflow,
                model_name=args.model_name,
                reject_response_format=args.reject_response_format,
                responder=get_responder(args.responder),
                served=_served(args),
            )
        )
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
