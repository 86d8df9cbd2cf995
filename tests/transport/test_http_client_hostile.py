"""HttpClientTransport against hostile and merely different servers on 127.0.0.1 (tests/hostile_http.py).

Each probe is bounded: endless bodies and streams end at the client's limit or deadline, floods of
server requests are answered a few at a time (the rest with an error), resumable streams are
resumed, and the legacy standalone GET stream is heard.
"""

import asyncio
from typing import Any

import pytest

from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.transport.base import BUSY, Tap, TransportError, TransportLimits, WireEvent
from mrtr_studio.transport.http_client import HttpClientTransport
from tests.hostile_http import Conn, HostileServer, Request, legacy_handshake, result, sleep_until_closed

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
MODERN_CALL = {**CALL, "params": {**CALL["params"], "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}


def client(url: str, **limits: Any) -> tuple[HttpClientTransport, list[WireEvent]]:
    events: list[WireEvent] = []
    tap = Tap()
    tap.listen(events.append)
    return HttpClientTransport(url, tap=tap, limits=TransportLimits(**limits)), events


async def send(url: str, message: dict[str, Any] = MODERN_CALL, **limits: Any) -> str:
    http, _ = client(url, **limits)
    try:
        with pytest.raises(TransportError) as caught:
            await http.send(message)
        return str(caught.value)
    finally:
        await http.close()


async def endless_json(request: Request, conn: Conn) -> None:
    await conn.start_stream("application/json")
    await conn.chunk(b'{"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "')
    while True:
        await conn.chunk(b"x" * 65536)


async def test_an_endless_json_body_stops_at_the_body_limit() -> None:
    server = HostileServer(endless_json)
    with server as url:
        message = await send(url, max_body_bytes=1024 * 1024)
    assert message == (f"HTTP 200 from {url}: the body is over the limit of 1048576 bytes (max_body_bytes); "
                       "stopped reading")


async def too_long_declared(request: Request, conn: Conn) -> None:
    await conn.raw(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n{")
    await sleep_until_closed(conn, 5)


async def test_a_declared_length_over_the_limit_is_not_read() -> None:
    with HostileServer(too_long_declared) as url:
        message = await send(url, max_body_bytes=1000)
    assert message == (f"HTTP 200 from {url}: the body of 99999999 bytes is over the limit of 1000 bytes "
                       "(max_body_bytes); not read")


async def endless_event(request: Request, conn: Conn) -> None:
    await conn.start_stream()
    await conn.chunk(b"data: ")
    while True:
        await conn.chunk(b"[1," * 20000)


async def test_an_endless_sse_event_stops_at_the_body_limit() -> None:
    with HostileServer(endless_event) as url:
        message = await send(url, max_body_bytes=100_000)
    assert message == (f"SSE stream from {url}: an SSE line of more than 100000 bytes (no line end yet) "
                       "(max_body_bytes); stopped reading")


async def drip(request: Request, conn: Conn) -> None:
    """One progress notification every 50 ms, never the response."""
    await conn.start_stream()
    for n in range(10_000):
        await conn.event({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": n}})
        await asyncio.sleep(0.05)


async def test_a_dripping_stream_ends_at_the_overall_deadline() -> None:
    with HostileServer(drip) as url:
        message = await send(url, idle_timeout=5, request_timeout=1)
    assert message.startswith(f"no complete response from {url} within the overall deadline of 1 s (")
    assert " event(s) and " in message


def legacy_stream_of_requests(count: int) -> Any:
    """A legacy server whose tools/call stream carries `count` roots/list requests, then silence."""

    async def behaviour(request: Request, conn: Conn) -> None:
        if await legacy_handshake(request, conn):
            return
        await conn.start_stream(headers={"Mcp-Session-Id": "s-1"})
        for n in range(count):
            await conn.event({"jsonrpc": "2.0", "id": f"srv-{n}", "method": "roots/list"})
        await sleep_until_closed(conn)

    return behaviour


async def test_a_burst_of_server_requests_then_silence_times_out_after_answering_them_all() -> None:
    server = HostileServer(legacy_stream_of_requests(30))
    with server as url:
        http, _ = client(url, idle_timeout=0.5)

        async def roots(request: dict[str, Any]) -> dict[str, Any]:
            return {"roots": []}

        http.on_server_request(roots)
        http.session_id = "s-1"
        try:
            with pytest.raises(TransportError) as caught:
                await http.send(CALL)
        finally:
            await http.close()
    assert str(caught.value) == f"no response from {url} within 0.5 s"
    answers = [r.json() for r in server.requests if r.method == "POST" and "result" in (r.json() or {})]
    assert sorted(a["id"] for a in answers) == sorted(f"srv-{n}" for n in range(30))


async def test_a_flood_of_server_requests_is_answered_a_few_at_a_time_and_the_rest_refused() -> None:
    server = HostileServer(legacy_stream_of_requests(10_000))
    running = 0
    most = 0
    release = asyncio.Event()

    async def slow(request: dict[str, Any]) -> dict[str, Any]:
        nonlocal running, most
        running += 1
        most = max(most, running)
        try:
            await release.wait()  # a person who never answers
            return {"roots": []}
        finally:
            running -= 1

    with server as url:
        http, _ = client(url, request_timeout=2, max_concurrent_answers=3, max_waiting_answers=5)
        http.on_server_request(slow)
        http.session_id = "s-1"
        try:
            with pytest.raises(TransportError) as caught:
                await http.send(CALL)
        finally:
            await http.close()
    assert str(caught.value).startswith(f"no complete response from {url} within the overall deadline of 2 s")
    assert most == 3
    refused = [r.json() for r in server.requests if r.method == "POST" and "error" in (r.json() or {})]
    assert refused and all(r["error"] == {"code": -32603, "message": BUSY} for r in refused)


def resumable(retry_ms: int = 300) -> tuple[Any, list[tuple[str, str | None, float]]]:
    """A 2025-11-25 server with resumability: a priming event, the stream closed, the answer on GET."""
    seen: list[tuple[str, str | None, float]] = []

    async def behaviour(request: Request, conn: Conn) -> None:
        now = asyncio.get_running_loop().time()
        if request.method == "GET":
            seen.append(("GET", request.headers.get("last-event-id"), now))
            if request.headers.get("last-event-id") != "e1":
                await conn.empty(405)
                return
            await conn.start_stream(headers={"Mcp-Session-Id": "s-1"})
            await conn.event(None, event_id="e2", retry=retry_ms)
            await conn.event(result(1, content=[{"type": "text", "text": "resumed"}]), event_id="e3")
            await sleep_until_closed(conn)
            return
        if await legacy_handshake(request, conn):
            return
        await conn.start_stream(headers={"Mcp-Session-Id": "s-1"})
        await conn.event(None, event_id="e1", retry=retry_ms)
        # Stamped before the close: the client cannot see the stream end earlier than this.
        seen.append(("closed", None, asyncio.get_running_loop().time()))
        await conn.end()

    return behaviour, seen


async def test_a_priming_event_is_kept_and_a_closed_stream_resumed_with_last_event_id() -> None:
    behaviour, seen = resumable()
    with HostileServer(behaviour) as url:
        http, events = client(url)
        http.session_id = "s-1"
        try:
            reply = await http.send(CALL)
        finally:
            await http.close()
    assert reply == result(1, content=[{"type": "text", "text": "resumed"}])
    (_, _, closed), (method, last_id, reconnected) = seen
    assert (method, last_id) == ("GET", "e1")
    assert reconnected - closed >= 0.29  # the server's retry (300 ms) was honoured
    assert events[-1].meta.get("resumed") is True and events[-1].meta.get("event_id") == "e3"


async def closes_without_ids(request: Request, conn: Conn) -> None:
    await conn.start_stream()
    await conn.event({"jsonrpc": "2.0", "method": "notifications/message", "params": {}})
    await conn.end()
    conn.keep_open = False


async def test_a_stream_without_event_ids_that_closes_early_is_a_clear_error() -> None:
    with HostileServer(closes_without_ids) as url:
        message = await send(url)
    assert message == f"the SSE stream from {url} ended without a response to id 1"


def standalone_get_server() -> tuple[Any, dict[str, Any]]:
    """Like the official TypeScript SDK's `elicitInput`: the request travels on the standalone GET stream."""
    state: dict[str, Any] = {"stream": None, "answer": None}
    answered = asyncio.Event()

    async def behaviour(request: Request, conn: Conn) -> None:
        if request.method == "GET":
            await conn.start_stream(headers={"Mcp-Session-Id": "s-1"})
            await conn.event(None, event_id="g0")  # a priming event on the GET stream too
            state["stream"] = conn
            await sleep_until_closed(conn)
            return
        if request.method == "DELETE":
            await conn.empty(200)
            return
        message = request.json()
        if message.get("method") == "initialize":
            await conn.json(result(message["id"], protocolVersion="2025-11-25", capabilities={},
                                   serverInfo={"name": "ts-like", "version": "1"}), headers={"Mcp-Session-Id": "s-1"})
        elif message.get("id") == "ask-1" and "method" not in message:
            state["answer"] = message
            answered.set()
            await conn.empty(202)
        elif "id" not in message:
            await conn.empty(202)
        elif message.get("method") == "tools/call":
            stream = state["stream"]
            if stream is None:  # no GET stream: the request is dropped, as the SDK does
                await sleep_until_closed(conn)
                return
            await stream.event({"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create", "params": {
                "message": "name?", "requestedSchema": {"type": "object", "properties": {
                    "name": {"type": "string", "default": "Ada"}}}}})
            await asyncio.wait_for(answered.wait(), 10)
            content = state["answer"]["result"].get("content")
            await conn.json(result(message["id"], content=[{"type": "text", "text": f"hello {content['name']}"}]))
        else:
            await conn.json(result(message["id"]))

    return behaviour, state


async def test_requests_on_the_standalone_get_stream_are_heard_and_answered() -> None:
    behaviour, state = standalone_get_server()
    server = HostileServer(behaviour)
    with server as url:
        http = HttpClientTransport(url, limits=TransportLimits(idle_timeout=10))
        defaults = R.compose(elicitation=R.from_callback(R.schema_defaults))
        session = ClientSession(http, ClientSettings(era="legacy"), defaults)
        try:
            run = await session.run("tools/call", "greet", {})
        finally:
            await session.close()
    assert run.drive.outcome == "complete", run.drive.problem
    assert run.drive.result == {"content": [{"type": "text", "text": "hello Ada"}]}
    assert http.listening == "open"
    assert state["answer"]["result"] == {"action": "accept", "content": {"name": "Ada"}}
    kinds = [m.kind for m in session.store.messages_of(run.operation.id)]
    assert kinds == ["request", "server_request", "client_response", "complete"]
    get = next(r for r in server.requests if r.method == "GET")
    assert get.headers["mcp-session-id"] == "s-1" and get.headers["accept"] == "text/event-stream"


async def test_a_server_without_a_get_stream_is_noted_and_calls_still_work() -> None:
    async def behaviour(request: Request, conn: Conn) -> None:
        if not await legacy_handshake(request, conn):
            await conn.json(result(request.json()["id"], content=[]))

    with HostileServer(behaviour) as url:
        http = HttpClientTransport(url)
        session = ClientSession(http, ClientSettings(era="legacy"), R.table({}))
        try:
            run = await session.run("tools/call", "t", {})
        finally:
            await session.close()
    assert run.drive.outcome == "complete"
    assert http.listening == "refused (HTTP 405)"


async def test_the_idle_window_waits_while_the_client_answers_and_restarts_after() -> None:
    """A person may take longer than the idle timeout to answer; the server's own silence after that may not."""
    answered = asyncio.Event()

    async def behaviour(request: Request, conn: Conn) -> None:
        if await legacy_handshake(request, conn):
            if (request.json() or {}).get("id") == "srv-0":
                answered.set()
            return
        await conn.start_stream(headers={"Mcp-Session-Id": "s-1"})
        await conn.event({"jsonrpc": "2.0", "id": "srv-0", "method": "roots/list"})
        await answered.wait()
        await conn.event(result(request.json()["id"], content=[]))
        await conn.end()

    async def slow_person(request: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(1.0)  # more than three idle windows
        return {"roots": []}

    with HostileServer(behaviour) as url:
        http, _ = client(url, idle_timeout=0.3)
        http.session_id = "s-1"
        http.on_server_request(slow_person)
        try:
            assert await http.send(CALL) == result(1, content=[])
        finally:
            await http.close()


async def test_a_standalone_stream_closed_by_the_server_is_reopened_with_last_event_id() -> None:
    """SEP-1699 polling: the server ends its GET stream; the client comes back after `retry`, resuming."""
    gets: list[str | None] = []
    answered = asyncio.Event()

    async def behaviour(request: Request, conn: Conn) -> None:
        if request.method == "GET":
            gets.append(request.headers.get("last-event-id"))
            await conn.start_stream(headers={"Mcp-Session-Id": "s-1"})
            if len(gets) == 1:
                await conn.event(None, event_id="g1", retry=100)
                await conn.end()
                return
            await conn.event({"jsonrpc": "2.0", "id": "ask-1", "method": "roots/list"}, event_id="g2")
            await sleep_until_closed(conn)
            return
        if await legacy_handshake(request, conn):
            if (request.json() or {}).get("id") == "ask-1":
                answered.set()
            return
        await asyncio.wait_for(answered.wait(), 10)
        await conn.json(result(request.json()["id"], content=[]))

    with HostileServer(behaviour) as url:
        http = HttpClientTransport(url, limits=TransportLimits(idle_timeout=10))
        session = ClientSession(http, ClientSettings(era="legacy"), R.compose(roots=R.RootsList.of([])))
        try:
            run = await session.run("tools/call", "t", {})
        finally:
            await session.close()
    assert run.drive.outcome == "complete", run.drive.problem
    assert gets == [None, "g1"]
    assert http.listening == "open"
