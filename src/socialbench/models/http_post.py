"""Post a ready JSON body over aiohttp and map every failure to a socialbench model error.

No SDK: its import and per-request models were most of the client's CPU at high
concurrency (perf/throughput.py). An HTTP error status is handed back to the caller to
classify; ``timeout``, ``connection`` (the request may have been sent), ``reply_too_large``
and :class:`Unreachable` (nothing was sent) are raised. A reply is read with a byte cap
(:data:`MAX_REPLY_BYTES`, which also bounds the answer parsing on the event loop) and the
total timeout, whichever comes first; a streamed reply (``text/event-stream``) comes back
as its ``data:`` payloads up to ``[DONE]``. ``first_byte_s`` bounds the wait for the body's
first byte. An attempt that ends before its reply is read whole closes its connection
instead of returning it to the pool, so a streaming server stops working on the request.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp

from socialbench.models.base import FatalModelError, RetryableModelError
from socialbench.models.redact import redact_url

#: Longest reply body read (bytes). A chat completion of 32k tokens of text, reasoning
#: included, is about 150 kB: the cap leaves a wide margin and bounds memory and parsing.
MAX_REPLY_BYTES = 1024 * 1024
#: Bytes read at a time while checking the cap.
_CHUNK_BYTES = 64 * 1024


class Unreachable(Exception):
    """The connection could not be opened (refused, DNS, connect timeout): nothing was sent."""


@dataclass(frozen=True)
class HttpReply:
    """A finished HTTP exchange: status, headers and the body's bytes."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    #: The ``data:`` payloads of a reply streamed as server-sent events (``[DONE]``
    #: excluded), in order; None when the reply was not streamed (``body`` holds it).
    events: tuple[bytes, ...] | None = None

    def json_or_text(self) -> Any:
        """The body decoded as JSON, or as text when it is not JSON."""
        try:
            return json.loads(self.body)
        except ValueError:
            return self.body.decode("utf-8", "replace")


def new_session() -> aiohttp.ClientSession:
    """A session whose connection pool does not cap concurrency (the engine does)."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), skip_auto_headers=("User-Agent",))


def _too_large(limit: int) -> FatalModelError:
    return FatalModelError(
        "reply_too_large",
        f"the reply is longer than {limit} bytes; lower max_tokens, or check the server (it may stream without end)",
    )


async def _chunks(resp: aiohttp.ClientResponse, limit: int, first: bytes = b"") -> AsyncIterator[bytes]:
    """``first`` (bytes already read), then the rest of ``resp``'s body chunk by chunk, or
    :class:`FatalModelError` ``reply_too_large`` as soon as more than ``limit`` bytes were
    read."""
    size = 0
    async for chunk in _with_first(resp, first):
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        yield chunk


async def _with_first(resp: aiohttp.ClientResponse, first: bytes) -> AsyncIterator[bytes]:
    if first:
        yield first
    async for chunk in resp.content.iter_chunked(_CHUNK_BYTES):
        yield chunk


def sse_data(lines: list[bytes]) -> bytes | None:
    """The ``data:`` payload of one server-sent event given as its lines (several ``data:``
    lines join with newlines, as the SSE spec says); None for an event without data (a
    comment or keep-alive such as ``: ping``).

    >>> sse_data([b"event: x", b'data: {"a":', b"data: 1}"])
    b'{"a":\\n1}'
    """
    parts = [line[5:].removeprefix(b" ") for line in lines if line.startswith(b"data:")]
    return b"\n".join(parts) if parts else None


async def read_events(
    resp: aiohttp.ClientResponse, limit: int = MAX_REPLY_BYTES, first: bytes = b""
) -> tuple[bytes, ...]:
    """The ``data:`` payloads of a server-sent-event reply up to ``data: [DONE]`` (or the
    end of the body), or ``reply_too_large`` once more than ``limit`` bytes were read."""
    events: list[bytes] = []
    pending = b""
    lines: list[bytes] = []
    async for chunk in _chunks(resp, limit, first):
        *complete, pending = (pending + chunk).split(b"\n")
        for raw in complete:
            line = raw.rstrip(b"\r")
            if line:
                lines.append(line)
                continue
            data = sse_data(lines)  # a blank line ends an event
            lines = []
            if data is None:
                continue
            if data.strip() == b"[DONE]":
                return tuple(events)
            events.append(data)
    data = sse_data([*lines, pending.rstrip(b"\r")])
    if data is not None and data.strip() != b"[DONE]":
        events.append(data)
    return tuple(events)


class _FirstByte:
    """Cancel the current task unless :meth:`arrived` is called within ``seconds`` (None:
    never); :meth:`expired` says whether the cancellation was this timer's."""

    def __init__(self, seconds: float | None) -> None:
        self._fired = False
        self._task = asyncio.current_task()
        self._handle: asyncio.TimerHandle | None = None
        if seconds is not None and self._task is not None:
            self._handle = asyncio.get_running_loop().call_later(seconds, self._fire)

    def _fire(self) -> None:
        self._fired = True
        self._handle = None
        if self._task is not None:
            self._task.cancel()

    def arrived(self) -> None:
        """The first byte came: the timer stops."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def expired(self) -> bool:
        """Whether the timer fired (its cancellation is taken back, Python >= 3.11)."""
        self.arrived()
        uncancel = getattr(self._task, "uncancel", None)
        if self._fired and uncancel is not None:
            uncancel()
        return self._fired


async def _read_reply(resp: aiohttp.ClientResponse, stream: bool, limit: int, first_byte: _FirstByte) -> HttpReply:
    """Read ``resp``: its events when it streams server-sent events, else its body."""
    if resp.content_length is not None and resp.content_length > limit:
        raise _too_large(limit)
    first = await resp.content.readany()  # the first bytes of the body (b"" when it is empty)
    first_byte.arrived()
    headers = dict(resp.headers)
    kind = resp.headers.get("Content-Type", "").lower()
    if stream and resp.status < 400 and "text/event-stream" in kind:
        return HttpReply(resp.status, headers, b"", await read_events(resp, limit, first))
    return HttpReply(resp.status, headers, b"".join([chunk async for chunk in _chunks(resp, limit, first)]))


async def post_bytes(
    session: aiohttp.ClientSession,
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    params: Mapping[str, str] | None,
    timeout_s: float,
    max_reply_bytes: int = MAX_REPLY_BYTES,
    *,
    first_byte_s: float | None = None,
    stream: bool = False,
) -> HttpReply:
    """POST ``body``; the reply whatever its status (its events when ``stream`` and the
    server streams). Raises :class:`Unreachable`, :class:`RetryableModelError` ``timeout``
    (``timeout_s`` in all, or ``first_byte_s`` to the body's first byte) / ``connection``,
    or :class:`FatalModelError` ``reply_too_large``. A connection failure names the URL,
    its credentials masked (:func:`~socialbench.models.redact.redact_url`)."""
    where = f"cannot connect to {redact_url(url)}"
    first_byte = _FirstByte(first_byte_s)
    try:
        async with session.post(
            url, data=body, headers=headers, params=params or None, timeout=aiohttp.ClientTimeout(total=timeout_s)
        ) as resp:
            try:
                return await _read_reply(resp, stream, max_reply_bytes, first_byte)
            except BaseException:
                resp.close()  # not back to the pool: the server sees the client go
                raise
    except asyncio.CancelledError:
        if first_byte.expired():
            raise RetryableModelError("timeout", f"no first byte of the answer within {first_byte_s:g} s") from None
        raise
    except aiohttp.ClientConnectorError as exc:
        raise Unreachable(f"{where}: {type(exc).__name__}: {exc.os_error}") from None
    except asyncio.TimeoutError as exc:
        if type(exc).__name__ == "ConnectionTimeoutError":  # aiohttp >= 3.10: connect phase only
            raise Unreachable(f"{where}: ConnectionTimeoutError: could not connect in time") from None
        raise RetryableModelError("timeout", f"no answer within {timeout_s:g} s") from None
    except aiohttp.ClientError as exc:
        raise RetryableModelError("connection", f"{where}: {type(exc).__name__}: {exc}"[:300]) from None
    finally:
        first_byte.arrived()
