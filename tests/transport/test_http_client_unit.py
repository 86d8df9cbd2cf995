"""HttpClientTransport against scripted HTTP answers (httpx.MockTransport) and a silent socket."""

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from mrtr_studio.transport.base import Tap, TransportError, WireEvent
from mrtr_studio.transport.http_client import HttpClientTransport
from mrtr_studio.transport.mcp_headers import header_value, modern_headers
from mrtr_studio.transport.sse_reader import SseEvent, SseParser, SseTooLarge

pytestmark = pytest.mark.anyio
URL = "http://127.0.0.1:9/mcp"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}, "_meta": META}}
DONE = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": []}}


def transport(handler: Any, **kw: Any) -> tuple[HttpClientTransport, list[WireEvent]]:
    events: list[WireEvent] = []
    tap = Tap()
    tap.listen(events.append)
    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return HttpClientTransport(URL, tap=tap, client=client, **kw), events


async def test_json_response_and_the_modern_headers() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=DONE)

    http, events = transport(handler, bearer_token="s3cret")
    assert await http.send(CALL) == DONE
    headers = seen[0].headers
    assert headers["mcp-protocol-version"] == "2026-07-28"
    assert headers["mcp-method"] == "tools/call"
    assert headers["mcp-name"] == "t"
    assert headers["accept"] == "application/json, text/event-stream"
    assert headers["authorization"] == "Bearer s3cret"
    assert "mcp-session-id" not in headers
    assert [e.direction for e in events] == ["client->server", "server->client"]
    assert events[0].meta["request_headers"]["Authorization"] == "Bearer ***"
    assert events[1].meta["framing"] == "json" and events[1].meta["http_status"] == 200
    assert events[1].meta["content_type"] == "application/json"


async def test_sse_response_skips_comments_records_notifications_and_returns_the_response() -> None:
    note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}
    body = f": keep-alive\n\nevent: message\ndata: {json.dumps(note)}\n\ndata: {json.dumps(DONE)}\n\n"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})

    http, events = transport(handler)
    assert await http.send(CALL) == DONE
    assert [e.message for e in events[1:]] == [note, DONE]
    assert all(e.meta["framing"] == "sse" for e in events[1:])


async def test_legacy_server_request_on_the_stream_is_answered_by_post() -> None:
    ask = {"jsonrpc": "2.0", "id": 0, "method": "roots/list"}
    posted: list[dict[str, Any]] = []
    answered = asyncio.Event()

    async def stream() -> AsyncIterator[bytes]:
        yield f"data: {json.dumps(ask)}\n\n".encode()
        await answered.wait()
        yield f"data: {json.dumps(DONE)}\n\n".encode()

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if "method" in body:
            return httpx.Response(200, content=stream(), headers={"content-type": "text/event-stream"})
        posted.append({"body": body, "session": request.headers.get("mcp-session-id")})
        answered.set()
        return httpx.Response(202)

    http, events = transport(handler)
    http.session_id = "sess-1"

    async def roots(request: dict[str, Any]) -> dict[str, Any]:
        return {"roots": [{"uri": "file:///r"}]}

    http.on_server_request(roots)
    legacy_call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}
    assert await http.send(legacy_call) == DONE
    assert posted == [{"body": {"jsonrpc": "2.0", "id": 0, "result": {"roots": [{"uri": "file:///r"}]}},
                       "session": "sess-1"}]
    assert [e.meta.get("server_initiated", False) for e in events] == [False, True, True, False]


async def test_legacy_initialize_keeps_session_and_version() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = json.loads(request.content)
        if body.get("method") == "initialize":
            return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}},
                headers={"mcp-session-id": "abc"})
        return httpx.Response(202)

    http, _ = transport(handler)
    await http.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
    assert await http.send({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert "mcp-protocol-version" not in seen[0].headers
    assert seen[1].headers["mcp-session-id"] == "abc"
    assert seen[1].headers["mcp-protocol-version"] == "2025-06-18"
    assert "mcp-method" not in seen[1].headers


async def test_a_4xx_json_rpc_error_is_returned_for_the_caller_to_read() -> None:
    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "Unsupported protocol version"}}
    http, events = transport(lambda r: httpx.Response(400, json=error))
    assert await http.send(CALL) == error
    assert events[1].meta["http_status"] == 400


@pytest.mark.parametrize(("response", "message"), [
    (httpx.Response(200, text="<html>oops</html>"),
     "HTTP 200 from http://127.0.0.1:9/mcp: the body is not JSON: '<html>oops</html>'"),
    (httpx.Response(200, text=""),
     "HTTP 200 from http://127.0.0.1:9/mcp with an empty body (expected a JSON-RPC response)"),
    (httpx.Response(404, text=""), "HTTP 404 from http://127.0.0.1:9/mcp with an empty body"),
    (httpx.Response(200, json=[1, 2]), "HTTP 200 from http://127.0.0.1:9/mcp: the body is not a JSON-RPC response"),
    (httpx.Response(200, text="data: {nope\n\n", headers={"content-type": "text/event-stream"}),
     "SSE event from http://127.0.0.1:9/mcp is not JSON: '{nope'"),
    (httpx.Response(200, text=": only a comment\n\n", headers={"content-type": "text/event-stream"}),
     "the SSE stream from http://127.0.0.1:9/mcp ended without a response to id 1"),
])
async def test_garbage_is_a_clear_transport_error(response: httpx.Response, message: str) -> None:
    http, _ = transport(lambda r: response)
    with pytest.raises(TransportError) as caught:
        await http.send(CALL)
    assert str(caught.value) == message


async def test_garbage_body_is_recorded_as_text() -> None:
    http, events = transport(lambda r: httpx.Response(502, text="Bad gateway"))
    with pytest.raises(TransportError):
        await http.send(CALL)
    assert events[-1].message == "Bad gateway" and events[-1].meta["error"] == "not JSON"


async def test_dropped_connection() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.RemoteProtocolError("Server disconnected without sending a response.")

    http, _ = transport(handler)
    with pytest.raises(TransportError, match=r"^connection to http://127.0.0.1:9/mcp dropped before a response: "
                                             r"Server disconnected without sending a response\.$"):
        await http.send(CALL)


async def test_connection_refused() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("All connection attempts failed")

    http, _ = transport(handler)
    with pytest.raises(TransportError, match=r"^cannot connect to http://127.0.0.1:9/mcp: All connection attempts"):
        await http.send(CALL)


async def test_a_silent_server_times_out_instead_of_hanging() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)
        await asyncio.sleep(30)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    http = HttpClientTransport(f"http://127.0.0.1:{port}/mcp", timeout=0.3)
    try:
        with pytest.raises(TransportError, match=rf"^no response from http://127.0.0.1:{port}/mcp within 0.3 s$"):
            await http.send(CALL)
    finally:
        await http.close()
        server.close()


def test_header_value_encoding_follows_the_spec_examples() -> None:
    assert header_value("us-west1") == "us-west1"
    assert header_value("Hello, 世界") == "=?base64?SGVsbG8sIOS4lueVjA==?="
    assert header_value(" padded ") == "=?base64?IHBhZGRlZCA=?="
    assert header_value("line1\nline2") == "=?base64?bGluZTEKbGluZTI=?="
    assert header_value("=?base64?literal?=") == "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="


def test_mcp_name_is_the_uri_for_resources_read() -> None:
    read = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "config://x", "_meta": META}}
    assert modern_headers(read) == {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read",
                                    "Mcp-Name": "config://x"}
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    assert modern_headers(listing) == {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}


async def chunks_of(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def test_sse_parser_joins_multiline_data_and_keeps_ids_across_chunks() -> None:
    parser = SseParser(1024)
    stream = chunks_of(b"event: message\r\ndata: {\"a\":\r", b"\ndata: 1}\n\nid: 4\nretry: 500\ndata: \n\n",
                       b"id: 5\rdata: x")
    events = [e async for e in parser.events(stream)]
    assert events == [SseEvent("message", '{"a":\n1}', has_data=True), SseEvent("message", "", "4", 500, True),
                      SseEvent("message", "x", "5", has_data=True)]
    assert (parser.last_event_id, parser.retry_ms) == ("5", 500)


@pytest.mark.parametrize("stream", [[b"data: " + b"x" * 2000], [b"data: " + b"x" * 600 + b"\n"] * 3 + [b"\n"]])
async def test_sse_parser_refuses_an_endless_line_or_event(stream: list[bytes]) -> None:
    with pytest.raises(SseTooLarge):
        [e async for e in SseParser(1024).events(chunks_of(*stream))]
