"""Post a ready JSON body over aiohttp and map every failure to a socialbench model error.

The OpenAI-compatible backend sends pre-built request bodies (see
:func:`socialbench.models.openai_compat.encode_chat_body`); going through aiohttp directly,
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
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
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


async def read_capped(resp: aiohttp.ClientResponse, limit: int = MAX_REPLY_BYTES) -> bytes:
    """The body of ``resp``, or :class:`FatalModelError` ``reply_too_large`` as soon as it
    is known to be longer than ``limit`` bytes (its declared length, or the bytes read)."""
    if resp.content_length is not None and resp.content_length > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in resp.content.iter_chunked(_CHUNK_BYTES):
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


async def post_bytes(
    session: aiohttp.ClientSession,
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    params: Mapping[str, str] | None,
    timeout_s: float,
    max_reply_bytes: int = MAX_REPLY_BYTES,
) -> HttpReply:
    """POST ``body``; the reply whatever its status. Raises :class:`Unreachable`,
    :class:`RetryableModelError` ``timeout`` / ``connection``, or :class:`FatalModelError`
    ``reply_too_large``. A connection failure names the URL, its credentials masked
    (:func:`~socialbench.models.redact.redact_url`)."""
    where = f"cannot connect to {redact_url(url)}"
    try:
        async with session.post(
            url, data=body, headers=headers, params=params or None, timeout=aiohttp.ClientTimeout(total=timeout_s)
        ) as resp:
            data = await read_capped(resp, max_reply_bytes)
            return HttpReply(resp.status, dict(resp.headers), data)
    except aiohttp.ClientConnectorError as exc:
        raise Unreachable(f"{where}: {type(exc).__name__}: {exc.os_error}") from None
    except asyncio.TimeoutError as exc:
        if type(exc).__name__ == "ConnectionTimeoutError":  # aiohttp >= 3.10: connect phase only
            raise Unreachable(f"{where}: ConnectionTimeoutError: could not connect in time") from None
        raise RetryableModelError("timeout", f"no answer within {timeout_s:g} s") from None
    except aiohttp.ClientError as exc:
        raise RetryableModelError("connection", f"{where}: {type(exc).__name__}: {exc}"[:300]) from None
