"""Replies are read with a byte cap (issue 29): a body that streams without end, or declares
a length over the cap, is refused as ``reply_too_large`` before it fills memory, well before
the total timeout. The servers are local asyncio servers written here."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from socialbench.models.base import FatalModelError
from socialbench.models.http_post import new_session, post_bytes

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _read_request(reader: asyncio.StreamReader) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")), 0
    )
    await reader.readexactly(length)


async def _endless(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _read_request(reader)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"x" * 4096
    try:
        while True:  # never ends: only the client's cap (or timeout) stops it
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def _declared(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _read_request(reader)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\n\r\n{")
    await writer.drain()
    await asyncio.sleep(30)  # never sends the rest
    writer.close()


async def _small(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _read_request(reader)
    body = b'{"ok": true}'
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    await writer.drain()
    writer.close()


async def _post(handler: Handler, limit: int) -> bytes:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with new_session() as session:
            reply = await post_bytes(
                session, f"http://127.0.0.1:{port}/v1", b"{}", {"Content-Type": "application/json"}, None, 600.0, limit
            )
            return reply.body
    finally:
        server.close()


def test_a_reply_that_streams_without_end_stops_at_the_byte_cap() -> None:
    with pytest.raises(FatalModelError) as info:
        asyncio.run(_post(_endless, 200_000))
    assert info.value.kind == "reply_too_large"


def test_a_reply_declaring_a_length_over_the_cap_is_refused_before_its_body() -> None:
    with pytest.raises(FatalModelError) as info:
        asyncio.run(_post(_declared, 200_000))
    assert info.value.kind == "reply_too_large"


def test_a_reply_under_the_cap_is_read_whole() -> None:
    assert asyncio.run(_post(_small, 200_000)) == b'{"ok": true}'


def _sse_handler(payload: bytes, endless: bool = False) -> Handler:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        try:
            while True:
                writer.write(b"%x\r\n%s\r\n" % (len(payload), payload))
                await writer.drain()
                if not endless:
                    break
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    return handle


async def _post_stream(handler: Handler, limit: int = 200_000) -> tuple[bytes, ...] | None:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with new_session() as session:
            reply = await post_bytes(session, f"http://127.0.0.1:{port}/v1", b"{}", {}, None, 600.0, limit, stream=True)
            return reply.events
    finally:
        server.close()


def test_server_sent_events_are_read_up_to_done() -> None:
    # a keep-alive comment, CRLF line ends, a two-line data field, an event after [DONE]
    payload = b': ping\r\n\r\ndata: {"a": 1}\r\n\r\ndata: {"b":\ndata: 2}\n\ndata: [DONE]\n\ndata: {"late": 1}\n\n'
    events = asyncio.run(_post_stream(_sse_handler(payload)))
    assert events == (b'{"a": 1}', b'{"b":\n2}')


def test_an_event_stream_that_never_ends_stops_at_the_byte_cap() -> None:
    with pytest.raises(FatalModelError) as info:
        asyncio.run(_post_stream(_sse_handler(b'data: {"x": "' + b"y" * 4000 + b'"}\n\n', endless=True)))
    assert info.value.kind == "reply_too_large"


def test_a_plain_reply_to_a_streamed_request_comes_back_whole() -> None:
    assert asyncio.run(_post_stream(_small)) is None
