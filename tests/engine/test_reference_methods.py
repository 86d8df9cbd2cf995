"""logging/setLevel, completion/complete and resources/subscribe as transcripts, every message schema-checked.

The legacy methods run on a 2025-11-25 session (initialize first); 2026-07-28 requests for them are
unknown methods. Notifications the engine sends on the way are validated against the schema too.
"""

from typing import Any

import pytest

from mrtr_studio.engine import McpServer, Session
from mrtr_studio.engine.completion import MAX_VALUES, choices
from mrtr_studio.protocol import jsonrpc
from mrtr_studio.protocol.schema import message_problems
from mrtr_studio.scenarios.demo import build_demo_server

from .wire import Wire, meta

pytestmark = pytest.mark.anyio
LEGACY = "2025-11-25"


async def legacy_wire(server: McpServer | None = None, caps: dict[str, Any] | None = None) -> Wire:
    wire = Wire(server or build_demo_server())
    reply = await wire.send("initialize", {"protocolVersion": LEGACY, "capabilities": caps or {},
                                           "clientInfo": {"name": "legacy", "version": "1"}}, version=LEGACY)
    assert reply["result"]["protocolVersion"] == LEGACY
    await wire.server.handle(jsonrpc.notification("notifications/initialized"), wire.session)
    return wire


class Notifications(list[dict[str, Any]]):
    """Collects what the engine sends on the way, checking each message against the schema."""

    def __init__(self, version: str) -> None:
        super().__init__()
        self.version = version

    async def __call__(self, method: str, params: dict[str, Any]) -> None:
        message = jsonrpc.notification(method, params)
        assert message_problems(message, version=self.version) == [], message
        self.append(message)


async def call_with_notifications(wire: Wire, name: str, version: str = LEGACY,
                                  extra_meta: dict[str, Any] | None = None) -> tuple[dict[str, Any], Notifications]:
    seen = Notifications(version)
    params: dict[str, Any] = {"name": name, "arguments": {}}
    if version != LEGACY:
        params["_meta"] = meta()
    if extra_meta:
        params["_meta"] = {**params.get("_meta", {}), **extra_meta}
    message = {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": params}
    reply = await wire.server.handle(message, wire.session, seen)
    assert reply is not None and message_problems(reply, method="tools/call", version=version) == []
    return reply, seen


# --- logging/setLevel -------------------------------------------------------------------------------

async def test_set_level_filters_the_logs_of_later_calls() -> None:
    wire = await legacy_wire()
    _, before = await call_with_notifications(wire, "test_tool_with_logging")
    assert [n["params"]["data"] for n in before] == [
        "Tool execution started", "Tool processing data", "Tool execution completed"]
    assert (await wire.send("logging/setLevel", {"level": "warning"}, version=LEGACY))["result"] == {}
    reply, after = await call_with_notifications(wire, "test_tool_with_logging")
    assert after == []  # info is below warning
    assert reply["result"]["content"][0]["text"] == "Tool with logging executed successfully"
    await wire.send("logging/setLevel", {"level": "info"}, version=LEGACY)
    _, again = await call_with_notifications(wire, "test_tool_with_logging")
    assert {n["params"]["level"] for n in again} == {"info"} and len(again) == 3


async def test_set_level_is_per_session() -> None:
    server = build_demo_server()
    quiet, loud = await legacy_wire(server), await legacy_wire(server)
    await quiet.send("logging/setLevel", {"level": "emergency"}, version=LEGACY)
    assert (await call_with_notifications(quiet, "test_tool_with_logging"))[1] == []
    assert len((await call_with_notifications(loud, "test_tool_with_logging"))[1]) == 3


@pytest.mark.parametrize("params", [{"level": "loud"}, {"level": 3}, {}])
async def test_set_level_rejects_an_unknown_level(params: dict[str, Any]) -> None:
    wire = await legacy_wire()
    reply = await wire.send("logging/setLevel", params, version=LEGACY)
    assert reply["error"]["code"] == -32602
    assert wire.session.log_level is None


async def test_modern_requests_name_their_level_in_meta() -> None:
    wire = Wire(build_demo_server())
    _, silent = await call_with_notifications(wire, "test_tool_with_logging", version="2026-07-28")
    assert silent == []
    _, logged = await call_with_notifications(wire, "test_tool_with_logging", version="2026-07-28",
                                              extra_meta={"io.modelcontextprotocol/logLevel": "info"})
    assert len(logged) == 3


# --- completion/complete ----------------------------------------------------------------------------

def completion_params(ref: dict[str, Any], name: str, value: str, modern: bool = True,
                      context: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"ref": ref, "argument": {"name": name, "value": value}}
    if context is not None:
        params["context"] = context
    if modern:
        params["_meta"] = meta()
    return params


PROMPT = {"type": "ref/prompt", "name": "test_prompt_with_arguments"}
TEMPLATE = {"type": "ref/resource", "uri": "test://template/{id}/data"}


async def test_completes_a_prompt_argument_by_prefix_in_both_eras() -> None:
    modern = await Wire(build_demo_server()).send("completion/complete", completion_params(PROMPT, "arg1", "PA"))
    assert modern["result"] == {"resultType": "complete", "completion": {
        "values": ["paris", "park", "party"], "total": 3, "hasMore": False}}
    wire = await legacy_wire()
    legacy = await wire.send("completion/complete", completion_params(PROMPT, "arg1", "te", modern=False),
                             version=LEGACY)
    assert legacy["result"] == {"completion": {"values": ["test", "testing"], "total": 2, "hasMore": False}}


async def test_completes_a_template_variable() -> None:
    reply = await Wire(build_demo_server()).send("completion/complete", completion_params(TEMPLATE, "id", "4"))
    assert reply["result"]["completion"]["values"] == ["456"]


async def test_an_argument_without_completer_gets_an_empty_list() -> None:
    ref = {"type": "ref/prompt", "name": "code_review"}
    reply = await Wire(build_demo_server()).send("completion/complete", completion_params(ref, "code", "x"))
    assert reply["result"]["completion"] == {"values": [], "total": 0, "hasMore": False}


async def test_values_are_capped_at_100_with_total_and_has_more() -> None:
    server = McpServer()
    server.prompt("p", "A prompt", [{"name": "n", "required": True}])(lambda s, r, x: None)

    @server.completion(prompt="p", argument="n")
    def numbers(value: str, context: dict[str, str]) -> Any:
        return (f"{value}{i}" for i in range(250))

    reply = await Wire(server).send("completion/complete", completion_params({"type": "ref/prompt", "name": "p"},
                                                                            "n", "x"))
    completion = reply["result"]["completion"]
    assert len(completion["values"]) == MAX_VALUES and completion["values"][0] == "x0"
    assert completion["total"] == 250 and completion["hasMore"] is True


async def test_the_completer_sees_the_context_arguments() -> None:
    server = McpServer()
    server.prompt("trip", "A prompt", [{"name": "country"}, {"name": "city"}])(lambda s, r, x: None)
    cities = {"fr": ["Paris", "Lyon"], "pt": ["Lisbon", "Porto"]}
    server.completion(prompt="trip", argument="city")(
        lambda value, context: choices(*cities.get(context.get("country", ""), []))(value, context))
    reply = await Wire(server).send("completion/complete", completion_params(
        {"type": "ref/prompt", "name": "trip"}, "city", "", context={"arguments": {"country": "pt"}}))
    assert reply["result"]["completion"]["values"] == ["Lisbon", "Porto"]


@pytest.mark.parametrize(("ref", "argument"), [
    ({"type": "ref/prompt", "name": "no_such_prompt"}, "arg1"),
    (PROMPT, "no_such_argument"),
    ({"type": "ref/resource", "uri": "test://static-text"}, "id"),  # a resource, not a template
    ({"type": "ref/tool", "name": "test_simple_text"}, "x"),
])
async def test_unknown_targets_are_invalid_params(ref: dict[str, Any], argument: str) -> None:
    reply = await Wire(build_demo_server()).send("completion/complete", completion_params(ref, argument, ""))
    assert reply["error"]["code"] == -32602


async def test_malformed_completion_requests_are_invalid_params() -> None:
    wire = Wire(build_demo_server())
    for params in ({"ref": PROMPT}, {"ref": PROMPT, "argument": {"name": "arg1", "value": 5}},
                   {"ref": "x", "argument": {"name": "arg1", "value": ""}},
                   {"ref": PROMPT, "argument": {"name": "arg1", "value": ""}, "context": {"arguments": {"a": 1}}}):
        reply = await wire.send("completion/complete", {**params, "_meta": meta()})
        assert reply["error"]["code"] == -32602, params


async def test_a_failing_completer_is_an_internal_error() -> None:
    server = McpServer()
    server.prompt("p", "A prompt", [{"name": "n"}])(lambda s, r, x: None)
    server.completion(prompt="p", argument="n")(lambda value, context: 1 / 0)
    reply = await Wire(server).send("completion/complete", completion_params({"type": "ref/prompt", "name": "p"},
                                                                            "n", ""))
    assert reply["error"]["code"] == -32603
    assert "ZeroDivision" not in reply["error"]["message"]


# --- resources/subscribe ----------------------------------------------------------------------------

async def test_subscribers_hear_of_updates_until_they_unsubscribe() -> None:
    server = build_demo_server()
    heard: list[dict[str, Any]] = []

    async def outbound(message: dict[str, Any]) -> None:
        assert message_problems(message, version=LEGACY) == []
        heard.append(message)

    wire = Wire(server)
    wire.session = server.open_session(outbound=outbound)
    await wire.send("initialize", {"protocolVersion": LEGACY, "capabilities": {},
                                   "clientInfo": {"name": "legacy", "version": "1"}}, version=LEGACY)
    bystander = await legacy_wire(server)
    uri = "test://watched-resource"
    assert (await wire.send("resources/subscribe", {"uri": uri}, version=LEGACY))["result"] == {}
    assert await server.notify_resource_updated(uri) == 1
    assert await server.notify_resource_updated("test://static-text") == 0
    assert heard == [{"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}]
    assert bystander.session.subscriptions == set()
    assert (await wire.send("resources/unsubscribe", {"uri": uri}, version=LEGACY))["result"] == {}
    assert await server.notify_resource_updated(uri) == 0
    assert len(heard) == 1


async def test_subscribing_to_a_template_uri_and_to_nothing() -> None:
    wire = await legacy_wire()
    ok = await wire.send("resources/subscribe", {"uri": "test://template/7/data"}, version=LEGACY)
    assert ok["result"] == {}
    missing = await wire.send("resources/subscribe", {"uri": "test://nothing"}, version=LEGACY)
    assert missing["error"]["code"] == -32002 and missing["error"]["data"] == {"uri": "test://nothing"}
    bad = await wire.send("resources/subscribe", {"uri": 5}, version=LEGACY)
    assert bad["error"]["code"] == -32602


async def test_a_session_cannot_subscribe_without_bound() -> None:
    from mrtr_studio.engine.subscriptions import MAX_SUBSCRIPTIONS
    wire = await legacy_wire()
    for i in range(MAX_SUBSCRIPTIONS):
        assert "result" in await wire.send("resources/subscribe", {"uri": f"test://template/{i}/data"},
                                           version=LEGACY)
    reply = await wire.send("resources/subscribe", {"uri": "test://static-text"}, version=LEGACY)
    assert reply["error"]["code"] == -32602
    assert len(wire.session.subscriptions) == MAX_SUBSCRIPTIONS


@pytest.mark.parametrize("method", ["logging/setLevel", "resources/subscribe", "resources/unsubscribe"])
async def test_removed_methods_stay_unknown_to_modern_requests(method: str) -> None:
    reply = await Wire(build_demo_server()).send(method, {"level": "info", "uri": "test://static-text",
                                                          "_meta": meta()})
    assert reply["error"]["code"] == -32601


async def test_capabilities_per_era() -> None:
    wire = await legacy_wire()
    legacy = wire.transcript[1][1]["result"]["capabilities"]
    assert legacy["resources"] == {"subscribe": True}
    assert "logging" in legacy and "completions" in legacy
    modern = (await Wire(build_demo_server()).send("server/discover", {"_meta": meta()}))["result"]["capabilities"]
    assert modern["resources"] == {"listChanged": True, "subscribe": True}  # through subscriptions/listen
    assert modern["tools"] == {"listChanged": True} and "completions" in modern and "logging" in modern
    assert legacy["tools"] == {}  # no legacy channel carries list changes over HTTP


async def test_unknown_resource_is_32002_on_legacy() -> None:
    wire = await legacy_wire()
    reply = await wire.send("resources/read", {"uri": "test://nothing"}, version=LEGACY)
    assert reply["error"]["code"] == -32002 and reply["error"]["data"] == {"uri": "test://nothing"}


def test_sessions_start_without_level_or_subscriptions() -> None:
    session = Session()
    assert session.log_level is None and session.subscriptions == set()
