"""An aiohttp application served on its own event loop in a daemon thread, for the test
servers that run in the test's process (:mod:`socialbench.testing.slow_server`,
:mod:`socialbench.testing.images_server`).

    served = AppThread(make_app, name="my-server", label="MyServer")
    port = served.start()   # the bound port (0 asks the system for a free one)
    ...
    served.stop()
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from aiohttp import web

__all__ = ["AppThread"]

#: Seconds :meth:`AppThread.start` waits for the port, and :meth:`AppThread.stop` for the thread.
_WAIT_S = 15


class AppThread:
    """Serve ``make_app()`` (called on the server's own loop, so that what it creates
    belongs to that loop) at ``host:port``; ``runner_options`` go to
    :class:`aiohttp.web.AppRunner` (``access_log=None`` and ``shutdown_timeout=1.0`` unless
    given). ``name`` names the thread, ``label`` the server in the start-up error."""

    def __init__(
        self,
        make_app: Callable[[], web.Application],
        *,
        name: str,
        label: str,
        host: str = "127.0.0.1",
        port: int = 0,
        **runner_options: Any,
    ) -> None:
        self._make_app = make_app
        self._name = name
        self._label = label
        self._host = host
        self._bind_port = port
        self._runner_options = {"access_log": None, "shutdown_timeout": 1.0, **runner_options}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()
        self.port = 0

    def start(self) -> int:
        """Start serving; the bound port. RuntimeError when the port is not open within 15 s."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout=_WAIT_S):
            raise RuntimeError(f"{self._label} did not start within {_WAIT_S} s")
        return self.port

    def _run(self) -> None:
        loop = self._loop
        assert loop is not None
        asyncio.set_event_loop(loop)

        async def setup() -> None:
            self._runner = web.AppRunner(self._make_app(), **self._runner_options)
            await self._runner.setup()
            site = web.TCPSite(self._runner, self._host, self._bind_port)
            await site.start()
            self.port = int(self._runner.addresses[0][1])

        loop.run_until_complete(setup())
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            if self._runner is not None:
                loop.run_until_complete(self._runner.cleanup())
            loop.close()

    def stop(self) -> None:
        """Stop the loop (closing the port) and join the thread; nothing when not started."""
        if self._thread is None or self._loop is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=_WAIT_S)
        self._thread = None
