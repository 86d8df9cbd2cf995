"""check-client's grading by era, from wire events as the served engine's tap emits them."""

import itertools
from typing import Any

from mrtr_studio.cli.client_grades import MAX_PENDING, Handshakes, era_of, grade
from mrtr_studio.proxy.stitch import Stitcher
from mrtr_studio.trace import TraceStore, lint
from mrtr_studio.transport.base import WireEvent

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {"roots": {}}}


class Wire:
    """Feeds events to a stitched, linted store and to the Handshakes listener, like check-client's tap."""

    def __init__(self) -> None:
        self.store = TraceStore()
        lint.attach(self.store)
        self.handshakes = Handshakes()
        self.listeners = [Stitcher(self.store, "check-client", "client under test"), self.handshakes]
        self.exchanges = itertools.count(1)

    def emit(self, direction: str, message: dict[str, Any], exchange: int, **meta: Any) -> None:
        for listener in self.listeners:
            listener(WireEvent(direction, message, {"exchange": exchange, **meta}))  # type: ignore[arg-type]

    def initialize(self, session: str, capabilities: dict[str, Any], ok: bool = True) -> None:
        exchange = next(self.exchanges)
        self.emit("client->server", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "t", "version": "1"}}}, exchange)
        if ok:
            self.emit("server->client", {"jsonrpc": "2.0", "id": 0, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}},
                exchange, response_headers={"mcp-session-id": session})
        else:
            self.emit("server->client", {"jsonrpc": "2.0", "id": 0, "error": {"code": -32600, "message": "no"}},
                      exchange)

    def legacy_call(self, session: str, call_id: int, asked: str, answer: dict[str, Any] | None,
                    complete: bool = True) -> None:
        """A legacy tools/call during which the server asks `asked`; the client answers with `answer` (a
        result or error body) or not at all."""
        headers = {"request_headers": {"mcp-session-id": session}}
        exchange = next(self.exchanges)
        self.emit("client->server", {"jsonrpc": "2.0", "id": call_id, "method": "tools/call",
                                     "params": {"name": "count_roots", "arguments": {}}}, exchange, **headers)
        server_id = f"server-{call_id}"
        params: dict[str, Any] = {} if asked == "roots/list" else {
            "mode": "form", "message": "Name?", "requestedSchema": {
                "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
        self.emit("server->client", {"jsonrpc": "2.0", "id": server_id, "method": asked, "params": params}, exchange)
        if answer is not None:
            self.emit("client->server", {"jsonrpc": "2.0", "id": server_id, **answer}, next(self.exchanges),
                      **headers)
        final: dict[str, Any] = {"result": {"content": [{"type": "text", "text": "done"}]}} if complete else {
            "error": {"code": -32603, "message": "the client did not answer in time"}}
        self.emit("server->client", {"jsonrpc": "2.0", "id": call_id, **final}, exchange)

    def verdicts(self) -> tuple[str, dict[str, str]]:
        era, results = grade(self.store, self.handshakes)
        return era, {r.id: r.verdict for r in results}


def test_a_legacy_client_that_answers_within_its_capabilities_passes() -> None:
    wire = Wire()
    wire.initialize("S1", {"roots": {}, "elicitation": {}})
    wire.legacy_call("S1", 1, "roots/list", {"result": {"roots": [{"uri": "file:///w"}]}})
    wire.legacy_call("S1", 2, "elicitation/create", {"result": {"action": "accept", "content": {"name": "ada"}}})
    era, verdicts = wire.verdicts()
    assert era == "legacy"
    assert verdicts == {"server-requests-answered": "pass", "capabilities-honoured": "pass", "new-id": "pass",
                        "answer-schema": "pass", "schema-valid": "pass", "answered-to-completion": "pass"}


def test_unanswered_undeclared_and_schema_breaking_answers_fail_by_name() -> None:
    wire = Wire()
    wire.initialize("S1", {"elicitation": {"url": {}}})  # URL mode only: no forms, no roots
    wire.legacy_call("S1", 1, "roots/list", {"result": {"roots": []}})
    wire.legacy_call("S1", 2, "elicitation/create", {"result": {"action": "accept", "content": {"name": 7}}})
    wire.legacy_call("S1", 3, "roots/list", None, complete=False)
    era, results = grade(wire.store, wire.handshakes)
    by_id = {r.id: r for r in results}
    assert era == "legacy"
    assert by_id["server-requests-answered"].verdict == "fail"
    assert by_id["server-requests-answered"].detail == "3 asked, 2 answered"
    assert by_id["capabilities-honoured"].verdict == "fail" and len(by_id["capabilities-honoured"].evidence) == 2
    assert by_id["answer-schema"].verdict == "fail"
    assert by_id["answered-to-completion"].verdict == "pass"


def test_an_error_answer_honours_the_capabilities_but_completes_nothing() -> None:
    wire = Wire()
    wire.initialize("S1", {})
    wire.legacy_call("S1", 1, "roots/list", {"error": {"code": -32601, "message": "Method not found"}},
                     complete=False)
    _, verdicts = wire.verdicts()
    assert verdicts["capabilities-honoured"] == "pass" and verdicts["server-requests-answered"] == "pass"
    assert verdicts["answered-to-completion"] == "fail"


def test_a_session_whose_initialize_was_never_seen_declares_nothing() -> None:
    wire = Wire()
    wire.initialize("S1", {"roots": {}}, ok=False)  # refused: no session was opened by it
    wire.legacy_call("S2", 1, "roots/list", {"result": {"roots": []}})
    era, results = grade(wire.store, wire.handshakes)
    overreach = next(r for r in results if r.id == "capabilities-honoured")
    assert era == "legacy" and overreach.verdict == "fail"
    assert "no initialize was seen for its session" in overreach.evidence[0]


def test_flows_of_both_eras_are_each_judged_by_their_own_rules() -> None:
    wire = Wire()
    wire.initialize("S1", {"roots": {}})
    wire.legacy_call("S1", 1, "roots/list", {"result": {"roots": []}})
    exchange = next(wire.exchanges)
    wire.emit("client->server", {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "count_roots", "arguments": {}, "_meta": MODERN_META}}, exchange)
    wire.emit("server->client", {"jsonrpc": "2.0", "id": 9, "result": {
        "resultType": "input_required", "inputRequests": {"roots": {"method": "roots/list", "params": {}}},
        "requestState": "s1"}}, exchange)  # the modern flow is never retried
    era, results = grade(wire.store, wire.handshakes)
    ids = [r.id for r in results]
    verdicts = {r.id: r.verdict for r in results}
    assert era == "modern+legacy"
    assert verdicts["retry-loop"] == "fail" and verdicts["answered-to-completion"] == "pass"
    assert ids.count("new-id") == 1 and {"capabilities-honoured", "state-echo"} <= set(ids)  # shared checks once


def test_no_flow_at_all_is_judged_by_the_handshake_else_by_todays_rules() -> None:
    wire = Wire()
    assert era_of(wire.store, wire.handshakes) == "modern"
    _, verdicts = wire.verdicts()
    assert verdicts["retry-loop"] == "fail"
    wire.initialize("S1", {})
    era, verdicts = wire.verdicts()
    assert era == "legacy" and verdicts["answered-to-completion"] == "fail"


def test_handshakes_waiting_for_their_response_are_bounded() -> None:
    handshakes = Handshakes()
    for exchange in range(MAX_PENDING + 50):
        handshakes(WireEvent("client->server", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
                             {"exchange": exchange}))
    assert len(handshakes._pending) == MAX_PENDING
    handshakes(WireEvent("server->client", {"jsonrpc": "2.0", "id": 1, "result": {}},
                         {"exchange": 0, "response_headers": {"mcp-session-id": "gone"}}))  # forgotten: ignored
    assert handshakes.by_session == {}
