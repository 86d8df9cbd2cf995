"""The proxy's raw upstream leg against a real loopback server that answers with hand-written bytes."""

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from mrtr_studio.proxy.upstream import (
    ConnectError,
    ReadTimeout,
    RemoteProtocolError,
    Upstream,
    UpstreamTimeouts,
)
from mrtr_studio.proxy.upstream_connection import MAX_HEAD_BYTES

TIMEOUTS = UpstreamTimeouts(connect=2.0, read=2.0, write=2.0, pool=2.0)
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _serve(handler: Handler) -> tuple[asyncio.Server, str, list[int]]:
    accepted: list[int] = []

    async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(1)
        try:
            await handler(reader, writer)
        finally:
            writer.close()

    server = await asyncio.start_server(on_connection, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/mcp", accepted


async def _request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    lengths = [int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")]
    return head + await reader.readexactly(lengths[0] if lengths else 0)


async def _body(upstream: Upstream, url: str, body: bytes = b'{"x":1}') -> tuple[int, bytes]:
    response = await upstream.send("POST", url, [(b"content-type", b"application/json")], body, TIMEOUTS)
    chunks = [chunk async for chunk in response.aiter_raw()]
    await response.aclose()
    return response.status_code, b"".join(chunks)


def test_keep_alive_reuses_one_connection_and_sends_host_and_length() -> None:
    seen: list[bytes] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(2):
            seen.append(await _request(reader))
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}")
            await writer.drain()

    async def main() -> None:
        server, url, accepted = await _serve(handler)
        upstream = Upstream(4)
        try:
            assert await _body(upstream, url) == (200, b"{}")
            assert await _body(upstream, url) == (200, b"{}")
        finally:
            await upstream.aclose()
            server.close()
        assert len(accepted) == 1
        assert seen[0].startswith(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:")
        assert b"content-length: 7\r\n" in seen[0] and seen[0].endswith(b'{"x":1}')

    asyncio.run(main())


def test_a_body_framed_by_the_close_and_a_chunked_one_arrive_whole() -> None:
    answers = [b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: {}\n\n",
               b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"]

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request(reader)
        writer.write(answers.pop(0))
        await writer.drain()

    async def main() -> None:
        server, url, _ = await _serve(handler)
        upstream = Upstream(4)
        try:
            assert await _body(upstream, url) == (200, b"data: {}\n\n")
            assert await _body(upstream, url) == (200, b"hello world")
        finally:
            await upstream.aclose()
            server.close()

    asyncio.run(main())


def test_silence_is_a_read_timeout_and_a_refused_port_a_connect_error() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request(reader)
        await asyncio.sleep(5)

    async def main() -> None:
        server, url, _ = await _serve(silent)
        upstream = Upstream(4)
        quick = UpstreamTimeouts(connect=2.0, read=0.2, write=2.0, pool=2.0)
        try:
            with pytest.raises(ReadTimeout):
                await upstream.send("POST", url, [], b"{}", quick)
        finally:
            server.close()
        with pytest.raises(ConnectError):
            await upstream.send("POST", "http://127.0.0.1:9/mcp", [], b"{}", TIMEOUTS)
        await upstream.aclose()

    asyncio.run(main())


def test_oversized_response_headers_are_refused() -> None:
    async def huge(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nx-big: " + b"a" * (MAX_HEAD_BYTES + 10) + b"\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()
        await asyncio.sleep(1)

    async def main() -> None:
        server, url, _ = await _serve(huge)
        upstream = Upstream(4)
        try:
            with pytest.raises(RemoteProtocolError):
                await upstream.send("POST", url, [], b"{}", TIMEOUTS)
        finally:
            await upstream.aclose()
            server.close()

    asyncio.run(main())
