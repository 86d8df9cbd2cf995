"""Six concurrent flows whose states are byte-identical (a codec without a nonce, as the TypeScript
SDK's), through a real `mrtr-studio proxy` process: each client on its own connection and session gets
its answers, and the trace holds six complete operations of two rounds each, none running, with no
false `reused-id`."""

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from mrtr_studio.protocol.versions import META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, MODERN_VERSION
from tests.hostile_http import Conn, HostileServer, Request, result
from tests.interop.proxy_process import proxy

pytestmark = [pytest.mark.timeout(90)]
FLOWS = 6
STATE = "eyJ0b29sIjoiZGVwbG95In0"  # the same bytes for every flow
ASK = {"confirm": {"method": "elicitation/create", "params": {"message": "Deploy?", "requestedSchema": {
    "type": "object", "properties": {"ok": {"type": "boolean"}}}}}}


class SameState:
    """Holds every first round until all six are in flight, answers each with the same state, and
    completes a retry with the session it came on (so the client can tell its answer is its own)."""

    def __init__(self) -> None:
        self.first: asyncio.Event | None = None
        self.waiting = 0

    async def __call__(self, request: Request, conn: Conn) -> None:
        message = request.json()
        params = message.get("params", {})
        session = request.headers.get("mcp-session-id", "")
        if "requestState" not in params:
            self.first = self.first or asyncio.Event()
            self.waiting += 1
            if self.waiting == FLOWS:
                self.first.set()
            await asyncio.wait_for(self.first.wait(), 30)
            await conn.json(result(message["id"], resultType="input_required", inputRequests=ASK,
                                   requestState=STATE))
            return
        assert params["requestState"] == STATE
        await conn.json(result(message["id"], resultType="complete",
                               content=[{"type": "text", "text": f"done for {session}"}]))


def call(number: int, **extra: Any) -> dict[str, Any]:
    meta = {META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_CAPABILITIES: {"elicitation": {}}}
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call",
            "params": {"name": "deploy", "arguments": {"env": "prod"}, "_meta": meta, **extra}}


async def flow(url: str, session: str) -> str:
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": MODERN_VERSION,
               "Mcp-Session-Id": session}
    async with httpx.AsyncClient(timeout=30, headers=headers) as client:
        first = (await client.post(url, json=call(1))).json()
        state = first["result"]["requestState"]
        answers = {"confirm": {"action": "accept", "content": {"ok": True}}}
        done = (await client.post(url, json=call(2, inputResponses=answers, requestState=state))).json()
    return str(done["result"]["content"][0]["text"])


def test_six_flows_with_one_state_through_the_proxy(tmp_path: Path) -> None:
    with HostileServer(SameState()) as upstream, proxy(upstream, tmp_path / "same.mrtr.json") as proxied:
        async def all_six() -> list[str]:
            return await asyncio.gather(*(flow(proxied.url, f"s-{n}") for n in range(FLOWS)))

        texts = asyncio.run(all_six())
        proxied.stop()
    assert texts == [f"done for s-{n}" for n in range(FLOWS)]
    ops = proxied.store.operations
    assert [(op.target, op.rounds, op.outcome) for op in ops] == [("deploy", 2, "complete")] * FLOWS
    for op in ops:
        messages = proxied.store.messages_of(op.id)
        sessions = {m.transport["request_headers"]["mcp-session-id"] for m in messages if m.kind == "request"}
        assert len(sessions) == 1
        assert json.dumps(messages[-1].message).count(sessions.pop()) == 1  # its own answer
    assert [f.rule for m in proxied.store.messages for f in m.findings if f.severity != "info"] == []
