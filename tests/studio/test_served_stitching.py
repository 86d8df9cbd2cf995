"""Serving the embedded engine: a retry whose state the client altered is still a retry of its
operation (flagged state-altered), and an answer that breaks the requestedSchema is flagged."""

from typing import Any

import pytest

from mrtr_studio.protocol.versions import META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION
from mrtr_studio.proxy.stitch import Stitcher
from mrtr_studio.studio.controller import Studio
from mrtr_studio.trace import TraceStore, lint
from mrtr_studio.transport.base import WireEvent
from mrtr_studio.transport.http_client import HttpClientTransport

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
META = {META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {"elicitation": {}}}


def call(number: int, **extra: Any) -> dict[str, Any]:
    params = {"name": "delete_file", "arguments": {"path": "/tmp/x"}, "_meta": META, **extra}
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}


def rules(studio: Studio, op_id: str) -> list[tuple[int, str, str]]:
    return [(m.round, f.rule, f.message) for m in studio.store.messages_of(op_id) for f in m.findings]


async def two_rounds(edit_state: Any, content: dict[str, Any]) -> tuple[Studio, dict[str, Any] | None]:
    studio = Studio()
    url = await studio.start_serving()
    transport = HttpClientTransport(url)
    try:
        first = await transport.send(call(1))
        assert first is not None
        state = first["result"]["requestState"]
        answer = {"confirm": {"action": "accept", "content": content}}
        reply = await transport.send(call(2, inputResponses=answer, requestState=edit_state(state)))
    finally:
        await transport.close()
        await studio.close()
    return studio, reply


async def test_an_altered_state_is_a_retry_of_the_operation_flagged_state_altered() -> None:
    studio, reply = await two_rounds(lambda s: s[:-2] + ("A" if s[-2] != "A" else "B") + s[-1],
                                     {"confirm": True})
    assert reply is not None and reply["error"]["code"] == -32602
    assert len(studio.store.operations) == 1
    op = studio.store.operations[0]
    assert (op.rounds, op.outcome) == (2, "error")
    found = rules(studio, op.id)
    assert [(r, rule) for r, rule, _ in found] == [(2, lint.STATE_ALTERED)]
    assert "byte for byte" in found[0][2]


async def test_a_schema_invalid_answer_names_the_field_and_the_rule() -> None:
    studio, reply = await two_rounds(lambda s: s, {"confirm": "yes"})
    assert reply is not None
    op = studio.store.operations[0]
    found = [(r, rule, message) for r, rule, message in rules(studio, op.id) if rule == lint.ANSWER_SCHEMA]
    assert len(found) == 1
    round_number, _, message = found[0]
    assert round_number == 2
    assert "inputResponses.confirm" in message and "confirm: 'yes' is not of type 'boolean'" in message
    assert "rule type: boolean" in message


async def test_a_valid_answer_is_not_flagged() -> None:
    studio, reply = await two_rounds(lambda s: s, {"confirm": True})
    assert reply is not None and reply["result"]["content"][0]["text"] == "File deleted"
    op = studio.store.operations[0]
    assert rules(studio, op.id) == []


def test_answers_without_any_state_join_the_round_whose_keys_they_answer() -> None:
    """No state at all, but the retry answers `confirm`: the waiting delete_file round, not a new flow."""
    store = TraceStore()
    lint.attach(store)
    stitch = Stitcher(store, "test")
    asked = {"confirm": {"method": "elicitation/create",
                         "params": {"mode": "form", "message": "?", "requestedSchema": {"type": "object"}}}}
    other = call(10)
    other["params"]["name"] = "deploy_wizard"
    for exchange, message, reply in [
        (1, call(1), {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
                                                            "inputRequests": asked, "requestState": "s1"}}),
        (2, other, {"jsonrpc": "2.0", "id": 10, "result": {"resultType": "input_required",
                                                           "inputRequests": asked, "requestState": "s2"}}),
        (3, call(2, inputResponses={"confirm": {"action": "decline"}}),
         {"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "content": []}}),
    ]:
        stitch(WireEvent("client->server", message, {"exchange": exchange}))
        stitch(WireEvent("server->client", reply, {"exchange": exchange}))
    assert [(op.target, op.rounds, op.outcome) for op in store.operations] == [
        ("delete_file", 2, "complete"), ("deploy_wizard", 1, "running")]
    retry = store.messages_of(store.operations[0].id)[2]
    assert [f.rule for f in retry.findings] == [lint.STATE_NOT_ECHOED]
