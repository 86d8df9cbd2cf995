"""A synthetic trace of any size, for the view benchmark and the tests that load large traces.

Every operation is a well-formed two-round delete_file flow (request, input_required, retry,
complete), so views see realistic messages without running an engine 10,000 times. With
`transport=True` the trace is shaped like one `proxy --trace` recorded from the studio's own client
(checked against a real recording): each request with its `_meta` (its own traceparent), a
requestState of the studio's size, and beside every message the transport metadata the proxy keeps
(HTTP method, path, the client connection's peer, status, content type, framing, the masked request
and response headers, with the body's content-length, the date and the server-timing of each
message): what a load or filter benchmark must include.
"""

import base64
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from mrtr_studio.trace import file_format
from mrtr_studio.trace.model import Direction, MessageKind, Operation, TraceMessage, pack
from mrtr_studio.trace.private_files import private_writer

#: What `proxy --trace` records: a stitched trace has no exchange number (proxy/stitch.py keeps it private).
_CLIENT_HEADERS = {"host": "127.0.0.1:8766", "connection": "keep-alive", "user-agent": "python-httpx/0.28.1",
                   "accept": "application/json, text/event-stream", "content-type": "application/json",
                   "accept-encoding": "identity", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
                   "mcp-name": "delete_file"}
#: Flows a client sends on one keep-alive connection before it opens another (a new `peer` port).
_FLOWS_PER_CONNECTION = 40


def proxy_transport(exchange: int, direction: str, length: int = 312, timestamp: float = 0.0) -> dict[str, Any]:
    """The transport metadata `proxy --trace` keeps with one message, as a real recording holds it
    (proxy/http_proxy.py, through the stitcher): the masked request headers with the body's own
    content-length and the client connection's `peer`; on an answer its status, content type and the
    masked response headers, whose date, content-length and server-timing (the server's time for this
    message) differ from message to message."""
    if direction == "client->server":
        port = 20000 + (exchange // (2 * _FLOWS_PER_CONNECTION)) % 40000
        return {"transport": "http-proxy",
                "request_headers": {**_CLIENT_HEADERS, "content-length": str(length)},
                "http_method": "POST", "http_path": "/mcp", "peer": f"127.0.0.1:{port}"}
    date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(timestamp))
    timing = f"mcp;dur={0.15 + (exchange * 7919 % 1000) / 1000:.3f}"
    return {"transport": "http-proxy", "framing": "json", "http_status": 200, "content_type": "application/json",
            "response_headers": {"date": date, "content-type": "application/json", "content-length": str(length),
                                 "server-timing": timing}}


def _request_meta(i: int, round_number: int) -> dict[str, Any]:
    """The `_meta` the studio's client sends on every request (a traceparent of its own each time)."""
    trace_id = hashlib.blake2b(f"t{i}".encode(), digest_size=16).hexdigest()
    span = hashlib.blake2b(f"s{i}.{round_number}".encode(), digest_size=8).hexdigest()
    return {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "mrtr-studio", "version": "0.1.0"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}, "sampling": {},
                                                           "roots": {}},
            "traceparent": f"00-{trace_id}-{span}-01"}


def _request_state(i: int, now: float) -> str:
    """A requestState the size and shape of the studio's (v1.payload.signature, base64url)."""
    payload = json.dumps({"a": hashlib.sha256(f"a{i}".encode()).hexdigest()[:43], "aud": "mrtr-studio-demo",
                          "exp": int(now) + 600, "iat": int(now), "k": {"confirm": "elicitation/create"},
                          "kid": "6b2de067", "m": "tools/call", "n": "delete_file", "nonce": f"n{i:011d}", "p": "",
                          "r": 1, "s": "step=1", "v": 1}, separators=(",", ":"))
    signature = hashlib.sha256(payload.encode()).digest()
    return "v1." + base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=") + "." + \
        base64.urlsafe_b64encode(signature).decode().rstrip("=")


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
        params: dict[str, Any] = {"name": "delete_file", "arguments": {"path": f"/f{i}"}}
        if transport:  # as the studio's client sends them through a proxy: the real sizes
            state = _request_state(i, now)
            asked = {"confirm": {"method": "elicitation/create", "params": {
                "mode": "form", "message": f"Delete the file /f{i}?", "requestedSchema": {
                    "type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}}}}
            first_params, answers = {**params, "_meta": _request_meta(i, 1)}, {"confirm": {
                "action": "accept", "content": {"confirm": True}}}
            retry_params = {**params, "inputResponses": answers, "requestState": state, "_meta": _request_meta(i, 2)}
            done = f"Deleted /f{i}"
        else:
            state = f"v1.payload{i}.signature{i}"
            asked = {"confirm": {"method": "elicitation/create", "params": {"message": "Delete the file?"}}}
            first_params, done = params, "File deleted"
            retry_params = {**params, "inputResponses": {"confirm": {"action": "accept"}}, "requestState": state}
        wire: list[tuple[int, Direction, MessageKind, dict[str, Any]]] = [
            (1, "client->server", "request", {"jsonrpc": "2.0", "id": 2 * i, "method": "tools/call",
                                              "params": first_params}),
            (1, "server->client", "input_required", {"jsonrpc": "2.0", "id": 2 * i, "result": {
                "resultType": "input_required", "inputRequests": asked, "requestState": state}}),
            (2, "client->server", "request", {"jsonrpc": "2.0", "id": 2 * i + 1, "method": "tools/call",
                                              "params": retry_params}),
            (2, "server->client", "complete", {"jsonrpc": "2.0", "id": 2 * i + 1, "result": {
                "resultType": "complete", "content": [{"type": "text", "text": done}]}}),
        ]
        for round_number, direction, kind, message in wire:
            seq = 4 * first + len(messages)
            packed = pack(message) if transport else message
            meta = proxy_transport(2 * i + round_number, direction, len(packed), now + seq / 1000) \
                if transport else None
            messages.append(TraceMessage(seq, op.id, round_number, direction, kind, packed, now + seq / 1000,
                                         method=message.get("method"), jsonrpc_id=message["id"], transport=meta))
    return ops, messages


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="write a synthetic proxy-recorded trace (four messages a flow)")
    parser.add_argument("path")
    parser.add_argument("--operations", type=int, default=250_000, help="flows (250,000 make 1,000,000 messages)")
    arguments = parser.parse_args()
    print(save_synthetic(arguments.path, arguments.operations))
