"""A synthetic trace of any size, for the view benchmark and the tests that load large traces.

Every operation is a well-formed two-round delete_file flow (request, input_required, retry,
complete), so views see realistic messages without running an engine 10,000 times. With
`transport=True` each message also carries what `proxy --trace` records beside it (exchange, HTTP
method, path, status, content type, framing, the masked request headers): the per-message metadata
a real proxy trace holds, and what a load benchmark must include.
"""

import time
from pathlib import Path
from typing import Any

from mrtr_studio.trace import file_format
from mrtr_studio.trace.model import Direction, MessageKind, Operation, TraceMessage, pack
from mrtr_studio.trace.private_files import private_writer


def proxy_transport(exchange: int, direction: str, length: int = 312) -> dict[str, Any]:
    """The transport metadata `proxy --trace` keeps with one message (shape of proxy/http_proxy.py's):
    the masked request headers, their content-length the body's own."""
    if direction == "client->server":
        return {"transport": "http-proxy", "exchange": exchange, "http_method": "POST", "http_path": "/mcp",
                "request_headers": {"host": "127.0.0.1:8765", "content-type": "application/json",
                                    "accept": "application/json, text/event-stream",
                                    "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
                                    "mcp-name": "delete_file", "authorization": "Bearer ***",
                                    "content-length": str(length), "user-agent": "python-httpx/0.28.1"}}
    return {"transport": "http-proxy", "exchange": exchange, "http_status": 200, "content_type": "application/json",
            "framing": "json"}


def save_synthetic(path: str | Path, operations: int, transport: bool = True, chunk: int = 10_000) -> Path:
    """A synthetic trace written in the studio's layout a chunk of flows at a time, so a 1,000,000-message
    file never needs all its messages in memory at once."""
    with private_writer(path) as handle:
        handle.write(b'{"format":"mrtr-studio-trace","version":1,\n"operations":[\n')
        for part, key in ((0, "operations"), (1, "messages")):
            if part:
                handle.write(b'],\n"messages":[\n')
            for first in range(0, operations, chunk):
                ops, messages = synthetic_trace(min(chunk, operations - first), transport, first)
                lines = [file_format.operation_json(op) for op in ops] if key == "operations" else \
                    [file_format.message_json(m) for m in messages]
                handle.write((b",\n" if first else b"") + b",\n".join(lines))
            handle.write(b"\n")
        handle.write(b"]}\n")
    return Path(path)


def synthetic_trace(operations: int, transport: bool = False,
                    first: int = 0) -> tuple[list[Operation], list[TraceMessage]]:
    """`operations` flows, four messages each: 2,500 operations make a 10,000-message trace. `first`: the
    number of the first flow (a trace written in chunks)."""
    ops: list[Operation] = []
    messages: list[TraceMessage] = []
    now = time.time()
    for i in range(first, first + operations):
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
            seq = 4 * first + len(messages)
            packed = pack(message) if transport else message
            meta = proxy_transport(2 * i + round_number, direction, len(packed)) if transport else None
            messages.append(TraceMessage(seq, op.id, round_number, direction, kind, packed, now + seq / 1000,
                                         method=message.get("method"), jsonrpc_id=message["id"], transport=meta))
    return ops, messages
