"""Tests for the in-process aiohttp server thread (socialbench.testing.app_thread)."""

from __future__ import annotations

import socket
import urllib.request

from aiohttp import web

from socialbench.testing.app_thread import AppThread


async def _hello(request: web.Request) -> web.Response:
    return web.Response(text="hello")


def _app() -> web.Application:
    app = web.Application()
    app.router.add_get("/hello", _hello)
    return app


def test_the_app_answers_at_the_bound_port() -> None:
    served = AppThread(_app, name="test-app-thread", label="TestServer")
    port = served.start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/hello", timeout=10) as reply:
            assert reply.read() == b"hello"
    finally:
        served.stop()


def test_stop_closes_the_port() -> None:
    served = AppThread(_app, name="test-app-thread", label="TestServer")
    port = served.start()
    served.stop()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0


def test_stop_before_start_does_nothing() -> None:
    served = AppThread(_app, name="test-app-thread", label="TestServer")
    served.stop()
    assert served.port == 0
