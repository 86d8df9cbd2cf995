"""How fast the filter language runs over a big trace: `python tools/bench_filter.py [N]` builds N
messages (default 1,000,000: a tools/call request, its input_required, the retry, the result, over
N/4 operations), packed as a loaded trace keeps them, and times compiling, binding and filtering
with a few expressions. A benchmark, not a test: it prints the numbers and asserts nothing."""

import sys
import time

from mrtr_studio.trace.filter import compile_filter
from mrtr_studio.trace.model import Operation, TraceMessage, pack
from mrtr_studio.trace.store import link_replies

EXPRESSIONS = [
    "kind:error",
    "tool:delete_file round:>1 kind:complete -kind:auth",
    "duration:>500ms",
    "state:altered",
    "text:production",
    "code:-32602 or finding:error",
]


def build(count: int) -> tuple[list[Operation], list[TraceMessage]]:
    operations: list[Operation] = []
    messages: list[TraceMessage] = []
    seq = 0
    for number in range(count // 4):
        op = Operation(f"op{number:08d}", "tools/call", "delete_file" if number % 2 else "deploy_wizard",
                       {"path": "/a"}, "modern", "embedded", started=float(number))
        operations.append(op)
        ask = {"resultType": "input_required", "requestState": f"v1.state{number}",
               "inputRequests": {"confirm": {"method": "elicitation/create", "params": {"message": "Delete?"}}}}
        bodies = [
            ("client->server", "request", 1, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                              "params": {"name": op.target, "arguments": {"path": "/a"}}}),
            ("server->client", "input_required", 1, {"jsonrpc": "2.0", "id": 1, "result": ask}),
            ("client->server", "request", 2, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": op.target, "requestState": f"v1.state{number}",
                "inputResponses": {"confirm": {"action": "accept", "content": {"env": "production"}}}}}),
            ("server->client", "complete" if number % 10 else "error", 2,
             {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "File deleted"}]}}
             if number % 10 else {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "no"}}),
        ]
        for step, (direction, kind, round_number, body) in enumerate(bodies):
            messages.append(TraceMessage(seq, op.id, round_number, direction, kind, pack(body),  # type: ignore[arg-type]
                                         float(number) + step * 0.3, body.get("method"), body["id"]))
            seq += 1
    return operations, link_replies(messages)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    began = time.perf_counter()
    operations, messages = build(count)
    print(f"built {len(messages):,} messages in {time.perf_counter() - began:.1f} s")
    for expression in EXPRESSIONS:
        began = time.perf_counter()
        compiled = compile_filter(expression)
        bound = compiled.bind(operations, messages)
        test = bound.matches
        matched = sum(1 for m in messages if test(m))
        print(f"{time.perf_counter() - began:6.2f} s  {matched:>9,} match  {expression}")


if __name__ == "__main__":
    main()
