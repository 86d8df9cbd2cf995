"""Params no handler may see (NaN, Infinity, non-JSON, too deep) get -32602 before state or handler."""

import math
from typing import Any

import pytest

from mrtr_studio.engine import McpServer, MrtrOptions, ServerOptions
from mrtr_studio.engine.options import MAX_ARGUMENT_DEPTH
from mrtr_studio.scenarios import build_demo_server
from tests.engine.wire import Wire, accept, meta

pytestmark = pytest.mark.anyio
CONFIRM = {"confirm": accept(confirm=True)}


def nested(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth - 1):
        node["a"] = {}
        node = node["a"]
    return root


def recording_server() -> tuple[McpServer, list[Any]]:
    """The demo server plus a tool that records every arguments object its handler is given."""
    server = build_demo_server(ServerOptions(mrtr=MrtrOptions(secret="s", explain_rejections=True)))
    seen: list[Any] = []

    @server.tool("echo")
    def echo(session, request, response):  # type: ignore[no-untyped-def]
        seen.append(request.params.arguments)
        response.result.content.add_text("ran")

    return server, seen


async def send(wire: Wire, params: dict[str, Any], method: str = "tools/call") -> dict[str, Any]:
    """Straight to the engine, as the in-memory transport does (no JSON parser in between)."""
    message = {"jsonrpc": "2.0", "id": 7, "method": method, "params": {"_meta": meta(), **params}}
    reply = await wire.server.handle(message, wire.session)
    assert reply is not None
    return reply


async def test_infinity_cannot_complete_a_state_minted_for_null() -> None:
    server = build_demo_server(ServerOptions(mrtr=MrtrOptions(secret="s", explain_rejections=True)))
    wire = Wire(server)
    first = await send(wire, {"name": "delete_file", "arguments": {"n": None}})
    state = first["result"]["requestState"]
    for value in (math.inf, -math.inf, math.nan):
        reply = await send(wire, {"name": "delete_file", "arguments": {"n": value}, "requestState": state,
                                  "inputResponses": CONFIRM})
        assert "result" not in reply
        assert reply["error"]["code"] == -32602
        assert reply["error"]["data"]["path"] == "arguments.n"
        assert "finite" in reply["error"]["message"]
    done = await send(wire, {"name": "delete_file", "arguments": {"n": None}, "requestState": state,
                             "inputResponses": CONFIRM})
    assert done["result"]["content"][0]["text"] == "File deleted"


@pytest.mark.parametrize(("arguments", "path"), [
    ({"n": math.nan}, "arguments.n"),
    ({"list": [1, 2, [math.inf]]}, "arguments.list[2][0]"),
    ({"a": {"b": -math.inf}}, "arguments.a.b"),
    ({"a": {1: "x"}}, "arguments.a"),
    ({"a": object()}, "arguments.a"),
    ({"a": (1, 2)}, "arguments.a"),
])
async def test_non_json_argument_values_never_reach_the_handler(arguments: dict[str, Any], path: str) -> None:
    server, seen = recording_server()
    reply = await send(Wire(server), {"name": "echo", "arguments": arguments})
    assert reply["error"]["code"] == -32602, reply
    assert reply["error"]["data"]["path"] == path
    assert seen == []


async def test_non_finite_answers_and_meta_are_refused_too() -> None:
    server, seen = recording_server()
    wire = Wire(server)
    answers = {"confirm": {"action": "accept", "content": {"confirm": math.nan}}}
    reply = await send(wire, {"name": "echo", "arguments": {}, "inputResponses": answers})
    assert reply["error"]["data"]["path"] == "inputResponses.confirm.content.confirm"
    message = {"jsonrpc": "2.0", "id": 8, "method": "tools/call",
               "params": {"_meta": {**meta(), "x": math.inf}, "name": "echo", "arguments": {}}}
    reply = await server.handle(message, wire.session)
    assert reply is not None and reply["error"]["code"] == -32602
    assert seen == []


@pytest.mark.parametrize("depth", [MAX_ARGUMENT_DEPTH + 1, 1000, 100_000])
async def test_deep_arguments_are_invalid_params_not_internal_errors(depth: int) -> None:
    server, seen = recording_server()
    wire = Wire(server)
    reply = await send(wire, {"name": "echo", "arguments": nested(depth)})
    assert reply["error"] == {
        "code": -32602, "message": f"Invalid params: arguments is nested deeper than {MAX_ARGUMENT_DEPTH} levels",
        "data": {"field": "arguments", "path": "arguments"}}
    assert seen == []
    reply = await send(wire, {"name": "delete_file", "arguments": nested(depth)})
    assert reply["error"]["code"] == -32602


async def test_arguments_at_the_bound_are_served() -> None:
    server, seen = recording_server()
    reply = await send(Wire(server), {"name": "echo", "arguments": nested(MAX_ARGUMENT_DEPTH)})
    assert reply["result"]["content"][0]["text"] == "ran"
    assert seen == [nested(MAX_ARGUMENT_DEPTH)]


async def test_the_depth_bound_is_an_option() -> None:
    server = build_demo_server(ServerOptions(max_argument_depth=5))  # the test's _meta nests 4 levels
    wire = Wire(server)
    reply = await send(wire, {"name": "delete_file", "arguments": nested(6)})
    assert reply["error"]["message"] == "Invalid params: arguments is nested deeper than 5 levels"
    assert (await send(wire, {"name": "delete_file", "arguments": nested(5)}))["result"]["resultType"] == (
        "input_required")


async def test_prompts_and_legacy_requests_are_checked_as_well() -> None:
    server = build_demo_server()
    wire = Wire(server)
    reply = await send(wire, {"name": "code_review", "arguments": {"code": math.nan}}, method="prompts/get")
    assert reply["error"]["code"] == -32602
    legacy = Wire(server)
    await legacy.send("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                     "clientInfo": {"name": "t", "version": "1"}}, version="2025-11-25")
    message = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
               "params": {"name": "count_roots", "arguments": nested(1000)}}
    reply = await server.handle(message, legacy.session)
    assert reply is not None and reply["error"]["code"] == -32602


@pytest.mark.parametrize("depth", [0, -1, 2.5, None])
def test_a_depth_bound_below_one_is_refused(depth: object) -> None:
    with pytest.raises(ValueError, match="max_argument_depth"):
        ServerOptions(max_argument_depth=depth)  # type: ignore[arg-type]
