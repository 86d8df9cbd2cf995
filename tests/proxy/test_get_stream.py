"""A legacy (2025-11-25) server that asks its question on the standalone GET stream, as the TypeScript
SDK's `elicitInput` does: through `mrtr-studio proxy` the recorded trace keeps the server request and
the client's answer inside the call they belong to."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mrtr_studio.proxy.stitch import Stitcher
from mrtr_studio.trace import TraceStore
from mrtr_studio.transport.base import WireEvent
from tests.hostile_http import Conn, HostileServer, Request, legacy_handshake, result, sleep_until_closed
from tests.interop.proxy_process import proxy

pytestmark = [pytest.mark.timeout(90)]

QUESTION = {"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create", "params": {
    "message": "Delete it?", "requestedSchema": {
        "type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}}}


class GetStreamAsker:
    """Answers tools/call on the POST's SSE stream only after the client answered the question it sent
    on the standalone GET stream."""

    def __init__(self) -> None:
        self.events: dict[str, asyncio.Event] = {}
        self.get_stream: Conn | None = None
        self.answer: Any = None

    def event(self, name: str) -> asyncio.Event:
        return self.events.setdefault(name, asyncio.Event())  # created on the server's own loop

    async def __call__(self, request: Request, conn: Conn) -> None:
        if request.method == "GET":
            await conn.start_stream(headers={"Mcp-Session-Id": "s-1"})
            self.get_stream = conn
            self.event("get").set()
            await sleep_until_closed(conn)
            return
        message = request.json() if request.method == "POST" else None
        if isinstance(message, dict) and message.get("id") == QUESTION["id"] and "method" not in message:
            self.answer = message
            await conn.empty(202)
            self.event("answered").set()
            return
        if await legacy_handshake(request, conn):
            return
        if message.get("method") == "tools/list":
            await conn.json(result(message["id"], tools=[{"name": "ask", "inputSchema": {"type": "object"}}]))
            return
        if message.get("method") != "tools/call":
            await conn.json({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})
            return
        await asyncio.wait_for(self.event("get").wait(), 15)
        await conn.start_stream()
        assert self.get_stream is not None
        await self.get_stream.event(QUESTION)
        await asyncio.wait_for(self.event("answered").wait(), 15)
        confirmed = self.answer.get("result", {}).get("content", {}).get("confirm")
        await conn.event(result(message["id"], content=[{"type": "text", "text": f"confirm={confirmed}"}]))
        await conn.end()


def test_a_question_on_the_get_stream_is_recorded_inside_its_call(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"*": {"action": "accept", "content": {"confirm": True}}}))
    asker = GetStreamAsker()
    with HostileServer(asker) as upstream, proxy(upstream, tmp_path / "run.mrtr.json") as proxied:
        done = subprocess.run([sys.executable, "-m", "mrtr_studio", "call", proxied.url, "--era", "legacy",
                               "--tool", "ask", "--answers", str(answers), "--json"],
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        proxied.stop()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["content"] == [{"type": "text", "text": "confirm=True"}]
    session, op = proxied.store.operations
    assert (op.method, op.target, op.era, op.outcome) == ("tools/call", "ask", "legacy", "complete")
    # the handshake and the listing are recorded too, in the session's operation, named by its id
    assert (session.method, session.target, session.era, session.outcome) == ("session", "s-1", "legacy", "complete")
    handshake = [m.method_name for m in proxied.store.messages_of(session.id)]
    assert handshake[:3] == ["initialize", "initialize", "notifications/initialized"]
    kinds = [(m.direction, m.kind) for m in proxied.store.messages_of(op.id)]
    assert kinds == [("client->server", "request"), ("server->client", "server_request"),
                     ("client->server", "client_response"), ("server->client", "complete")]
    asked = proxied.store.messages_of(op.id)[1]
    assert asked.message["id"] == "ask-1" and asked.transport["http_method"] == "GET"


def _call(number: int, name: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": name, "arguments": {}}}


def _heard(stitcher: Stitcher, direction: str, message: dict[str, Any], exchange: int, session: str,
           **meta: Any) -> None:
    stitcher(WireEvent(direction, message, {"exchange": exchange, "request_headers": {"mcp-session-id": session},
                                            **meta}))  # type: ignore[arg-type]


def test_stitching_rules_for_the_get_stream_and_client_notifications() -> None:
    store = TraceStore()
    stitcher = Stitcher(store, "upstream", "proxied")
    get = {"http_method": "GET"}
    _heard(stitcher, "server->client", {"jsonrpc": "2.0", "id": 0, "error": {"code": -32000, "message": "405"}},
           1, "s-1", **get)  # a refused GET's error body is not a stream message
    _heard(stitcher, "server->client", QUESTION, 1, "s-1", **get)  # nothing in flight: an operation of its own
    _heard(stitcher, "client->server", {"jsonrpc": "2.0", "id": "ask-1", "result": {"action": "decline"}}, 2, "s-1")
    alone = store.operations[0]
    assert (alone.method, alone.label, alone.outcome) == ("elicitation/create", "proxied: standalone server message",
                                                          "complete")
    assert [m.kind for m in store.messages_of(alone.id)] == ["server_request", "client_response"]
    _heard(stitcher, "client->server", _call(10, "first"), 3, "s-1")
    _heard(stitcher, "client->server", _call(11, "second"), 4, "s-1")
    _heard(stitcher, "client->server", _call(12, "elsewhere"), 5, "s-2")
    _heard(stitcher, "server->client", {**QUESTION, "id": "ask-2"}, 1, "s-1", **get)  # the most recent in s-1
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 10}}
    _heard(stitcher, "client->server", cancel, 6, "s-1")  # joins the call it names
    first, second, elsewhere = store.operations[1:]
    assert [m.kind for m in store.messages_of(second.id)] == ["request", "server_request"]
    assert [m.kind for m in store.messages_of(first.id)] == ["request", "notification"]
    assert [m.kind for m in store.messages_of(elsewhere.id)] == ["request"]
