"""A slow OpenAI-compatible server that behaves like a real one under load, for tests.

It models what made timeouts a retry storm at ``transformers serve``: ``workers`` generate
one reply each, ``tokens`` tokens of ``token_s`` seconds; other requests wait unseen in a
queue. A non-streamed request is generated to the end even when its client has gone; a
streamed one sends each token as an event and is dropped once its client has closed the
connection (as Starlette's streaming responses do). :meth:`SlowOpenAIServer.snapshot`
counts requests received, running, finished, ``finished_for_nobody`` (the wasted work of a
retry storm) and ``client_gone``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Mapping

from aiohttp import web

from socialbench.testing.app_thread import AppThread
from socialbench.testing.responders import first_option_responder


def _gone(request: web.Request) -> bool:
    """Whether the client of ``request`` has closed its connection."""
    return request.transport is None or request.transport.is_closing()


class SlowOpenAIServer:
    """``POST /v1/chat/completions`` with ``workers`` generating at once (see the module)."""

    def __init__(self, workers: int = 2, tokens: int = 20, token_s: float = 0.01) -> None:
        self.workers = workers
        self.tokens = tokens
        self.token_s = token_s
        self._lock = threading.Lock()
        self._counts = {"received": 0, "running": 0, "finished": 0, "finished_for_nobody": 0, "client_gone": 0}
        # no handler cancellation: like a server generating in a thread, a request runs on
        # when its client goes (aiohttp's default since 3.9)
        self._served = AppThread(
            self._make_app, name="slow-openai-server", label="SlowOpenAIServer", handler_cancellation=False
        )
        self._port = 0
        self._slots: asyncio.Semaphore | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1"

    def snapshot(self) -> dict[str, int]:
        """The counters (see the module docstring)."""
        with self._lock:
            return dict(self._counts)

    def _count(self, name: str, by: int = 1) -> None:
        with self._lock:
            self._counts[name] += by

    def _pieces(self, body: Mapping[str, object]) -> list[str]:
        """The reply's text cut into ``tokens`` pieces (the last ones may be empty)."""
        text = first_option_responder(body)
        size = -(-len(text) // self.tokens)
        return [text[i * size : (i + 1) * size] for i in range(self.tokens)]

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = json.loads(await request.read())
        self._count("received")
        self._count("running")
        try:
            if body.get("stream"):
                if not await self._worker_while_connected(request):
                    self._count("client_gone")
                    return web.Response(status=499)
                try:
                    return await self._stream(request, body)
                finally:
                    self._release()
            assert self._slots is not None
            async with self._slots:  # queued until a worker is free; the client sees nothing
                return await self._whole(request, body)
        finally:
            self._count("running", -1)

    async def _worker_while_connected(self, request: web.Request) -> bool:
        """Wait for a worker while the client is connected: True with a worker held, False
        (none held) once the client has gone."""
        assert self._slots is not None
        while True:
            if _gone(request):
                return False
            try:
                await asyncio.wait_for(self._slots.acquire(), max(self.token_s, 0.01))
            except asyncio.TimeoutError:
                continue
            if _gone(request):
                self._slots.release()
                return False
            return True

    def _release(self) -> None:
        assert self._slots is not None
        self._slots.release()

    async def _whole(self, request: web.Request, body: Mapping[str, object]) -> web.StreamResponse:
        pieces = self._pieces(body)
        for _ in pieces:
            await asyncio.sleep(self.token_s)  # generating; a gone client goes unnoticed
        self._count("finished_for_nobody" if _gone(request) else "finished")
        usage = {"prompt_tokens": 10, "completion_tokens": len(pieces), "total_tokens": 10 + len(pieces)}
        message = {"role": "assistant", "content": "".join(pieces)}
        return web.json_response(
            {
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": usage,
            }
        )

    async def _stream(self, request: web.Request, body: Mapping[str, object]) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        pieces = self._pieces(body)
        try:
            await resp.prepare(request)
            for piece in pieces:
                await asyncio.sleep(self.token_s)
                if _gone(request):
                    raise ConnectionResetError("client gone")
                chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": piece}}]}
                await resp.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            end = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            usage = {"prompt_tokens": 10, "completion_tokens": len(pieces), "total_tokens": 10 + len(pieces)}
            await resp.write(b"data: " + json.dumps(end).encode() + b"\n\n")
            await resp.write(b"data: " + json.dumps({"choices": [], "usage": usage}).encode() + b"\n\n")
            await resp.write(b"data: [DONE]\n\n")
            await resp.write_eof()
        except (ConnectionError, RuntimeError):  # the client closed the connection: stop generating
            self._count("client_gone")
            return resp
        self._count("finished")
        return resp

    # -- lifecycle
    def __enter__(self) -> SlowOpenAIServer:
        self._port = self._served.start()
        return self

    def _make_app(self) -> web.Application:
        self._slots = asyncio.Semaphore(self.workers)
        app = web.Application(client_max_size=256 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._handle)
        return app

    def wait_idle(self, guard_s: float = 60.0) -> dict[str, int]:
        """Wait until no request is running or queued (``guard_s`` only guards against a
        hang); the counters then."""
        deadline = time.monotonic() + guard_s
        while self.snapshot()["running"]:
            if time.monotonic() > deadline:
                raise AssertionError(f"requests still running at the server after {guard_s:.0f} s: {self.snapshot()}")
            time.sleep(0.005)
        return self.snapshot()

    def __exit__(self, *exc: object) -> None:
        self._served.stop()
