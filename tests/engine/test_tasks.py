"""The tasks extension (SEP-2663) as transcripts: create, poll, ask, answer, cancel, expire, refuse."""

import asyncio
from typing import Any

import pytest

from mrtr_studio.engine import ServerOptions
from mrtr_studio.engine.tasks.task_store import MemoryTaskStore
from mrtr_studio.protocol.tasks_extension import TASKS_EXTENSION
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.scenarios.demo import DemoServer
from tests.engine.wire import ALL_CAPS, Wire, accept, meta

pytestmark = pytest.mark.anyio

TASK_CAPS: dict[str, Any] = {**ALL_CAPS, "extensions": {TASKS_EXTENSION: {}}}


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def tasks_call(wire: Wire, method: str, params: dict[str, Any], caps: dict[str, Any] | None = None) -> Any:
    return await wire.send(method, {**params, "_meta": meta(TASK_CAPS if caps is None else caps)})


async def poll_until(wire: Wire, task_id: str, *statuses: str) -> dict[str, Any]:
    """Poll tasks/get (yielding to the runner between polls) until the task shows one of `statuses`."""
    for _ in range(500):
        reply = await tasks_call(wire, "tasks/get", {"taskId": task_id})
        result = reply["result"]
        if result["status"] in statuses:
            return result
        await asyncio.sleep(0.005)
    raise AssertionError(f"task never reached {statuses}; last {result}")


@pytest.fixture
def wire() -> Wire:
    return Wire(build_demo_server(), user="alice")


async def test_working_input_required_update_completed(wire: Wire) -> None:
    created = (await wire.call("confirm_delete", {"filename": "a.txt"}, caps=TASK_CAPS))["result"]
    assert created["resultType"] == "task" and created["status"] == "working"
    assert "requestState" not in created and "result" not in created
    assert created["pollIntervalMs"] == 200 and created["ttlMs"] == 600_000
    task_id = created["taskId"]
    asking = await poll_until(wire, task_id, "input_required")
    assert list(asking["inputRequests"]) == ["confirm"]
    assert asking["inputRequests"]["confirm"]["method"] == "elicitation/create"
    answers = {"confirm": accept(confirm=True)}
    ack = await tasks_call(wire, "tasks/update", {"taskId": task_id, "inputResponses": answers})
    assert ack["result"] == {"resultType": "complete"}
    done = await poll_until(wire, task_id, "completed", "failed")
    assert done["status"] == "completed"
    assert done["result"] == {"content": [{"type": "text", "text": "Deleted a.txt"}]}
    assert "inputRequests" not in done


async def test_partial_answers_keep_the_rest_outstanding_and_answers_count_once(wire: Wire) -> None:
    task_id = (await wire.call("multi_input", caps=TASK_CAPS))["result"]["taskId"]
    asking = await poll_until(wire, task_id, "input_required")
    assert sorted(asking["inputRequests"]) == ["confirm", "name"]
    await tasks_call(wire, "tasks/update", {"taskId": task_id, "inputResponses": {
        "name": accept(name="Ada"), "never-asked": {"x": 1}}})
    after = (await tasks_call(wire, "tasks/get", {"taskId": task_id}))["result"]
    assert after["status"] == "input_required" and list(after["inputRequests"]) == ["confirm"]
    # a second answer to an answered key is ignored: the first one stands
    await tasks_call(wire, "tasks/update", {"taskId": task_id, "inputResponses": {
        "name": accept(name="Mallory"), "confirm": accept(confirm=True)}})
    done = await poll_until(wire, task_id, "completed")
    assert done["result"]["content"][0]["text"] == "Hello, Ada; both inputs received"


async def test_cancel_is_an_ack_and_the_task_settles_cancelled(wire: Wire) -> None:
    task_id = (await wire.call("slow_compute", {"seconds": 60, "label": "x"}, caps=TASK_CAPS))["result"]["taskId"]
    ack = await tasks_call(wire, "tasks/cancel", {"taskId": task_id})
    assert ack["result"] == {"resultType": "complete"}
    seen = (await tasks_call(wire, "tasks/get", {"taskId": task_id}))["result"]
    assert seen["status"] == "cancelled"
    for _ in range(50):
        if not wire.server.tasks.running:
            break
        await asyncio.sleep(0.01)
    assert wire.server.tasks.running == {}, "the runner stops once it sees the cancellation"
    again = await tasks_call(wire, "tasks/cancel", {"taskId": task_id})
    assert again["result"] == {"resultType": "complete"}


async def test_tool_error_completes_and_protocol_error_fails(wire: Wire) -> None:
    failing = (await wire.call("failing_job", caps=TASK_CAPS))["result"]["taskId"]
    crashing = (await wire.call("protocol_error_job", caps=TASK_CAPS))["result"]["taskId"]
    crashed = await poll_until(wire, crashing, "completed", "failed", "cancelled")
    assert crashed["status"] == "failed" and crashed["error"]["code"] == -32603 and "result" not in crashed
    done = await poll_until(wire, failing, "completed", "failed", "cancelled")
    assert done["status"] == "completed" and done["result"]["isError"] is True


async def test_mrtr_rounds_come_before_the_task(wire: Wire) -> None:
    first = (await wire.call("test_tool_with_task", caps=TASK_CAPS))["result"]
    assert first["resultType"] == "input_required" and "taskId" not in first
    second = (await wire.call("test_tool_with_task", caps=TASK_CAPS, responses={"user_name": accept(name="Alice")},
                              state=first["requestState"]))["result"]
    assert second["resultType"] == "task" and "requestState" not in second
    done = await poll_until(wire, second["taskId"], "completed")
    assert "Alice" in done["result"]["content"][0]["text"]


async def test_without_the_extension(wire: Wire) -> None:
    sync = (await wire.call("slow_compute", {"seconds": 0.01, "label": "y"}))["result"]
    assert sync["resultType"] == "complete" and "taskId" not in sync
    required = await wire.call("failing_job")
    assert required["error"]["code"] == -32021
    assert required["error"]["data"] == {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}
    asks_inline = await wire.call("confirm_delete", {"filename": "b"})
    assert asks_inline["error"]["code"] == -32021
    too_long = await wire.call("slow_compute", {"seconds": 3600})  # refused at once, not held for an hour
    assert too_long["error"]["code"] == -32021 and "longer than 10 s" in too_long["error"]["message"]
    for method, extra in (("tasks/get", {}), ("tasks/update", {"inputResponses": {}}), ("tasks/cancel", {})):
        reply = await tasks_call(wire, method, {"taskId": "nope", **extra}, caps=ALL_CAPS)
        assert reply["error"]["code"] == -32021, method
    discovered = (await wire.send("server/discover", {"_meta": meta()}))["result"]
    extensions = discovered["capabilities"]["extensions"]
    assert extensions[TASKS_EXTENSION] == {} and set(extensions) == {TASKS_EXTENSION, "io.modelcontextprotocol/skills"}


async def test_another_principal_cannot_see_or_touch_the_task() -> None:
    server = build_demo_server()
    alice, bob = Wire(server, user="alice"), Wire(server, user="bob")
    task_id = (await alice.call("confirm_delete", {"filename": "c"}, caps=TASK_CAPS))["result"]["taskId"]
    await poll_until(alice, task_id, "input_required")
    unknown = await tasks_call(bob, "tasks/get", {"taskId": "0" * 32})
    for method, extra in (("tasks/get", {}), ("tasks/update", {"inputResponses": {"confirm": accept(confirm=True)}}),
                          ("tasks/cancel", {})):
        refused = await tasks_call(bob, method, {"taskId": task_id, **extra})
        assert refused["error"]["code"] == -32602, method
        assert refused["error"]["message"].endswith("Task not found")
    assert unknown["error"]["code"] == -32602
    still = (await tasks_call(alice, "tasks/get", {"taskId": task_id}))["result"]
    assert still["status"] == "input_required" and list(still["inputRequests"]) == ["confirm"]


async def test_ttl_expiry_makes_the_task_unknown() -> None:
    clock = Clock()
    server = DemoServer(options=ServerOptions())
    from mrtr_studio.scenarios.task_fixtures import register_task_tools

    server.tasks.store = MemoryTaskStore(clock=clock)
    server.tasks.clock = clock
    server.options.tasks.ttl_ms = 5_000
    register_task_tools(server)
    wire = Wire(server, user="alice")
    task_id = (await wire.call("confirm_delete", {"filename": "d"}, caps=TASK_CAPS))["result"]["taskId"]
    assert (await tasks_call(wire, "tasks/get", {"taskId": task_id}))["result"]["ttlMs"] == 5_000
    clock.now += 4.9
    assert "result" in await tasks_call(wire, "tasks/get", {"taskId": task_id})
    clock.now += 0.2
    expired = await tasks_call(wire, "tasks/get", {"taskId": task_id})
    assert expired["error"] == {"code": -32602, "message": "Failed to retrieve task: Task has expired"}
    gone = await tasks_call(wire, "tasks/get", {"taskId": task_id})
    assert gone["error"]["message"] == "Failed to retrieve task: Task not found"
    await server.tasks.close()


async def test_live_tasks_per_principal_are_capped() -> None:
    server = build_demo_server()
    server.options.tasks.max_live_per_principal = 2
    alice, bob = Wire(server, user="alice"), Wire(server, user="bob")
    for _ in range(2):
        assert (await alice.call("slow_compute", {"seconds": 60}, caps=TASK_CAPS))["result"]["resultType"] == "task"
    third = await alice.call("slow_compute", {"seconds": 60}, caps=TASK_CAPS)
    assert third["error"]["code"] == -32603 and "Too many live tasks" in third["error"]["message"]
    assert (await bob.call("slow_compute", {"seconds": 60}, caps=TASK_CAPS))["result"]["resultType"] == "task"
    await server.tasks.close()


async def test_bad_task_params_are_invalid_params(wire: Wire) -> None:
    assert (await tasks_call(wire, "tasks/get", {}))["error"]["code"] == -32602
    assert (await tasks_call(wire, "tasks/get", {"taskId": 7}))["error"]["code"] == -32602
    task_id = (await wire.call("confirm_delete", {"filename": "e"}, caps=TASK_CAPS))["result"]["taskId"]
    bad = await tasks_call(wire, "tasks/update", {"taskId": task_id, "inputResponses": {"confirm": 3}})
    assert bad["error"]["code"] == -32602
    for removed in ("tasks/result", "tasks/list"):
        assert (await tasks_call(wire, removed, {"taskId": task_id}))["error"]["code"] == -32601
    await wire.server.tasks.close()


async def test_an_answer_reaches_a_runner_through_a_store_another_node_writes() -> None:
    """Two servers sharing one store: the update served by the second reaches the runner on the first."""
    store = MemoryTaskStore()
    first, second = build_demo_server(), build_demo_server()
    first.tasks.store = second.tasks.store = store
    node1, node2 = Wire(first, user="alice"), Wire(second, user="alice")
    task_id = (await node1.call("confirm_delete", {"filename": "f"}, caps=TASK_CAPS))["result"]["taskId"]
    await poll_until(node2, task_id, "input_required")
    await tasks_call(node2, "tasks/update", {"taskId": task_id, "inputResponses": {"confirm": accept(confirm=False)}})
    done = await poll_until(node2, task_id, "completed")
    assert done["result"]["content"][0]["text"] == "Kept f"
    assert second.tasks.running == {}
