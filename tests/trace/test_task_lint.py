"""Task-side lint rules: fast polls, keys answered twice or never asked, the routing header, undeclared tasks."""

from typing import Any

from mrtr_studio.protocol.tasks_extension import TASKS_EXTENSION
from mrtr_studio.trace import TraceStore, lint
from mrtr_studio.trace.task_lint import (
    KEY_ANSWERED_TWICE,
    KEY_NOT_OUTSTANDING,
    MISSING_MCP_NAME,
    POLL_TOO_FAST,
    TASK_UNDECLARED,
)

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {TASKS_EXTENSION: {}}}}
TASK = {"taskId": "t1", "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
        "ttlMs": 60000, "pollIntervalMs": 1000}
ASK = {"k": {"method": "elicitation/create", "params": {"mode": "form", "message": "?",
                                                         "requestedSchema": {"type": "object", "properties": {}}}}}


class Flow:
    def __init__(self, meta: dict[str, Any] = META) -> None:
        self.store = TraceStore()
        lint.attach(self.store)
        self.op = self.store.begin_operation("tools/call", "x", {}, "modern", "embedded")
        self.ids = iter(range(1, 100))
        self.meta = meta

    def send(self, at: float, method: str, params: dict[str, Any], reply: dict[str, Any], round_number: int = 1,
             **transport: Any) -> list[str]:
        msg_id = next(self.ids)
        sent = self.store.record(self.op.id, round_number, "client->server", {
            "jsonrpc": "2.0", "id": msg_id, "method": method, "params": {**params, "_meta": self.meta}},
            timestamp=at, **transport)
        got = self.store.record(self.op.id, round_number, "server->client",
                                {"jsonrpc": "2.0", "id": msg_id, "result": reply}, timestamp=at + 0.01)
        return [f.rule for f in sent.findings + got.findings]


def test_a_careful_client_gets_no_task_findings_and_a_careless_one_gets_each() -> None:
    flow = Flow()
    assert flow.send(0, "tools/call", {"name": "x", "arguments": {}},
                     {"resultType": "task", "status": "working", **TASK}) == []
    assert flow.send(1.0, "tasks/get", {"taskId": "t1"},
                     {"resultType": "complete", "status": "input_required", "inputRequests": ASK, **TASK}) == []
    assert POLL_TOO_FAST in flow.send(1.1, "tasks/get", {"taskId": "t1"},
                                      {"resultType": "complete", "status": "input_required", "inputRequests": ASK,
                                       **TASK})
    assert flow.send(1.2, "tasks/update", {"taskId": "t1", "inputResponses": {"k": {"action": "accept"}}},
                     {"resultType": "complete"}, round_number=2) == []
    rules = flow.send(1.3, "tasks/update", {"taskId": "t1", "inputResponses": {"k": {"action": "accept"},
                                                                               "zzz": {"action": "accept"}}},
                      {"resultType": "complete"}, round_number=2)
    assert KEY_ANSWERED_TWICE in rules and KEY_NOT_OUTSTANDING in rules
    headers = {"Mcp-Method": "tasks/get"}
    assert MISSING_MCP_NAME in flow.send(3.0, "tasks/get", {"taskId": "t1"},
                                         {"resultType": "complete", "status": "working", **TASK},
                                         transport="http", request_headers=headers)
    assert MISSING_MCP_NAME not in flow.send(5.0, "tasks/get", {"taskId": "t1"},
                                             {"resultType": "complete", "status": "working", **TASK},
                                             transport="http", request_headers={**headers, "Mcp-Name": "t1"})


def test_a_task_for_a_client_that_did_not_declare_the_extension() -> None:
    flow = Flow(meta={**META, "io.modelcontextprotocol/clientCapabilities": {}})
    assert TASK_UNDECLARED in flow.send(0, "tools/call", {"name": "x", "arguments": {}},
                                        {"resultType": "task", "status": "working", **TASK})
