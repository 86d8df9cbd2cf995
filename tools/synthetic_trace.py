"""A synthetic trace of any size, for the view benchmark and the tests that load large traces.

Every operation is a well-formed two-round delete_file flow (request, input_required, retry,
complete), so views see realistic messages without running an engine 10,000 times.
"""

import time
from typing import Any

from mrtr_studio.trace.model import Direction, MessageKind, Operation, TraceMessage


def synthetic_trace(operations: int) -> tuple[list[Operation], list[TraceMessage]]:
    """`operations` flows, four messages each: 2,500 operations make a 10,000-message trace."""
    ops: list[Operation] = []
    messages: list[TraceMessage] = []
    now = time.time()
    for i in range(operations):
        op = Operation(id=f"op{i:05d}", method="tools/call", target="delete_file", arguments={"path": f"/f{i}"},
                       era="modern", server="embedded", started=now, outcome="complete", rounds=2,
                       answer_seconds={2: 1.5})
        ops.append(op)
        params = {"name": "delete_file", "arguments": {"path": f"/f{i}"}}
        state = f"v1.payload{i}.signature{i}"
        asked = {"confirm": {"method": "elicitation/create", "params": {"message": "Delete the file?"}}}
        wire: list[tuple[int, Direction, MessageKind, dict[str, Any]]] = [
            (1, "client->server", "request", {"jsonrpc": "2.0", "id": 2 * i, "method": "tools/call", "params": params}),
            (1, "server->client", "input_required", {"jsonrpc": "2.0", "id": 2 * i, "result": {
                "resultType": "input_required", "inputRequests": asked, "requestState": state}}),
            (2, "client->server", "request", {"jsonrpc": "2.0", "id": 2 * i + 1, "method": "tools/call", "params": {
                **params, "inputResponses": {"confirm": {"action": "accept"}}, "requestState": state}}),
            (2, "server->client", "complete", {"jsonrpc": "2.0", "id": 2 * i + 1, "result": {
                "resultType": "complete", "content": [{"type": "text", "text": "File deleted"}]}}),
        ]
        for round_number, direction, kind, message in wire:
            seq = len(messages)
            messages.append(TraceMessage(seq, op.id, round_number, direction, kind, message, now + seq / 1000,
                                         method=message.get("method"), jsonrpc_id=message["id"]))
    return ops, messages
