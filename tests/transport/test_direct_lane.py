"""The direct lane: a POST whose headers and body arrive in one read is answered without ASGI, in one
write shaped as uvicorn's; everything else (a body still to come, pipelining, a stream, a failure,
`Connection: close`) is served as before. Raw sockets against a real uvicorn host, so the bytes on the
wire are what is checked."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import pytest

from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.transport import direct_lane
from mrtr_studio.transport.http_host import Hosted, make_server
from mrtr_studio.transport.http_server import HttpServerConfig, McpHttpApp

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}


def call(number: int, **extra: Any) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call",
                         "params": {"name": "delete_file", "arguments": {"path": "/tmp/x"}, "_meta": META, **extra}})


def endpoint() -> McpHttpApp:
    """The demo server's endpoint, taking the portless Host these raw requests send."""
    return McpHttpApp(build_demo_server(), HttpServerConfig(allowed_hosts=frozenset({"127.0.0.1"})))


def post(body: bytes, *headers: bytes) -> tuple[bytes, bytes]:
    head = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: delete_file\r\n"
            + b"".join(h + b"\r\n" for h in headers) + b"Content-Length: %d\r\n\r\n" % len(body))
    return head, body


class Host(Hosted):
    def __init__(self, app: Any) -> None:
        super().__init__("127.0.0.1")
        self.app = app

    def _server(self) -> Any:
        return make_server(self.app, limits=HttpServerConfig()), "/mcp"


async def read_answer(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length"))
    return head, await asyncio.wait_for(reader.readexactly(length), 5)


def run(app: Any, scenario: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
        counted: list[int] | None = None, monkeypatch: pytest.MonkeyPatch | None = None) -> None:
    if monkeypatch is not None and counted is not None:
        original = direct_lane.serve_direct

        async def counting(*args: Any) -> None:
            counted.append(1)
            await original(*args)
        monkeypatch.setattr(direct_lane, "serve_direct", counting)

    async def main() -> None:
        host = Host(app)
        url = await host.start()
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            await scenario(reader, writer)
        finally:
            writer.close()
            await host.stop()
    asyncio.run(main())


def test_a_whole_request_is_answered_directly_as_uvicorn_would(monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[int] = []
    seen: dict[str, Any] = {}

    async def scenario(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"".join(post(call(1))))
        seen["first"] = await read_answer(reader)
        writer.write(b"".join(post(call(2))))  # the same connection, kept alive
        seen["second"] = await read_answer(reader)

    run(endpoint(), scenario, counted, monkeypatch)
    assert counted == [1, 1]
    for head, body in seen.values():
        lines = head.split(b"\r\n")
        assert lines[0] == b"HTTP/1.1 200 OK"
        names = [line.split(b":")[0] for line in lines[1:] if line]
        assert names[:3] == [b"date", b"content-type", b"content-length"] and b"server-timing" in names
        assert b"connection" not in names
        assert orjson.loads(body)["result"]["resultType"] == "input_required"


def test_a_body_still_to_come_is_read_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[int] = []
    seen: list[bytes] = []

    async def scenario(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head, body = post(call(3))
        writer.write(head + body[:10])
        await writer.drain()
        await asyncio.sleep(0.1)
        writer.write(body[10:])
        seen.append((await read_answer(reader))[1])

    run(endpoint(), scenario, counted, monkeypatch)
    assert counted == []
    assert orjson.loads(seen[0])["id"] == 3


def test_pipelined_requests_are_answered_in_order() -> None:
    ids: list[int] = []

    async def scenario(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"".join(post(call(4))) + b"".join(post(call(5))) + b"".join(post(call(6))))
        for _ in range(3):
            ids.append(orjson.loads((await read_answer(reader))[1])["id"])

    run(endpoint(), scenario)
    assert ids == [4, 5, 6]


def test_connection_close_is_honoured_after_the_answer() -> None:
    seen: list[Any] = []

    async def scenario(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"".join(post(call(7), b"Connection: close")))
        head, _ = await read_answer(reader)
        seen.append(head)
        seen.append(await asyncio.wait_for(reader.read(), 5))

    run(endpoint(), scenario)
    assert b"connection: close\r\n" in seen[0]
    assert seen[1] == b""  # the server closed the connection


class Failing:
    """An endpoint that takes direct requests and fails in one of two places."""

    direct_body_limit = 1 << 20

    def __init__(self, after_start: bool) -> None:
        self.after_start = after_start

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:  # uvicorn's path: unused here
        raise AssertionError("the direct lane was expected")

    async def request(self, scope: dict[str, Any], out: Any, body: bytes | None = None) -> None:
        if self.after_start:
            await out.start(200, [(b"content-type", b"text/event-stream")])
            await out.chunk(b"data: 1\n\n", True)
        raise RuntimeError("endpoint bug")


def test_a_failure_before_answering_is_a_500_and_the_connection_lives() -> None:
    seen: list[Any] = []

    async def scenario(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"".join(post(b"{}")))
        seen.append(await read_answer(reader))
        writer.write(b"".join(post(b"{}")))
        seen.append(await read_answer(reader))

    run(Failing(after_start=False), scenario)
    assert all(head.startswith(b"HTTP/1.1 500 ") and body == b"Internal Server Error" for head, body in seen)


def test_a_failure_mid_stream_closes_the_connection() -> None:
    seen: list[bytes] = []

    async def scenario(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"".join(post(b"{}")))
        seen.append(await asyncio.wait_for(reader.read(), 5))  # to EOF: the server closes

    run(Failing(after_start=True), scenario)
    assert seen[0].startswith(b"HTTP/1.1 200 OK") and b"transfer-encoding: chunked" in seen[0]
    assert b"data: 1" in seen[0]


def test_a_streamed_answer_goes_through_uvicorns_cycle() -> None:
    class Streaming(Failing):
        async def request(self, scope: dict[str, Any], out: Any, body: bytes | None = None) -> None:
            await out.start(200, [(b"content-type", b"text/event-stream")])
            await out.chunk(b"data: 1\n\n", True)
            await out.chunk(b"data: 2\n\n", False)

    seen: list[bytes] = []

    async def scenario(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"".join(post(b"{}")))
        seen.append(await asyncio.wait_for(reader.readuntil(b"0\r\n\r\n"), 5))
        writer.write(b"".join(post(b"{}")))  # and the connection serves the next request
        seen.append(await asyncio.wait_for(reader.readuntil(b"0\r\n\r\n"), 5))

    run(Streaming(after_start=False), scenario)
    for answer in seen:
        assert b"transfer-encoding: chunked" in answer and b"data: 1" in answer and b"data: 2" in answer


def test_a_chunked_body_takes_uvicorns_path_and_is_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[int] = []
    seen: list[bytes] = []

    async def scenario(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head, body = post(call(8))
        head = head.replace(b"Content-Length: %d\r\n" % len(body), b"Transfer-Encoding: chunked\r\n")
        writer.write(head + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
        seen.append((await read_answer(reader))[1])

    run(endpoint(), scenario, counted, monkeypatch)
    assert counted == []
    assert orjson.loads(seen[0])["id"] == 8


def test_the_request_target_reaches_the_endpoint_as_uvicorn_gives_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Path percent-decoded, raw path and query kept, on the first request to a URL and on the
    requests after it (whose parse is remembered), for each of two URLs on one connection."""
    seen: list[tuple[str, bytes, bytes]] = []

    class Recording:
        direct_body_limit = 1 << 20

        async def request(self, scope: dict[str, Any], out: Any, body: bytes | None = None) -> None:
            seen.append((scope["path"], scope["raw_path"], scope["query_string"]))
            await out.whole(200, b"{}")

        async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
            raise AssertionError("served through ASGI")

    monkeypatch.setattr(direct_lane, "_targets", {})

    async def scenario(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for target in (b"/m%63p?x=1", b"/m%63p?x=1", b"/mcp", b"/mcp"):
            writer.write(b"POST " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}")
            head, body = await read_answer(reader)
            assert head.startswith(b"HTTP/1.1 200") and body == b"{}"

    run(Recording(), scenario)
    assert seen == [("/mcp", b"/m%63p", b"x=1")] * 2 + [("/mcp", b"/mcp", b"")] * 2
    assert set(direct_lane._targets) == {("", b"/m%63p?x=1"), ("", b"/mcp")}
