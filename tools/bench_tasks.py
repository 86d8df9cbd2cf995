"""Tasks (SEP-2663) speed, printed: the engine's tasks/get rate on the memory store, a full task flow,
and the diagram layout of a task polled many times (collapsed runs).

    python tools/bench_tasks.py [--polls 5000] [--tasks 200]
"""

import argparse
import asyncio
import itertools
import time
from typing import Any

from mrtr_studio.protocol.tasks_extension import TASKS_EXTENSION
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.trace import TraceStore
from mrtr_studio.trace.diagram_layout import layout_operation

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {TASKS_EXTENSION: {}}}}


async def engine_rates(polls: int, tasks: int) -> None:
    server = build_demo_server()
    server.options.tasks.max_live_per_principal = tasks + 1
    session = server.open_session(user="bench")
    ids = itertools.count(1)

    async def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
        reply = await server.handle({"jsonrpc": "2.0", "id": next(ids), "method": method,
                                     "params": {**params, "_meta": META}}, session)
        assert reply is not None and "result" in reply, reply
        return reply["result"]

    started = time.perf_counter()
    created = [await call("tools/call", {"name": "confirm_delete", "arguments": {"filename": f"f{i}"}})
               for i in range(tasks)]
    create_seconds = time.perf_counter() - started
    task_id = created[0]["taskId"]
    started = time.perf_counter()
    for _ in range(polls):
        await call("tasks/get", {"taskId": task_id})
    poll_seconds = time.perf_counter() - started
    started = time.perf_counter()
    for task in created:
        while (await call("tasks/get", {"taskId": task["taskId"]}))["status"] != "input_required":
            await asyncio.sleep(0)
        await call("tasks/update", {"taskId": task["taskId"],
                                    "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": True}}}})
        while (await call("tasks/get", {"taskId": task["taskId"]}))["status"] != "completed":
            await asyncio.sleep(0)
    flow_seconds = time.perf_counter() - started
    await server.tasks.close()
    print(f"create {tasks} tasks: {create_seconds * 1000 / tasks:.3f} ms each")
    print(f"tasks/get on one task: {polls / poll_seconds:,.0f} per second ({poll_seconds * 1e6 / polls:.0f} µs each)")
    print(f"answer and finish {tasks} tasks (polls, update, polls): {flow_seconds * 1000 / tasks:.2f} ms each")


def layout_rate(polls: int) -> None:
    store = TraceStore()
    op = store.begin_operation("tools/call", "long_report", {}, "modern", "embedded")
    task = {"taskId": "t", "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
            "ttlMs": 60000, "pollIntervalMs": 100}
    store.record(op.id, 1, "client->server", {"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {}})
    store.record(op.id, 1, "server->client", {"jsonrpc": "2.0", "id": 0, "result": {
        "resultType": "task", "status": "working", **task}})
    store.note_task(op.id, "t", "working", 1)
    for n in range(1, polls + 1):
        store.record(op.id, 2, "client->server", {"jsonrpc": "2.0", "id": n, "method": "tasks/get",
                                                  "params": {"taskId": "t"}})
        store.record(op.id, 2, "server->client", {"jsonrpc": "2.0", "id": n, "result": {
            "resultType": "complete", "status": "working", **task}})
    started = time.perf_counter()
    layout = layout_operation(store.operation(op.id), store.messages_of(op.id))
    seconds = time.perf_counter() - started
    drawn = sum(1 for arrow in layout.arrows if arrow.seq is not None)
    print(f"diagram of {polls} polls: {seconds * 1000:.1f} ms, {drawn} arrows drawn, height {layout.height:.0f} px")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--polls", type=int, default=5000)
    parser.add_argument("--tasks", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(engine_rates(args.polls, args.tasks))
    layout_rate(args.polls)


if __name__ == "__main__":
    main()
