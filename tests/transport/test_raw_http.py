"""The load generator's raw HTTP/1.1 client reads every answer within its bounds and says what was wrong,
against real loopback sockets that answer badly on purpose."""

import asyncio

import pytest

from mrtr_studio.transport.raw_http import RawConnection, RawHttpError, RawResponse


async def answered_by(answer: bytes, body: bytes = b"{}", limit: int = 1024) -> RawResponse:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(answer)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    connection = RawConnection(f"http://127.0.0.1:{port}/mcp", max_body_bytes=limit)
    try:
        async with server:
            return await asyncio.wait_for(connection.post(body, {"Content-Type": "application/json"}), 10)
    finally:
        await connection.close()


@pytest.mark.anyio
async def test_a_content_length_answer_and_a_chunked_one_are_read() -> None:
    plain = await answered_by(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Served-By: n1\r\n\r\n{}")
    assert (plain.status, plain.headers["x-served-by"], plain.body) == (200, "n1", b"{}")
    chunked = await answered_by(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
    assert chunked.body == b"abcde"


@pytest.mark.anyio
@pytest.mark.parametrize(("answer", "why"), [
    (b"SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP response"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 999999\r\n\r\n", "over the limit"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" + b"x" * 2048, "over the limit"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"),
    (b"HTTP/1.1 200 OK\r\n" + b"A: b\r\n" * 200 + b"\r\n", "header lines"),
    (b"HTTP/1.1 200 OK\r\n\r\n{}", "neither Content-Length nor chunked"),
])
async def test_a_bad_answer_is_a_clear_error(answer: bytes, why: str) -> None:
    with pytest.raises(RawHttpError, match=why):
        await answered_by(answer)


def test_only_plain_http() -> None:
    with pytest.raises(ValueError, match="http:// only"):
        RawConnection("https://example.org/mcp", 1024)
