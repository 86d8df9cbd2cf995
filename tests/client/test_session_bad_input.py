"""ClientSession over broken servers: every failure ends in the trace with a clear reason, never a hang."""

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.protocol.versions import Era
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.trace import lint
from mrtr_studio.transport.base import ServerRequestHandler, Tap
from mrtr_studio.transport.http_client import HttpClientTransport
from mrtr_studio.transport.memory import MemoryTransport

pytestmark = pytest.mark.anyio
RESPOND = R.table({"*": {"action": "accept", "content": {"confirm": True}}})


class Scripted:
    """A transport whose server is a function of the request (no engine, no sockets)."""

    def __init__(self, server: Callable[[dict[str, Any]], Any]) -> None:
        self.tap = Tap()
        self.server = server
        self.sent: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> dict[str, Any] | None:
        self.sent.append(message)
        self.tap.emit("client->server", message, transport="scripted")
        reply = self.server(message)
        if reply is not None:
            self.tap.emit("server->client", reply, transport="scripted")
        return reply

    def on_server_request(self, handler: ServerRequestHandler) -> None:
        pass

    async def close(self) -> None:
        pass


def over_http(handler: Callable[[httpx.Request], httpx.Response], **settings: Any) -> ClientSession:
    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    http = HttpClientTransport("http://127.0.0.1:9/mcp", client=client)
    session = ClientSession(http, ClientSettings(era="modern", **settings), RESPOND)
    lint.attach(session.store)
    return session


async def test_garbage_body_is_recorded_and_the_operation_fails_clearly() -> None:
    session = over_http(lambda r: httpx.Response(200, text="Internal Server Error"))
    run = await session.run("tools/call", "x", {})
    assert run.operation.outcome == "transport_error"
    assert run.operation.problem == ("TransportError: HTTP 200 from http://127.0.0.1:9/mcp: the body is not JSON: "
                                     "'Internal Server Error'")
    reply = session.store.messages_of(run.operation.id)[-1]
    assert (reply.kind, reply.message) == ("invalid", "Internal Server Error")
    assert [f.rule for f in reply.findings] == ["schema-invalid"]


async def test_dropped_connection_mid_flow_keeps_the_completed_round() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        calls.append(body["id"])
        if len(calls) == 1:
            return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": {
                "resultType": "input_required", "requestState": "s"}})
        raise httpx.RemoteProtocolError("peer closed connection")

    session = over_http(handler)
    run = await session.run("tools/call", "x", {})
    assert run.operation.outcome == "transport_error"
    assert run.operation.problem == ("TransportError: connection to http://127.0.0.1:9/mcp dropped before a "
                                     "response: peer closed connection")
    assert [(m.round, m.kind) for m in session.store.messages_of(run.operation.id)] == [
        (1, "request"), (1, "input_required"), (2, "request")]


async def test_unknown_result_type_is_a_protocol_error_with_a_finding() -> None:
    session = over_http(lambda r: httpx.Response(200, json={"jsonrpc": "2.0", "id": json.loads(r.content)["id"],
                                                            "result": {"resultType": "later"}}))
    run = await session.run("tools/call", "x", {})
    assert (run.operation.outcome, run.operation.problem) == ("protocol_error", "unknown resultType 'later'")
    rules = [f.rule for f in session.store.messages_of(run.operation.id)[-1].findings]
    assert "unknown-result-type" in rules


async def test_more_rounds_than_the_limit() -> None:
    session = ClientSession(MemoryTransport(build_demo_server()), ClientSettings(max_rounds=2), RESPOND)
    run = await session.run("tools/call", "deploy_wizard", {})
    assert (run.operation.outcome, run.operation.problem) == (
        "round_limit", "still input_required after 2 rounds (the round limit)")
    assert run.operation.rounds == 2


async def test_step_mode_edits_reach_the_wire_and_stop_ends_the_operation() -> None:
    session = ClientSession(MemoryTransport(build_demo_server()), ClientSettings(), RESPOND)
    seen: list[int] = []

    async def step(message: dict[str, Any], round_number: int) -> dict[str, Any] | None:
        seen.append(round_number)
        if round_number == 2:
            message["params"]["inputResponses"] = {"confirm": {"action": "decline"}}
        return message

    run = await session.run("tools/call", "delete_file", {"path": "/a"}, step=step)
    assert seen == [1, 2]
    assert run.drive.result is not None and run.drive.result["content"][0]["text"] == "Operation cancelled"

    async def stop(message: dict[str, Any], round_number: int) -> None:
        return None

    stopped = await session.run("tools/call", "delete_file", {"path": "/a"}, step=stop)
    assert (stopped.operation.outcome, stopped.operation.problem) == ("aborted", "stopped before the first send")


@pytest.mark.parametrize("discover", [{"error": {"code": -32601, "message": "Method not found"}}, {"result": {}}])
async def test_auto_falls_back_to_legacy_on_a_non_modern_error(discover: dict[str, Any]) -> None:
    """A method-not-found, or a bare `{}` from a server that answers every method alike, is not a DiscoverResult."""

    def legacy_server(message: dict[str, Any]) -> dict[str, Any] | None:
        if "id" not in message:
            return None
        if message["method"] == "server/discover":
            return {"jsonrpc": "2.0", "id": message["id"], **discover}
        if message["method"] == "initialize":
            return {"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "old", "version": "1"}}}
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"content": []}}

    transport = Scripted(legacy_server)
    session = ClientSession(transport, ClientSettings(era="auto"), RESPOND)
    assert await session.ensure_era() is Era.LEGACY
    assert session.legacy_version == "2025-06-18"
    run = await session.run("tools/call", "x", {})
    assert run.drive.ok
    assert [m["method"] for m in transport.sent] == ["server/discover", "initialize", "notifications/initialized",
                                                     "tools/call"]
    assert "_meta" not in transport.sent[-1]["params"]


async def test_auto_stays_modern_on_a_modern_error() -> None:
    def modern_server(message: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": message["id"], "error": {
            "code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"]}}}

    session = ClientSession(Scripted(modern_server), ClientSettings(era="auto"), RESPOND)
    assert await session.ensure_era() is Era.MODERN


async def test_auto_uses_the_handshake_when_the_server_lists_only_legacy_versions() -> None:
    def picky_server(message: dict[str, Any]) -> dict[str, Any] | None:
        if "id" not in message:
            return None
        if message["method"] == "server/discover":
            return {"jsonrpc": "2.0", "id": message["id"], "error": {
                "code": -32022, "message": "Unsupported protocol version",
                "data": {"supported": ["2027-01-01", "2025-11-25"], "requested": "2026-07-28"}}}
        return {"jsonrpc": "2.0", "id": message["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "dual", "version": "1"}}}

    transport = Scripted(picky_server)
    session = ClientSession(transport, ClientSettings(era="auto"), RESPOND)
    assert await session.ensure_era() is Era.LEGACY
    assert [m["method"] for m in transport.sent] == ["server/discover", "initialize", "notifications/initialized"]


@pytest.mark.parametrize(("listing", "problem"), [
    ({"error": "boom"}, "tools/list: the server's error is 'boom', not an object"),
    ({"result": 5}, "tools/list: the result is 5, not an object"),
    ({"result": {"tools": 5}}, "tools/list: tools is not a list of objects"),
])
async def test_a_broken_listing_is_a_clear_error(listing: dict[str, Any], problem: str) -> None:
    session = ClientSession(Scripted(lambda m: {"jsonrpc": "2.0", "id": m["id"], **listing}),
                            ClientSettings(era="modern"), RESPOND)
    with pytest.raises(RuntimeError) as caught:
        await session.list_tools()
    assert str(caught.value) == problem
