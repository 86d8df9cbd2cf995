"""Lint rules on recorded flows: clean flows stay clean, each broken rule is named exactly."""

import copy
from typing import Any

import pytest

from mrtr_studio.trace import Finding, TraceStore, lint
from mrtr_studio.trace.model import Operation, TraceMessage
from mrtr_studio.trace.store import link_replies

from .flows import run, session

pytestmark = pytest.mark.anyio


def findings(store: TraceStore, op_id: str) -> list[tuple[int, str, str, str]]:
    return [(m.round, m.kind, f.rule, f.message) for m in store.messages_of(op_id) for f in m.findings]


@pytest.mark.parametrize("era", ["modern", "legacy"])
@pytest.mark.parametrize(("tool", "args"), [("delete_file", {"path": "/a"}), ("count_roots", {}),
                                            ("deploy_wizard", {})])
async def test_clean_flows_have_no_findings(era: str, tool: str, args: dict[str, Any]) -> None:
    client = session(era)
    lint.attach(client.store)
    result = await run(client, tool, args)
    assert result.drive.outcome in ("complete", "error")
    found = findings(client.store, result.operation.id)
    # Roots are deprecated in 2026-07-28 (SEP-2577): using them is a note, in either era, and nothing else.
    notes = [f for f in found if f[2] == "deprecated-feature"]
    assert [f for f in found if f not in notes] == []
    assert bool(notes) == (tool == "count_roots") and all("Roots is deprecated" in f[3] for f in notes)


async def tamper(edit: Any) -> tuple[TraceStore, str]:
    client = session()
    lint.attach(client.store)

    async def step(message: dict[str, Any], round_number: int) -> dict[str, Any]:
        if round_number == 2:
            message = copy.deepcopy(message)
            edit(message["params"])
        return message

    result = await run(client, "delete_file", {"path": "/a"}, step=step)
    return client.store, result.operation.id


async def test_altered_state_is_flagged_and_the_server_rejects_it() -> None:
    store, op_id = await tamper(lambda p: p.update(requestState=p["requestState"] + "x"))
    assert findings(store, op_id) == [(2, "request", "state-altered", "the retry's requestState differs from the "
                                       "one the server sent in round 1; it must be echoed byte for byte")]
    assert store.operation(op_id).outcome == "error"


async def test_dropped_state_is_flagged() -> None:
    store, op_id = await tamper(lambda p: p.pop("requestState"))
    assert findings(store, op_id)[0] == (2, "request", "state-not-echoed",
                                         "the server sent a requestState in round 1 and the retry does not echo it")


async def test_missing_and_extra_response_keys_are_warnings() -> None:
    store, op_id = await tamper(lambda p: p.update(inputResponses={"other": {"action": "accept"}}))
    assert findings(store, op_id)[:2] == [
        (2, "request", "input-responses-keys", "inputResponses lacks confirm"),
        (2, "request", "input-responses-keys", "inputResponses has keys nobody asked for: other")]


def message(seq: int, round_number: int, direction: str, kind: str, body: Any,
            method: str | None = None) -> TraceMessage:
    msg_id = body.get("id") if isinstance(body, dict) else None
    return TraceMessage(seq, "op", round_number, direction, kind, body, 0.0, method, msg_id)  # type: ignore[arg-type]


META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {
    "elicitation": {"form": {}}}}
ELICIT_URL = {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://x",
                                                         "elicitationId": "e"}}


def request(msg_id: int, round_number: int = 1, method: str = "tools/call", **extra: Any) -> TraceMessage:
    params = {"name": "t", "arguments": {}, "_meta": META, **extra}
    return message(msg_id, round_number, "client->server", "request",
                   {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}, method)


def lint_linked(entry: TraceMessage, earlier: list[TraceMessage]) -> list[Finding]:
    """Lint a hand-built message as the store would: its reply link set first."""
    link_replies([*earlier, entry])
    return lint.lint_message(entry, earlier)


def rules(entry: TraceMessage, earlier: list[TraceMessage]) -> list[str]:
    return [f.rule for f in lint_linked(entry, earlier)]


def test_input_required_on_tools_list_is_forbidden() -> None:
    listing = request(1, method="tools/list")
    reply = message(2, 1, "server->client", "input_required",
                    {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "s"}})
    found = lint_linked(reply, [listing])
    assert Finding("input-required-forbidden", "error", "input_required answers tools/list, which must not "
                   "return it (only tools/call, prompts/get, resources/read)") in found


def test_undeclared_capability_and_empty_input_required() -> None:
    reply = message(2, 1, "server->client", "input_required", {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required", "inputRequests": {"u": ELICIT_URL}}})
    found = lint_linked(reply, [request(1)])
    assert Finding("capability-not-declared", "error",
                   'asks for capabilities the client did not declare: {"elicitation":{"url":{}}}') in found
    empty = message(2, 1, "server->client", "input_required",
                    {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required"}})
    assert "input-required-empty" in rules(empty, [request(1)])


def test_reused_id_invented_state_leak_and_unknown_result_type() -> None:
    first = request(1)
    asked = message(2, 1, "server->client", "input_required", {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required", "inputRequests": {"k": {"method": "roots/list"}}}})
    retry = request(1, 2, inputResponses={"k": {"roots": []}}, requestState="made-up")
    assert rules(retry, [first, asked]) == ["reused-id", "state-invented"]
    assert next(f.message for f in lint_linked(retry, [first, asked])) == (
        "JSON-RPC id 1 was already used in round 1; every retry needs a new id")
    leaked = request(5, 1, requestState="from-another-flow")
    assert lint_linked(leaked, []) == [Finding(
        "mrtr-data-on-first-call", "error",
        "a first call carries requestState: MRTR data belongs only to the retry of the request that asked for it")]
    odd = message(3, 1, "server->client", "complete", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "later"}})
    assert "unknown-result-type" in rules(odd, [first])


def test_schema_invalid_names_the_problem() -> None:
    bad = message(1, 1, "client->server", "request",
                  {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": META}}, "tools/call")
    found = lint_linked(bad, [])
    assert [f.rule for f in found] == ["schema-invalid"]
    assert found[0].message.startswith("invalid against the 2026-07-28 schema: ")
    assert "'name' is a required property" in found[0].message
    garbage = message(2, 1, "server->client", "invalid", "<html>")
    assert lint_linked(garbage, [bad]) == [Finding("schema-invalid", "error", "not a JSON-RPC message: <html>")]


def test_lint_all_on_an_opened_trace_does_not_duplicate() -> None:
    store = TraceStore()
    store.load([Operation("op", "tools/call", "t", {}, "modern", "x", 0.0)], [request(1, 1, requestState="s")])
    lint.lint_all(store)
    lint.lint_all(store)
    assert [f.rule for f in store.messages[0].findings] == ["mrtr-data-on-first-call"]


def test_the_live_linter_leaves_loaded_messages_as_recorded() -> None:
    store = TraceStore()
    unsubscribe = lint.attach(store)
    store.load([Operation("op", "tools/call", "t", {}, "modern", "x", 0.0)], [request(1, 1, requestState="s")])
    assert store.messages[0].findings == []  # a file's messages keep the findings they were saved with
    op = store.begin_operation("tools/call", "t", {}, "modern", "x")
    live = store.record(op.id, 1, "client->server", copy.deepcopy(store.messages[0].message), method="tools/call")
    assert [f.rule for f in live.findings] == ["mrtr-data-on-first-call"]
    unsubscribe()
