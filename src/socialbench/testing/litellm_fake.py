"""A stand-in for a LiteLLM proxy in front of an OpenAI-compatible upstream, for tests and
benchmarks where the real proxy (about a hundred packages) is not installed.

It does what LiteLLM 1.108.7's proxy was seen doing in front of
:mod:`socialbench.testing.openai_server` (scripts/litellm_roundtrip.sh runs the real one):

* **its own retries**: a 429, a 5xx or a connection failure upstream is sent again, up to
  ``num_retries`` more times (the real proxy: 2, from the OpenAI SDK it calls through,
  honouring the upstream's ``Retry-After``), so each request it gets costs the upstream up to
  ``1 + num_retries``;
* **headers renamed**: the upstream's headers come back prefixed ``llm_provider-``
  (``Retry-After`` arrives as ``llm_provider-retry-after``), with its own error body
  (``{"error": {"message": "litellm.RateLimitError: ...", "code": "429"}}``);
* **re-streaming**: a streamed request whose upstream answered a whole reply (it ignores
  ``stream``) comes back as an event stream with an empty delta and no usage (the answer is
  lost; :data:`~socialbench.testing.openai_server.LOST_STREAM_EVENTS`);
* **no cancellation**: a client that gives up does not stop the upstream request.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
from aiohttp import web

from socialbench.testing.app_thread import AppThread
from socialbench.testing.openai_server import lost_stream_body

__all__ = ["FakeLiteLLM"]

_EXCEPTIONS = {429: ("RateLimitError", "throttling_error"), 408: ("Timeout", "timeout_error")}


def _renamed(headers: Any) -> dict[str, str]:
    """The upstream's headers as LiteLLM forwards them: each prefixed ``llm_provider-``."""
    return {f"llm_provider-{k.lower()}": v for k, v in headers.items() if k.lower() not in ("transfer-encoding",)}


def _retry_wait(headers: Any, cap_s: float) -> float:
    """The upstream's ``Retry-After`` in seconds (up to ``cap_s``; 0 when it says none)."""
    value = headers.get("Retry-After")
    try:
        return min(cap_s, max(0.0, float(value))) if value is not None else 0.0
    except ValueError:
        return 0.0


class FakeLiteLLM:
    """A proxy on 127.0.0.1 in front of ``upstream`` (a ``.../v1`` base URL); ``count`` is the
    requests it received. ``retry_wait_cap_s`` caps each wait for a ``Retry-After`` (the real
    SDK waits it in full; tests keep it short)."""

    def __init__(self, upstream: str, num_retries: int = 2, retry_wait_cap_s: float = 0.05) -> None:
        self.upstream = upstream.rstrip("/")
        self.num_retries = num_retries
        self.retry_wait_cap_s = retry_wait_cap_s
        self.count = 0
        self._session: aiohttp.ClientSession | None = None
        self._served = AppThread(self._make_app, name="fake-litellm", label="FakeLiteLLM", handler_cancellation=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._served.port}/v1"

    def _make_app(self) -> web.Application:
        app = web.Application(client_max_size=256 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._handle)
        app.on_cleanup.append(self._close)
        return app

    async def _close(self, _: web.Application) -> None:
        if self._session is not None:
            await self._session.close()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.count += 1
        raw = await request.read()
        body = json.loads(raw)
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=6000))
        status, headers, payload = 0, {}, b""
        for attempt in range(self.num_retries + 1):
            try:
                async with self._session.post(
                    self.upstream + "/chat/completions", data=raw, headers={"Content-Type": "application/json"}
                ) as resp:
                    status, headers, payload = resp.status, dict(resp.headers), await resp.read()
            except aiohttp.ClientError as exc:
                status, headers, payload = 500, {}, json.dumps({"error": {"message": str(exc)}}).encode()
            if status != 429 and status < 500:
                break
            if attempt < self.num_retries:
                await asyncio.sleep(_retry_wait(headers, self.retry_wait_cap_s))
        if status >= 400:
            name, kind = _EXCEPTIONS.get(status, ("InternalServerError", "None"))
            said = payload.decode("utf-8", "replace")[:200]
            error = {
                "message": f"litellm.{name}: {name}: OpenAIException - {said}\n\nLiteLLM: model group "
                f"'{body.get('model')}' failed with the error above. No fallback was attempted.",
                "type": kind,
                "param": None,
                "code": str(status),
            }
            return web.json_response({"error": error}, status=status, headers=_renamed(headers))
        streamed = "text/event-stream" in headers.get("Content-Type", "")
        if body.get("stream") and not streamed:  # re-streamed, and lost on the way
            events = lost_stream_body(str(body.get("model")), self.count)
            return web.Response(text=events, content_type="text/event-stream", headers=_renamed(headers))
        return web.Response(
            body=payload,
            status=status,
            content_type="text/event-stream" if streamed else "application/json",
            headers={k: v for k, v in _renamed(headers).items() if k != "llm_provider-content-type"},
        )

    def __enter__(self) -> FakeLiteLLM:
        self._served.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._served.stop()
