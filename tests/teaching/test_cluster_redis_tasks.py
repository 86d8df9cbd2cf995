"""A task across three real `serve` nodes sharing one real Redis: created on node 0, polled on node 1,
answered on node 2, and completed by node 0's runner, which hears the answer only through the store."""

import asyncio
import itertools
from typing import Any

import httpx
import pytest

from mrtr_studio.protocol import tasks_extension as tasks_protocol
from mrtr_studio.protocol.versions import META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, MODERN_VERSION
from mrtr_studio.teaching.cluster import start_cluster
from mrtr_studio.teaching.replay_across import _post

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
CAPS = {"elicitation": {}, "extensions": {tasks_protocol.TASKS_EXTENSION: {}}}


def message(ids: "itertools.count[int]", method: str, params: dict[str, Any]) -> dict[str, Any]:
    meta = {META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_CAPABILITIES: CAPS}
    return {"jsonrpc": "2.0", "id": next(ids), "method": method, "params": {**params, "_meta": meta}}


async def poll(client: httpx.AsyncClient, url: str, ids: "itertools.count[int]", task_id: str,
               *statuses: str) -> dict[str, Any]:
    for _ in range(300):  # bounded: 300 polls at the pace below
        reply, _ = await _post(client, url, message(ids, "tasks/get", {"taskId": task_id}))
        result = reply["result"]
        if result["status"] in statuses:
            return result
        await asyncio.sleep(0.05)
    raise AssertionError(f"task never reached {statuses} on {url}; last {result}")


async def test_a_task_created_on_node_0_is_polled_on_node_1_and_answered_on_node_2(redis) -> None:  # type: ignore[no-untyped-def]
    ids = itertools.count(1)
    async with await start_cluster(3, shared_secret=True, store=redis.url) as cluster, \
            httpx.AsyncClient(timeout=30) as client:
        zero, one, two = cluster.urls
        created, _ = await _post(client, zero, message(ids, "tools/call", {
            "name": "confirm_delete", "arguments": {"filename": "a.txt"}}))
        task_id = created["result"]["taskId"]
        asking = await poll(client, one, ids, task_id, "input_required")
        answer = {"confirm": {"action": "accept", "content": {"confirm": True}}}
        ack, _ = await _post(client, two, message(ids, "tasks/update", {"taskId": task_id, "inputResponses": answer}))
        done = await poll(client, one, ids, task_id, "completed", "failed")
        seen_on_two = await poll(client, two, ids, task_id, "completed", "failed")
    assert created["result"]["resultType"] == "task"
    assert list(asking["inputRequests"]) == ["confirm"]
    assert ack["result"] == {"resultType": "complete"}
    assert done["status"] == "completed"
    assert done["result"] == {"content": [{"type": "text", "text": "Deleted a.txt"}]}
    assert seen_on_two["result"] == done["result"]


async def test_with_per_node_memory_another_node_does_not_know_the_task() -> None:
    """Without the shared store the task lives on node 0 only: what the Redis test above must overcome."""
    ids = itertools.count(1)
    async with await start_cluster(2, shared_secret=True) as cluster, httpx.AsyncClient(timeout=30) as client:
        created, _ = await _post(client, cluster.urls[0], message(ids, "tools/call", {
            "name": "confirm_delete", "arguments": {"filename": "a.txt"}}))
        elsewhere, _ = await _post(client, cluster.urls[1], message(ids, "tasks/get",
                                                                    {"taskId": created["result"]["taskId"]}))
    assert "error" in elsewhere


async def test_the_task_across_run_shows_node_1_not_knowing_the_task_without_a_shared_store() -> None:
    from mrtr_studio.teaching.task_across import task_across

    async with await start_cluster(3, shared_secret=True) as cluster:
        report = await task_across(cluster.urls, "memory")
    assert not report.completed and report.run is not None
    assert [(hop.method, hop.served_by) for hop in report.hops] == [("tools/call", "node0"), ("tasks/get", "node1")]
    assert report.hops[1].status.startswith("error -32602") and "Task not found" in report.summary()
