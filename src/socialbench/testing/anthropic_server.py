"""A scripted, local server that speaks Anthropic's Messages API, for tests and benchmarks.

``POST /v1/messages`` in the Messages wire format, errors in Anthropic's shape, and
``GET /stats``; it reuses :class:`~socialbench.testing.openai_server.ScriptedOpenAIServer`'s
lifecycle and scripted actions (:func:`refusal` answers ``stop_reason: "refusal"``).
Requests are checked as the real API checks them (a missing or wrong key is a 401, a
malformed body a 400 naming the field: :mod:`socialbench.testing.anthropic_validation`);
``served`` refuses sampling settings, thinking types and output limits with the real API's
400s (:mod:`socialbench.testing.anthropic_served`). A request with ``"stream": true`` is
answered as the API streams (``text/event-stream``: ``message_start``,
``content_block_start``/``_delta``/``_stop`` per block, ``message_delta`` with the stop
reason and output tokens, ``message_stop``), ``event_gap_s`` apart when set. As a subprocess,
``python -m socialbench.testing.anthropic_server --port 0`` prints
``READY http://127.0.0.1:PORT`` (the SDK's ``base_url``) and serves until killed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from aiohttp import web

from socialbench.testing.anthropic_served import SERVED_MODELS, error_body
from socialbench.testing.anthropic_validation import request_api_key, validate_messages_request
from socialbench.testing.openai_server import (
    DEFAULT_MODEL_NAME,
    Action,
    Overflow,
    ScriptedOpenAIServer,
    ServedModel,
    _Core,
    empty,
    malformed,
    ok,
    parse_server_args,
    refusal,
    serve_core,
    server_arg_parser,
    stall,
    status,
)
from socialbench.testing.responders import Responder

__all__ = [
    "ScriptedAnthropicServer",
    "Action",
    "ok",
    "status",
    "stall",
    "malformed",
    "refusal",
    "empty",
    "serve_forever",
]

_IMAGE_TOKEN_ESTIMATE = 1600  # about what a ~1.2 MP image costs on the real API

#: The scripted reply's thinking text (one block before the answer) when thinking is on.
THINKING_TEXT = "The person on the left walks towards the robot, so the right side is clear."


def _thinking_on(body: Mapping[str, object]) -> bool:
    thinking = body.get("thinking")
    return isinstance(thinking, Mapping) and thinking.get("type") in ("enabled", "adaptive")


def _sse(event: str, data: Mapping[str, object]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def stream_events(message: Mapping[str, Any]) -> list[str]:
    """A complete Messages reply as the API's server-sent events."""
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events = [_sse("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "thinking":
            empty_block: dict[str, object] = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": block["thinking"]},
                {"type": "signature_delta", "signature": block["signature"]},
            ]
        else:
            empty_block = {"type": "text", "text": ""}
            text = block["text"]
            half = len(text) // 2
            deltas = [{"type": "text_delta", "text": part} for part in (text[:half], text[half:]) if part]
        events.append(
            _sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": empty_block})
        )
        events += [
            _sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas
        ]
        events.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    events.append(_sse("message_delta", {"type": "message_delta", "delta": delta, "usage": usage}))
    events.append(_sse("message_stop", {"type": "message_stop"}))
    return events


def _estimate_input_tokens(body: Mapping[str, object]) -> int:
    chars = 0
    images = 0
    system = body.get("system")
    if isinstance(system, str):
        chars += len(system)
    elif isinstance(system, list):
        chars += sum(len(str(b.get("text", ""))) for b in system if isinstance(b, Mapping))
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, Mapping) and block.get("type") == "image":
                    images += 1
                elif isinstance(block, Mapping):
                    chars += len(str(block.get("text", "")))
    return max(1, chars // 4) + _IMAGE_TOKEN_ESTIMATE * images


class _MessagesCore(_Core):
    """Request handling for ``/v1/messages`` on top of the OpenAI server's state."""

    #: when set, requests with another key get a 401
    api_key: str | None = None
    #: seconds between two events of a streamed reply (a model that generates slowly)
    event_gap_s: float = 0.0
    #: streamed replies begun (for tests and benchmarks)
    streams: int = 0

    def make_app(self) -> web.Application:
        app = self.new_app()
        app.router.add_post("/v1/messages", self.messages)
        app.router.add_get("/stats", self.stats)
        return app

    async def messages(self, request: web.Request) -> web.StreamResponse:
        return await self.counted(self._handle_messages, request)

    def reply(self, body: Mapping[str, object], text: str) -> web.Response:
        return self._message(body, text, "end_turn")

    def refusal_reply(self, body: Mapping[str, object], message: str | None) -> web.Response:
        return self._message(body, None, "refusal")

    def error_payload(self, code: int) -> dict[str, object]:
        return {**error_body(code)}

    def _header_problem(self, headers: Mapping[str, str]) -> web.Response | None:
        key = request_api_key(headers)
        if not key:
            return web.json_response(
                error_body(401, "x-api-key header (or Authorization: Bearer) is required"), status=401
            )
        if self.api_key is not None and key != self.api_key:
            return web.json_response(error_body(401, "invalid x-api-key"), status=401)
        if not headers.get("anthropic-version"):
            return web.json_response(error_body(400, "anthropic-version: header is required"), status=400)
        return None

    async def _handle_messages(self, request: web.Request) -> web.StreamResponse:
        headers = {k.lower(): v for k, v in request.headers.items()}
        try:
            body: Any = json.loads(await request.read())
        except ValueError:
            body = None
        self.record(body if isinstance(body, dict) else {}, headers, request.path_qs)
        problem = self._header_problem(headers)
        if problem is not None:
            return problem
        message = validate_messages_request(body)
        if message is not None:
            return web.json_response(error_body(400, message), status=400)
        rejection = self.served.check(body) if self.served is not None and self.served.check is not None else None
        if rejection is not None:
            return web.json_response(rejection.body, status=rejection.status)
        answer = await self.dispatch(body)
        if body.get("stream") is not True or not isinstance(answer, web.Response) or answer.status != 200:
            return answer
        return await self._stream(request, answer)

    async def _stream(self, request: web.Request, answer: web.Response) -> web.StreamResponse:
        """The reply ``answer`` (a Messages body) as server-sent events, ``event_gap_s`` apart."""
        try:
            message = json.loads(answer.text or "")
        except ValueError:  # malformed(): sent as it is
            return answer
        with self.lock:
            self.streams += 1
        out = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await out.prepare(request)
        for event in stream_events(message):
            if self.event_gap_s > 0:
                await asyncio.sleep(self.event_gap_s)
            await out.write(event.encode())
        await out.write_eof()
        return out

    def _message(self, body: Mapping[str, object], text: str | None, stop_reason: str) -> web.Response:
        with self.lock:
            self._serial += 1
            serial = self._serial
        content: list[dict[str, str]] = [] if text is None else [{"type": "text", "text": text}]
        thought = 0
        if text is not None and _thinking_on(body):
            content.insert(0, {"type": "thinking", "thinking": THINKING_TEXT, "signature": "c2NyaXB0ZWQ="})
            thought = max(1, len(THINKING_TEXT) // 4)
        return web.json_response(
            {
                "id": f"msg_scripted_{serial:08x}",
                "type": "message",
                "role": "assistant",
                "model": str(body.get("model") or self.model_name),
                "content": content,
                "stop_reason": stop_reason,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": _estimate_input_tokens(body),
                    "output_tokens": (max(1, len(text) // 4) if text else 0) + thought,
                },
            }
        )


class ScriptedAnthropicServer(ScriptedOpenAIServer):
    """A Messages-API server on 127.0.0.1 in a background thread; ``base_url`` is
    ``http://127.0.0.1:PORT`` (the SDK's). ``api_key``: when set, other keys get a 401."""

    url_path = ""

    def __init__(
        self,
        responder: Responder | None = None,
        delay_s: float = 0.0,
        *,
        api_key: str | None = None,
        max_concurrency: int | None = None,
        overflow: Overflow = "queue",
        model_name: str = DEFAULT_MODEL_NAME,
        host: str = "127.0.0.1",
        port: int = 0,
        served: ServedModel | None = None,
        event_gap_s: float = 0.0,
    ) -> None:
        super().__init__(
            responder,
            delay_s,
            max_concurrency=max_concurrency,
            overflow=overflow,
            model_name=model_name,
            host=host,
            port=port,
        )
        core = _MessagesCore(responder, delay_s, False, max_concurrency, overflow, model_name, served=served)
        core.api_key = api_key
        core.event_gap_s = event_gap_s
        self._core = self._messages = core

    @property
    def streams(self) -> int:
        """Streamed replies begun so far."""
        return self._messages.streams


# --------------------------------------------------------------------------- subprocess


async def serve_forever(
    port: int = 0,
    host: str = "127.0.0.1",
    delay_s: float = 0.0,
    max_concurrency: int | None = None,
    overflow: Overflow = "queue",
    api_key: str | None = None,
    responder: Responder | None = None,
    served: ServedModel | None = None,
) -> None:
    """Serve with ``responder`` (default: first option) until cancelled; prints ``READY <base_url>`` first.
    ``served``: how the model treats sampling settings (:func:`claude_temperature_deprecated`, ...)."""
    core = _MessagesCore(responder, delay_s, False, max_concurrency, overflow, DEFAULT_MODEL_NAME, False, served)
    core.api_key = api_key
    await serve_core(core, host, port, "")


def main(argv: Sequence[str] | None = None) -> int:
    p = server_arg_parser(
        "python -m socialbench.testing.anthropic_server", "Scripted local Anthropic Messages API server."
    )
    p.add_argument("--api-key", default=None, help="accept only this x-api-key")
    p.add_argument(
        "--served",
        choices=sorted(SERVED_MODELS),
        default="plain",
        help="how the model treats sampling settings: claude-temperature-deprecated refuses a temperature "
        "but 1, claude-sampling-exclusive refuses temperature with top_p, claude-adaptive-only refuses "
        "thinking.type enabled, claude-budget-thinking refuses adaptive thinking and effort (the API's error bodies)",
    )
    args = parse_server_args(p, argv)
    from socialbench.testing.responders import get_responder

    try:
        asyncio.run(
            serve_forever(
                args.port,
                args.host,
                args.delay_ms / 1000.0,
                args.max_concurrency,
                args.overflow,
                args.api_key,
                get_responder(args.responder),
                SERVED_MODELS[args.served](),
            )
        )
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
