"""The reverse proxy relays SSE as it arrives (not buffered), forwards end-to-end headers and drops
hop-by-hop ones, passes statuses and session ids through, and records each message once."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from mrtr_studio.proxy.http_proxy import ProxyApp, forwardable
from mrtr_studio.proxy.recording import Recording
from mrtr_studio.transport.http_host import bind, make_server, stop, url_of, wait_started

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(30)]


@contextlib.asynccontextmanager
async def hosted(app: Any) -> AsyncIterator[str]:
    sock = bind("127.0.0.1", 0)
    uv = make_server(app)
    task = asyncio.create_task(uv.serve(sockets=[sock]))
    await wait_started(uv, task)
    try:
        yield url_of(sock)
    finally:
        await stop(uv, task)
        sock.close()


class Upstream:
    """Answers a POST with an SSE stream: one notification, then (once released) the response."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.seen_headers: dict[str, str] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.seen_headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = orjson.loads(body)
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"text/event-stream"), (b"mcp-session-id", b"sess-1"), (b"x-upstream", b"yes"),
            (b"connection", b"x-private"), (b"x-private", b"hop"), (b"keep-alive", b"timeout=5")]})
        note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}
        await send({"type": "http.response.body", "body": b"data: " + orjson.dumps(note) + b"\n\n",
                    "more_body": True})
        await self.release.wait()
        done = {"jsonrpc": "2.0", "id": request["id"], "result": {"content": []}}
        await send({"type": "http.response.body", "body": b"data: " + orjson.dumps(done) + b"\n\n"})


async def test_sse_is_relayed_as_it_arrives_and_headers_are_filtered() -> None:
    upstream = Upstream()
    recording = Recording("upstream", "proxied")
    async with hosted(upstream) as upstream_url:
        app = ProxyApp(upstream_url, recording.tap)
        async with hosted(app) as proxy_url, httpx.AsyncClient() as http:
            request = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
            headers = {"x-trace": "abc", "connection": "x-secret", "x-secret": "1", "authorization": "Bearer tok"}
            async with http.stream("POST", proxy_url, json=request, headers=headers) as response:
                lines = response.aiter_lines()
                first = await asyncio.wait_for(anext(lines), 10)  # arrives while the upstream still holds
                assert first.startswith("data: ") and "notifications/progress" in first
                upstream.release.set()
                rest = [line async for line in lines]
            await app.aclose()
    assert response.headers["mcp-session-id"] == "sess-1" and response.headers["x-upstream"] == "yes"
    assert "x-private" not in response.headers and "keep-alive" not in response.headers
    seen = upstream.seen_headers
    assert seen["x-trace"] == "abc" and seen["authorization"] == "Bearer tok"
    assert "x-secret" not in seen and seen["accept-encoding"] == "identity"
    assert any('"id":7' in line for line in rest)
    (op,) = recording.store.operations
    kinds = [(m.direction, m.kind) for m in recording.store.messages_of(op.id)]
    assert kinds == [("client->server", "request"), ("server->client", "notification"),
                     ("server->client", "complete")]
    request_entry = recording.store.messages_of(op.id)[0]
    assert request_entry.transport["request_headers"]["authorization"] == "Bearer ***"


async def test_an_unreachable_upstream_is_a_502_with_a_json_rpc_error() -> None:
    recording = Recording("upstream", "proxied")
    app = ProxyApp("http://127.0.0.1:9/mcp", recording.tap)
    async with hosted(app) as proxy_url, httpx.AsyncClient() as http:
        reply = await http.post(proxy_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    await app.aclose()
    assert reply.status_code == 502
    assert reply.json()["error"]["code"] == -32001 and "cannot reach" in reply.json()["error"]["message"]


def test_forwardable_drops_hop_by_hop_and_what_connection_names() -> None:
    kept = forwardable([(b"Connection", b"close, X-Drop"), (b"X-Drop", b"1"), (b"TE", b"trailers"),
                        (b"Host", b"a"), (b"Content-Length", b"3"), (b"Mcp-Session-Id", b"s"), (b"X-Keep", b"2")])
    assert kept == [(b"Mcp-Session-Id", b"s"), (b"X-Keep", b"2")]


async def test_breakpoints_hold_edit_and_drop_messages_from_either_side() -> None:
    """Intercept on: the request is held and edited (its arguments), the response held and forwarded;
    a dropped request is answered by the proxy with an error for its id, and never reaches the server."""
    from mrtr_studio.studio.controller import Studio

    server = Studio()
    served = await server.start_serving()
    recording = Recording("upstream", "proxied")
    app = ProxyApp(served, recording.tap)
    app.intercept.set_enabled(True)
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "delete_file",
               "Accept": "application/json, text/event-stream"}
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "delete_file", "arguments": {"path": "/a"}, "_meta": meta}}

    async def decide(edit: bool) -> None:
        while not [h for h in app.intercept.held if not h.future.done()]:
            await asyncio.sleep(0.01)
        held = next(h for h in app.intercept.held if not h.future.done())
        if held.direction == "client->server" and edit:
            changed = {**held.message, "params": {**held.message["params"], "arguments": {"path": "/edited"}}}
            app.intercept.forward(held, changed)
        elif edit:
            app.intercept.forward(held)
        else:
            app.intercept.drop(held)

    try:
        async with hosted(app) as proxy_url, httpx.AsyncClient() as http:
            posting = asyncio.create_task(http.post(proxy_url, json=call, headers=headers))
            await decide(edit=True)  # the request
            await decide(edit=True)  # the response
            reply = (await posting).json()
            dropped = asyncio.create_task(http.post(proxy_url, json={**call, "id": 2}, headers=headers))
            await decide(edit=False)
            refused = await dropped
            await app.aclose()
    finally:
        await server.close()
    assert reply["result"]["resultType"] == "input_required"
    assert refused.status_code == 502 and refused.json()["error"]["message"].startswith("dropped at a breakpoint")
    assert refused.json()["id"] == 2
    (edited, dropped_op) = recording.store.operations
    assert edited.arguments == {"path": "/edited"}  # what was recorded is what the server got
    upstream_ops = [op for op in server.store.operations]
    assert [op.arguments for op in upstream_ops] == [{"path": "/edited"}]  # the dropped one never arrived
    assert dropped_op.outcome == "error"


async def test_breakpoints_on_an_sse_stream_re_frame_each_event() -> None:
    upstream = Upstream()
    recording = Recording("upstream", "proxied")
    async with hosted(upstream) as upstream_url:
        app = ProxyApp(upstream_url, recording.tap)
        app.intercept.set_enabled(True)

        async def release_all() -> None:
            upstream.release.set()
            released = 0
            while released < 3:  # the request, the notification, the response
                for held in [h for h in app.intercept.held if not h.future.done()]:
                    if held.message.get("method") == "notifications/progress":
                        app.intercept.drop(held)
                    else:
                        app.intercept.forward(held)
                    released += 1
                await asyncio.sleep(0.01)

        async with hosted(app) as proxy_url, httpx.AsyncClient() as http:
            request = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
            releasing = asyncio.create_task(release_all())
            reply = await http.post(proxy_url, json=request)
            await releasing
            await app.aclose()
    events = [line for line in reply.text.splitlines() if line.startswith("data: ")]
    assert len(events) == 1 and '"id":9' in events[0]  # the dropped notification never reached the client
    (op,) = recording.store.operations
    kept = recording.store.messages_of(op.id)
    assert [m.kind for m in kept] == ["request", "invalid", "complete"]  # the dropped one is noted as text
    assert kept[1].transport["error"] == "dropped at a breakpoint" and "notifications/progress" in kept[1].message
