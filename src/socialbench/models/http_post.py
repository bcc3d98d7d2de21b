"""Post a ready JSON body over aiohttp and map every failure to a socialbench model error.

The OpenAI-compatible backend sends pre-built request bodies (see
:func:`socialbench.models.openai_body.encode_chat_body`); going through aiohttp directly,
instead of an SDK client on top of it, saves the SDK's import (~0.5 s) and most of the
client CPU per request (header and URL models, response validation), which at high
concurrency is what keeps the event loop from sending the next request
(perf/throughput.py).

Error kinds: an HTTP error status is handed back to the caller (status, parsed body,
headers) to classify; ``timeout`` (no complete answer within the timeout), ``connection``
(the connection broke after the request may have been sent), ``reply_too_large`` (the body
is longer than :data:`MAX_REPLY_BYTES`: read no further, not retried) and
:class:`Unreachable` (the connection could not be opened: nothing was sent).

A reply is read with a byte cap and the total timeout, whichever comes first: a body that
streams forever ends at the cap (or the timeout), never by exhausting memory. The cap also
bounds the answer parsing, which is linear in the reply's length and runs on the event loop:
about 0.5-1.2 s for a hostile 1 MiB reply (the slowest shapes measured), milliseconds for a
real one.

Streaming (``stream=True``): a reply sent as server-sent events (``text/event-stream``) is
read event by event up to ``data: [DONE]`` and handed back as its ``data:`` payloads
(:attr:`HttpReply.events`), the same byte cap applying to all of them together. A reply that
does not stream (an error, or a server that ignored ``stream``) comes back as a plain body.

Timeouts: ``timeout_s`` bounds the whole exchange; ``first_byte_s`` (optional) bounds the time
until the first byte of the reply's body arrives (connecting, waiting in the server's queue,
the prompt's processing). Whenever an attempt ends before its reply is read whole (a timeout,
the cap, a cancellation by the engine), the connection is closed, never returned to the pool:
a server that streams sees the client go and stops working on the request.
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
    read (the one size check of :func:`read_capped` and :func:`read_events`)."""
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


async def read_capped(resp: aiohttp.ClientResponse, limit: int = MAX_REPLY_BYTES, first: bytes = b"") -> bytes:
    """The body of ``resp`` (``first``: its start, already read), or
    :class:`FatalModelError` ``reply_too_large`` as soon as it is known to be longer than
    ``limit`` bytes (its declared length, or the bytes read)."""
    if resp.content_length is not None and resp.content_length > limit:
        raise _too_large(limit)
    return b"".join([chunk async for chunk in _chunks(resp, limit, first)])


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
    return HttpReply(resp.status, headers, await read_capped(resp, limit, first))


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
