"""-32021 for each missing capability, -32603 for legacy, classic requests for dual-era handlers."""

import asyncio

import pytest

from mrtr_studio.protocol import jsonrpc
from mrtr_studio.protocol.schema import message_problems
from mrtr_studio.scenarios import build_demo_server
from tests.engine.wire import ALL_CAPS, Wire

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(("tool", "args", "caps", "missing", "words"), [
    ("delete_file", {"path": "/a"}, {"sampling": {}, "roots": {}}, {"elicitation": {}}, "elicitation"),
    ("connect_account", {}, {"elicitation": {"form": {}}}, {"elicitation": {"url": {}}}, "elicitation.url"),
    ("summarize", {"text": "t"}, {"elicitation": {}, "roots": {}}, {"sampling": {}}, "sampling"),
    ("count_roots", {}, {"elicitation": {}, "sampling": {}}, {"roots": {}}, "roots"),
])
async def test_missing_capability(tool: str, args: dict, caps: dict, missing: dict, words: str) -> None:
    wire = Wire(build_demo_server())
    reply = await wire.call(tool, args, caps=caps)
    assert reply["error"] == {
        "code": -32021,
        "message": f"Server requires the {words} capability for this request",
        "data": {"requiredCapabilities": missing},
    }


async def test_empty_elicitation_object_means_form_support() -> None:
    wire = Wire(build_demo_server())
    reply = await wire.call("delete_file", {"path": "/a"}, caps={"elicitation": {}})
    assert reply["result"]["resultType"] == "input_required"


async def test_handler_can_adapt_to_capabilities() -> None:
    server = build_demo_server()

    @server.tool("adaptive")
    def adaptive(session, request, response):  # type: ignore[no-untyped-def]
        if "elicitation" not in request.client_capabilities:
            response.result.content.add_text("no elicitation: using a safe default")
            return
        response.input_required.add_elicitation("x", "?", {"type": "object", "properties": {}})

    reply = await Wire(server).call("adaptive", caps={})
    assert reply["result"]["content"][0]["text"] == "no elicitation: using a safe default"


async def legacy_wire(with_roots: bool = True) -> Wire:
    wire = Wire(build_demo_server())
    caps = {"roots": {}} if with_roots else {}
    reply = await wire.send("initialize", {"protocolVersion": "2025-11-25", "capabilities": caps,
                                           "clientInfo": {"name": "legacy", "version": "1"}},
                            version="2025-11-25")
    assert reply["result"]["protocolVersion"] == "2025-11-25"
    assert await wire.server.handle(jsonrpc.notification("notifications/initialized"), wire.session) is None
    return wire


async def test_legacy_request_that_needs_input_gets_32603() -> None:
    wire = await legacy_wire()
    reply = await wire.send("tools/call", {"name": "delete_file", "arguments": {"path": "/a"}},
                            version="2025-11-25")
    assert reply["error"] == {"code": -32603, "message": "input_required needs protocol 2026-07-28"}


async def test_legacy_results_have_legacy_shapes() -> None:
    wire = await legacy_wire()
    listed = await wire.send("tools/list", {}, version="2025-11-25")
    assert "resultType" not in listed["result"]
    assert "count_roots" in [t["name"] for t in listed["result"]["tools"]]


async def test_legacy_count_roots_through_server_initiated_roots_list() -> None:
    wire = await legacy_wire()
    outgoing: list[dict] = []

    async def client_side(request: dict) -> None:
        outgoing.append(request)
        assert message_problems(request, version="2025-11-25") == []
        answer = jsonrpc.result(request["id"], {"roots": [{"uri": "file:///repo", "name": "repo"}]})
        asyncio.get_running_loop().call_soon(
            lambda: asyncio.ensure_future(wire.server.handle(answer, wire.session)))

    wire.session.outbound = client_side
    reply = await wire.send("tools/call", {"name": "count_roots", "arguments": {}}, version="2025-11-25")
    assert [m["method"] for m in outgoing] == ["roots/list"]
    assert reply["result"]["content"] == [{"type": "text", "text": "1 root(s): file:///repo"}]


async def test_legacy_client_error_answer_becomes_a_call_error() -> None:
    wire = await legacy_wire()

    async def refuse(request: dict) -> None:
        answer = jsonrpc.error(request["id"], -32601, "roots not supported")
        asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(wire.server.handle(answer, wire.session)))

    wire.session.outbound = refuse
    reply = await wire.send("tools/call", {"name": "count_roots", "arguments": {}}, version="2025-11-25")
    assert reply["error"]["code"] == -32601
    assert reply["error"]["message"] == "roots not supported"


async def test_modern_count_roots_uses_mrtr() -> None:
    wire = Wire(build_demo_server())
    asked = (await wire.call("count_roots"))["result"]
    assert asked["inputRequests"] == {"roots": {"method": "roots/list", "params": {}}}


async def test_unsupported_version_lists_supported() -> None:
    wire = Wire(build_demo_server())
    reply = await wire.send("tools/list", {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "1900-01-01",
        "io.modelcontextprotocol/clientCapabilities": {}}})
    assert reply["error"]["code"] == -32022
    assert reply["error"]["data"] == {"supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26",
                                                    "2024-11-05"], "requested": "1900-01-01"}


async def test_discover_and_listings_carry_result_type_and_caching() -> None:
    wire = Wire(build_demo_server())
    discovered = (await wire.send("server/discover", {"_meta": wire_meta()}))["result"]
    assert discovered["supportedVersions"][0] == "2026-07-28"
    assert discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mrtr-studio-demo"
    for method, key in (("tools/list", "tools"), ("prompts/list", "prompts"), ("resources/list", "resources"),
                        ("resources/templates/list", "resourceTemplates")):
        result = (await wire.send(method, {"_meta": wire_meta()}))["result"]
        assert result["resultType"] == "complete"
        assert isinstance(result[key], list)
        assert result["cacheScope"] == "public" and result["ttlMs"] >= 0


@pytest.mark.parametrize("method", ["initialize", "ping", "logging/setLevel", "resources/subscribe"])
async def test_methods_removed_in_2026_are_unknown_to_modern_requests(method: str) -> None:
    wire = Wire(build_demo_server())
    reply = await wire.send(method, {"_meta": wire_meta()})
    assert reply["error"]["code"] == -32601


def wire_meta() -> dict:
    return {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": ALL_CAPS}


async def test_url_only_elicitation_does_not_cover_forms() -> None:
    wire = Wire(build_demo_server())
    reply = await wire.call("delete_file", {"path": "/a"}, caps={"elicitation": {"url": {}}})
    assert reply["error"]["code"] == -32021
    assert reply["error"]["data"] == {"requiredCapabilities": {"elicitation": {"form": {}}}}
    ok = await wire.call("connect_account", {}, caps={"elicitation": {"url": {}}})
    assert ok["result"]["resultType"] == "input_required"
