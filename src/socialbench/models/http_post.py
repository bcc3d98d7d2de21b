"""Post a ready JSON body over aiohttp and map every failure to a socialbench model error.

The OpenAI-compatible backend sends pre-built request bodies (see
:func:`socialbench.models.openai_compat.encode_chat_body`); going through aiohttp directly,
instead of an SDK client on top of it, saves the SDK's import (~0.5 s) and most of the
client CPU per request (header and URL models, response validation), which at high
concurrency is what keeps the event loop from sending the next request
(perf/throughput.py).

Error kinds: an HTTP error status is handed back to the caller (status, parsed body,
headers) to classify; ``timeout`` (no complete answer within the timeout), ``connection``
(the connection broke after the request may have been sent) and :class:`Unreachable` (the
connection could not be opened: nothing was sent).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp

from socialbench.models.base import RetryableModelError


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


async def post_bytes(
    session: aiohttp.ClientSession,
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    params: Mapping[str, str] | None,
    timeout_s: float,
) -> HttpReply:
    """POST ``body``; the reply whatever its status. Raises :class:`Unreachable`, or
    :class:`RetryableModelError` ``timeout`` / ``connection`` (messages name no URL, so
    they carry no credentials)."""
    try:
        async with session.post(
            url, data=body, headers=headers, params=params or None, timeout=aiohttp.ClientTimeout(total=timeout_s)
        ) as resp:
            data = await resp.read()
            return HttpReply(resp.status, dict(resp.headers), data)
    except aiohttp.ClientConnectorError as exc:
        raise Unreachable(f"{type(exc).__name__}: {exc.os_error}") from None
    except asyncio.TimeoutError as exc:
        if type(exc).__name__ == "ConnectionTimeoutError":  # aiohttp >= 3.10: connect phase only
            raise Unreachable("ConnectionTimeoutError: could not connect in time") from None
        raise RetryableModelError("timeout", f"no answer within {timeout_s:g} s") from None
    except aiohttp.ClientError as exc:
        raise RetryableModelError("connection", f"{type(exc).__name__}: {exc}"[:300]) from None
