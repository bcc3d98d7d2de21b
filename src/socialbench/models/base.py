"""The model interface and the typed errors a model may raise.

A model turns a :class:`~socialbench.types.Request` into a
:class:`~socialbench.types.Generation`. It never retries by itself and never returns an
error as text: it raises :class:`RetryableModelError` (the engine backs off and tries
again) or :class:`FatalModelError` (the engine records the error kind and moves on).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from socialbench.types import Generation, Request, Usage

#: The SDK client type a :class:`LoopBoundClient` subclass builds.
Client = TypeVar("Client")


class ModelError(Exception):
    """A failed model call. ``kind`` is a short stable label recorded in samples.jsonl."""

    retryable: ClassVar[bool] = False

    def __init__(
        self,
        kind: str,
        message: str = "",
        retry_after: float | None = None,
        *,
        usage: Usage | None = None,
        finish_reason: str | None = None,
    ):
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind = kind
        self.message = message
        self.retry_after = retry_after
        #: What a reply that came back but could not be used still cost (an empty reply of a
        #: reasoning model that spent its budget thinking is billed), and why it ended: kept on
        #: the failed record and counted in run.json's totals. None: no reply, or not said.
        self.usage = usage
        self.finish_reason = finish_reason


class RetryableModelError(ModelError):
    """Transient: rate limits, overload, 5xx, timeouts, dropped connections."""

    retryable = True


class FatalModelError(ModelError):
    """Permanent for this request: bad request, auth, refusal, content filter."""

    retryable = False


@runtime_checkable
class Model(Protocol):
    """What every backend and baseline implements."""

    #: Spec string that identifies the model in run records, e.g. "openai:gpt-4o@http://...".
    spec: str
    #: Whether responses may be stored in the response cache.
    cacheable: bool
    #: Whether the model needs rendered images and prompt text (False for baselines that
    #: answer from the item itself).
    needs_prompt: bool

    async def generate(self, request: Request) -> Generation:
        """Answer one request or raise a :class:`ModelError`."""
        ...

    def identity(self) -> str:
        """Stable text used in the cache key (model name, endpoint; never secrets)."""
        ...

    async def aclose(self) -> None:
        """Release connections, weights, processes."""
        ...


def warm_platform_probe() -> None:
    """Ask :mod:`platform` for the OS once, now, so that its answer is cached.

    The OpenAI and Anthropic SDKs look up the platform (for their ``X-Stainless-OS`` header)
    on a worker thread at the first request of each client. When a run opens with 64
    concurrent requests, that is 64 simultaneous first-time lookups (each reads the
    interpreter binary for ``libc_ver``) fighting for the GIL: about 0.3 s before the first
    request leaves (perf/throughput.py). Called from the backends' constructors.
    """
    import platform

    try:
        platform.platform()
    except Exception:  # the SDK falls back to "Unknown"; nothing to warm
        pass


class LoopBoundClient:
    """Holds an SDK async client for the running event loop.

    A model object may serve several ``asyncio.run`` calls (tests, a resumed run); SDK clients
    are tied to the loop that created them, so the client is rebuilt when the loop changes.
    """

    _client: Any = None
    _client_loop: asyncio.AbstractEventLoop | None = None

    def _loop_client(self, make: Callable[[], Client]) -> Client:
        """The client ``make`` built for the running loop (built now if there is none)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client = make()
            self._client_loop = loop
        client: Client = self._client  # what ``make`` built: each subclass passes one factory
        return client

    async def aclose(self) -> None:
        client, self._client, self._client_loop = self._client, None, None
        if client is not None:
            try:
                await client.close()
            except RuntimeError:  # created on a loop that is already closed
                pass
