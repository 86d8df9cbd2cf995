"""A legacy client's malformed answers to server-initiated requests become clear errors, never exceptions."""

import asyncio
import math
from typing import Any

import pytest

from mrtr_studio.engine import Session
from mrtr_studio.protocol import jsonrpc
from mrtr_studio.scenarios import build_demo_server
from tests.engine.test_capabilities_and_eras import legacy_wire

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("stray", [
    {"jsonrpc": "2.0", "id": [1], "result": {}},
    {"jsonrpc": "2.0", "id": {"a": 1}, "result": {}},
    {"jsonrpc": "2.0", "id": [1], "error": {"code": "abc", "message": "x"}},
])
async def test_responses_with_unhashable_ids_are_dropped(stray: dict[str, Any]) -> None:
    assert await build_demo_server().handle(stray, Session()) is None


@pytest.mark.parametrize(("answer", "message"), [
    ({"error": {"code": "abc", "message": "boom"}}, "the client answered with a malformed error (code 'abc')"),
    ({"error": "boom"}, "the client answered with a malformed error"),
    ({"error": {"code": 1.5}}, "the client answered with a malformed error (code 1.5)"),
    ({"result": 5}, "the client's result is not an object"),
    ({"result": {"roots": [{"uri": "file:///r", "n": math.inf}]}},
     "Invalid client result: roots[0].n is Infinity: numbers must be finite (NaN and Infinity are not JSON)"),
])
async def test_a_malformed_answer_fails_the_call_clearly(answer: dict[str, Any], message: str) -> None:
    wire = await legacy_wire()

    async def client_side(request: dict[str, Any]) -> None:
        reply = {"jsonrpc": "2.0", "id": request["id"], **answer}
        asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(wire.server.handle(reply, wire.session)))

    wire.session.outbound = client_side
    reply = await wire.server.handle(jsonrpc.request(5, "tools/call", {"name": "count_roots", "arguments": {}}),
                                     wire.session)
    assert reply is not None
    assert reply["error"]["code"] == -32603
    assert reply["error"]["message"] == message
