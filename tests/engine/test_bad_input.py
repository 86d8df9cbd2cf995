"""Bad input gets the right JSON-RPC error and the engine keeps serving."""

import logging
from typing import Any

import pytest

from mrtr_studio.engine import McpServer, MrtrOptions, ServerOptions, Session
from mrtr_studio.scenarios import build_demo_server
from tests.engine.wire import Wire, accept, meta

pytestmark = pytest.mark.anyio


async def raw(server: McpServer, message: Any) -> dict | None:
    return await server.handle(message, Session())


@pytest.mark.parametrize("message", [
    [], "text", 42, None, {"id": 1, "method": "tools/list"}, {"jsonrpc": "1.0", "id": 1, "method": "x"},
    {"jsonrpc": "2.0", "id": 1, "method": 5}, {"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": True, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1, 2]}, {"jsonrpc": "2.0"},
])
async def test_malformed_envelopes_are_invalid_requests(message: Any) -> None:
    reply = await raw(build_demo_server(), message)
    assert reply is not None and reply["error"]["code"] == -32600


async def test_unknown_method() -> None:
    reply = await Wire(build_demo_server()).send("tools/frobnicate", {"_meta": meta()})
    assert reply["error"] == {"code": -32601, "message": "Method not found: tools/frobnicate"}


@pytest.mark.parametrize(("params", "message"), [
    ({"name": 5}, "Invalid params: name must be a string"),
    ({"name": "delete_file", "arguments": [1]}, "Invalid params: arguments must be an object"),
    ({"name": "nope"}, "Unknown tool: nope"),
    ({"name": "delete_file", "arguments": {"path": "/a"}, "inputResponses": [1]},
     "Invalid params: inputResponses must be an object of objects"),
    ({"name": "delete_file", "arguments": {"path": "/a"}, "inputResponses": {"confirm": "yes"}},
     "Invalid params: inputResponses must be an object of objects"),
    ({"name": "delete_file", "arguments": {"path": "/a"}, "inputResponses": None},
     "Invalid params: inputResponses must be an object of objects"),
])
async def test_wrong_param_types(params: dict, message: str) -> None:
    wire = Wire(build_demo_server())
    reply = await wire.send("tools/call", {"_meta": meta(), **params})
    assert reply["error"] == {"code": -32602, "message": message}


async def test_missing_meta_is_invalid_params() -> None:
    wire = Wire(build_demo_server())
    for params in ({}, {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}},
                   {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}):
        reply = await wire.send("server/discover", params)
        assert reply["error"]["code"] == -32602


async def test_unknown_resource() -> None:
    """2026-07-28 (SEP-2164): -32602 with the URI in data (legacy keeps -32002, see test_reference_methods)."""
    reply = await Wire(build_demo_server()).call("config://nothing", method="resources/read")
    assert reply["error"]["code"] == -32602
    assert reply["error"]["data"]["uri"] == "config://nothing"


async def test_unknown_input_keys_are_ignored() -> None:
    wire = Wire(build_demo_server())
    asked = (await wire.call("delete_file", {"path": "/a"}))["result"]
    done = await wire.call("delete_file", {"path": "/a"}, state=asked["requestState"],
                           responses={"confirm": accept(confirm=True), "extra": {"anything": 1}})
    assert done["result"]["content"][0]["text"] == "File deleted"


async def test_handler_exception_leaks_neither_traceback_nor_secret(caplog: pytest.LogCaptureFixture) -> None:
    secret = "very-secret-key-123"
    server = build_demo_server(ServerOptions(mrtr=MrtrOptions(secret=secret)))

    @server.tool("broken")
    def broken(session, request, response):  # type: ignore[no-untyped-def]
        raise RuntimeError(f"database password is {secret}")

    @server.tool("broken_async")
    async def broken_async(session, request, response):  # type: ignore[no-untyped-def]
        raise KeyError(secret)

    wire = Wire(server)
    with caplog.at_level(logging.ERROR):
        for name in ("broken", "broken_async"):
            reply = await wire.call(name)
            assert reply["error"] == {"code": -32603, "message": "Internal error: the handler failed"}
            assert secret not in str(reply) and "Traceback" not in str(reply)
    assert (await wire.call("delete_file", {"path": "/a"}))["result"]["resultType"] == "input_required"


async def test_handler_can_raise_a_protocol_error() -> None:
    from mrtr_studio.engine import McpError

    server = build_demo_server()

    @server.tool("picky")
    def picky(session, request, response):  # type: ignore[no-untyped-def]
        raise McpError(-32602, "path must be absolute", {"field": "path"})

    reply = await Wire(server).call("picky")
    assert reply["error"] == {"code": -32602, "message": "path must be absolute", "data": {"field": "path"}}


async def test_notifications_and_stray_responses_get_no_answer() -> None:
    server = build_demo_server()
    assert await raw(server, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}) is None
    assert await raw(server, {"jsonrpc": "2.0", "id": "server-99", "result": {}}) is None
