"""The stitcher between a real pair: flows with byte-identical states stitched by their session, every
message recorded (the handshake in the session's operation), a 401 recorded as refused, and the
capability lint fed by the recorded initialize in the legacy era."""

import asyncio
from typing import Any

import httpx
import pytest

from mrtr_studio.protocol.versions import META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, MODERN_VERSION
from mrtr_studio.proxy.http_proxy import ProxyApp
from mrtr_studio.proxy.recording import Recording
from mrtr_studio.proxy.stitch import Stitcher
from mrtr_studio.trace import TraceStore, lint
from mrtr_studio.trace.model import outcome_text
from mrtr_studio.transport.base import WireEvent
from tests.proxy.test_http_proxy import hosted

META = {META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_CAPABILITIES: {"elicitation": {}}}
ASK = {"confirm": {"method": "elicitation/create", "params": {"message": "Sure?", "requestedSchema": {
    "type": "object", "properties": {"ok": {"type": "boolean"}}}}}}


def heard(stitcher: Stitcher, direction: str, message: Any, exchange: Any, session: str | None = None,
          **meta: Any) -> None:
    headers = {"mcp-session-id": session} if session else {}
    stitcher(WireEvent(direction, message, {"exchange": exchange, "request_headers": headers, **meta}))  # type: ignore[arg-type]


def call(number: int, **extra: Any) -> dict[str, Any]:
    params = {"name": "deploy", "arguments": {"env": "prod"}, "_meta": META, **extra}
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}


def test_six_concurrent_flows_with_identical_states_each_take_their_own_retries() -> None:
    store = TraceStore()
    lint.attach(store)
    stitch = Stitcher(store, "upstream", "proxied")
    same = "eyJzdGF0ZSI6ImlkZW50aWNhbCJ9"  # a codec without a nonce: six calls, one state
    asked = {"resultType": "input_required", "inputRequests": ASK, "requestState": same}
    sessions = [f"s-{n}" for n in range(6)]
    for n, session in enumerate(sessions):  # six first rounds, all open at once
        heard(stitch, "client->server", call(1), ("first", n), session)
    for n, session in enumerate(sessions):
        heard(stitch, "server->client", {"jsonrpc": "2.0", "id": 1, "result": asked}, ("first", n), session)
    answers = {"confirm": {"action": "accept", "content": {"ok": True}}}
    for n, session in reversed(list(enumerate(sessions))):  # the retries arrive in another order
        heard(stitch, "client->server", call(2, inputResponses=answers, requestState=same), ("retry", n), session)
    for n, session in enumerate(sessions):
        text = [{"type": "text", "text": session}]
        done = {"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "content": text}}
        heard(stitch, "server->client", done, ("retry", n), session)
    assert [(op.rounds, op.outcome) for op in store.operations] == [(2, "complete")] * 6
    for op in store.operations:  # each operation holds one session's four messages and nothing else
        messages = store.messages_of(op.id)
        assert [(m.round, m.kind) for m in messages] == [(1, "request"), (1, "input_required"), (2, "request"),
                                                         (2, "complete")]
        assert len({m.transport["request_headers"]["mcp-session-id"] for m in messages}) == 1
        assert messages[-1].message["result"]["content"][0]["text"] == \
            messages[0].transport["request_headers"]["mcp-session-id"]
    assert [f.rule for m in store.messages for f in m.findings if f.severity != "info"] == []


def test_the_same_state_on_one_connection_goes_by_connection_then_oldest_first() -> None:
    store = TraceStore()
    stitch = Stitcher(store, "upstream")
    same = "S"
    for n in range(3):
        heard(stitch, "client->server", call(10 + n), n, peer=f"127.0.0.1:{5000 + n}")
        heard(stitch, "server->client", {"jsonrpc": "2.0", "id": 10 + n, "result": {
            "resultType": "input_required", "requestState": same}}, n, peer=f"127.0.0.1:{5000 + n}")
    heard(stitch, "client->server", call(22, requestState=same), "r2", peer="127.0.0.1:5002")
    heard(stitch, "client->server", call(20, requestState=same), "r0", peer="127.0.0.1:9999")  # a new connection
    heard(stitch, "client->server", call(21, requestState=same), "r1", peer="127.0.0.1:9998")
    ids = [[m.jsonrpc_id for m in store.messages_of(op.id) if m.kind == "request"] for op in store.operations]
    assert ids == [[10, 20], [11, 21], [12, 22]]


def test_the_handshake_and_listings_are_recorded_in_the_session_operation() -> None:
    store = TraceStore()
    stitch = Stitcher(store, "upstream", "proxied")
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
    heard(stitch, "client->server", init, 1)
    heard(stitch, "server->client", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25"}}, 1,
          response_session="abc")
    heard(stitch, "client->server", {"jsonrpc": "2.0", "method": "notifications/initialized"}, 2, "abc")
    heard(stitch, "client->server", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, 3, "abc")
    heard(stitch, "server->client", {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}, 3, "abc")
    (session,) = store.operations
    assert (session.method, session.target, session.era, session.rounds, session.outcome, session.label) == \
        ("session", "abc", "legacy", 2, "complete", "proxied: session")
    assert [(m.round, m.kind, m.method_name) for m in store.messages_of(session.id)] == [
        (1, "request", "initialize"), (1, "complete", "initialize"), (1, "notification", "notifications/initialized"),
        (2, "request", "tools/list"), (2, "complete", "tools/list")]
    assert all("response_session" not in m.transport for m in store.messages)


def test_a_legacy_server_asking_for_an_undeclared_capability_is_flagged() -> None:
    """FastMCP pushing elicitation/create to a client (the Inspector) whose initialize declared none."""
    store = TraceStore()
    lint.attach(store)
    stitch = Stitcher(store, "upstream")
    for session, caps in (("bare", {"roots": {}}), ("asks", {"elicitation": {}})):
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": {"name": "c", "version": "1"}}}
        heard(stitch, "client->server", init, ("init", session))
        heard(stitch, "server->client", {"jsonrpc": "2.0", "id": 0, "result": {}}, ("init", session),
              response_session=session)
        legacy = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "rm", "arguments": {}}}
        heard(stitch, "client->server", legacy, ("call", session), session)
        question = {"jsonrpc": "2.0", "id": "q", "method": "elicitation/create", "params": ASK["confirm"]["params"]}
        heard(stitch, "server->client", question, ("call", session), session)
    flagged = [(store.operation(m.operation_id).target, m.method, f.rule) for m in store.messages
               for f in m.findings if f.rule == lint.CAPABILITY_NOT_DECLARED]
    assert flagged == [("rm", "elicitation/create", lint.CAPABILITY_NOT_DECLARED)]
    (finding,) = [f for m in store.messages for f in m.findings if f.rule == lint.CAPABILITY_NOT_DECLARED]
    assert '{"elicitation":{}}' in finding.message and "initialize" in finding.message


def test_a_reused_id_ends_the_flow_through_the_machine() -> None:
    store = TraceStore()
    lint.attach(store)
    stitch = Stitcher(store, "upstream")
    heard(stitch, "client->server", call(1), 1)
    heard(stitch, "server->client", {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required", "inputRequests": ASK, "requestState": "x"}}, 1)
    heard(stitch, "client->server", call(1, requestState="x", inputResponses={}), 2)
    heard(stitch, "server->client", {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}, 2)
    (op,) = store.operations
    assert (op.rounds, op.outcome) == (2, "protocol_error") and "reuses JSON-RPC id 1" in (op.problem or "")
    assert [f.rule for m in store.messages for f in m.findings if f.rule == lint.REUSED_ID] == [lint.REUSED_ID]


class Refusing:
    """An OAuth-protected upstream with no token: 401, an empty body or an OAuth error object."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        headers = [(b"www-authenticate", b'Bearer resource_metadata="http://127.0.0.1/.well-known/x"')]
        if self.body:
            headers.append((b"content-type", b"application/json"))
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": self.body})


@pytest.mark.anyio
@pytest.mark.timeout(30)
@pytest.mark.parametrize("body", [b"", b'{"error":"invalid_token","error_description":"no token"}'])
async def test_a_call_refused_with_401_is_recorded_refused(body: bytes) -> None:
    recording = Recording("upstream", "proxied")
    async with hosted(Refusing(body)) as upstream_url:
        app = ProxyApp(upstream_url, recording.tap)
        async with hosted(app) as proxy_url, httpx.AsyncClient() as http:
            reply = await http.post(proxy_url, json=call(1))
            await asyncio.sleep(0)
            await app.aclose()
    assert reply.status_code == 401
    (op,) = recording.store.operations
    assert op.outcome == "refused" and outcome_text(op) == "refused (HTTP 401)"
    assert [m.kind for m in recording.store.messages_of(op.id)] == ["request", "invalid" if not body else "error"]
    if body:
        assert op.problem == "HTTP 401: invalid_token"


class EndpointStream:
    """A legacy HTTP+SSE server's GET /sse: the endpoint event, then the stream ends."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        await send({"type": "http.response.body", "body": b"event: endpoint\ndata: /messages?sessionId=abc\n\n"})


@pytest.mark.anyio
@pytest.mark.timeout(30)
async def test_with_breakpoints_on_the_legacy_sse_endpoint_event_keeps_its_name() -> None:
    recording = Recording("upstream", "proxied")
    async with hosted(EndpointStream()) as upstream_url:
        app = ProxyApp(upstream_url, recording.tap)
        app.intercept.set_enabled(True)  # a non-JSON frame passes its breakpoint untouched
        async with hosted(app) as proxy_url, httpx.AsyncClient() as http:
            reply = await http.get(proxy_url.rstrip("/") + "/sse")
            await app.aclose()
    assert "event: endpoint\ndata: /messages?sessionId=abc\n" in reply.text
    (session,) = recording.store.operations
    (noted,) = recording.store.messages_of(session.id)
    assert noted.transport["sse_event"] == "endpoint" and noted.message == "/messages?sessionId=***"
