"""A task's runner rides out a task-store outage: its final write is retried, never lost to an exception."""

import asyncio
import logging
from typing import Any

import pytest

from mrtr_studio.engine.shared_store import StoreUnavailable
from mrtr_studio.engine.tasks.task_store import MemoryTaskStore, Mutate, TaskRecord
from mrtr_studio.scenarios import build_demo_server
from tests.engine.test_tasks import TASK_CAPS, poll_until, tasks_call
from tests.engine.wire import Wire

pytestmark = pytest.mark.anyio


class FlakyStore(MemoryTaskStore):
    """The memory store, whose next `fail_updates` writes raise StoreUnavailable (a store that is away)."""

    def __init__(self) -> None:
        super().__init__()
        self.fail_updates = 0
        self.failed = 0

    async def update(self, task_id: str, mutate: Mutate) -> TaskRecord | None:
        if self.fail_updates > 0:
            self.fail_updates -= 1
            self.failed += 1
            raise StoreUnavailable("the store is away (test)")
        return await super().update(task_id, mutate)


async def start_slow_compute(wire: Wire, seconds: float) -> tuple[str, asyncio.Task[None]]:
    created = (await wire.call("slow_compute", {"seconds": seconds, "label": "x"}, caps=TASK_CAPS))["result"]
    task_id = created["taskId"]
    return task_id, wire.server.tasks.running[task_id]


async def wait_for_status_message(wire: Wire, task_id: str, start: str) -> None:
    for _ in range(500):
        reply = await tasks_call(wire, "tasks/get", {"taskId": task_id})
        if reply.get("result", {}).get("statusMessage", "").startswith(start):
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"the task never showed {start!r}")


async def test_the_final_result_is_written_after_a_few_failed_attempts() -> None:
    server = build_demo_server()
    store = FlakyStore()
    server.tasks.store = store
    server.options.tasks.store_retry_max_pause = 0.05
    wire = Wire(server, user="alice")
    task_id, runner = await start_slow_compute(wire, 0.3)
    await poll_until(wire, task_id, "working")
    await wait_for_status_message(wire, task_id, "Computing")
    store.fail_updates = 4  # the next writes are the final result's
    done = await poll_until(wire, task_id, "completed", "failed")
    assert done["status"] == "completed"
    assert done["result"]["content"][0]["text"] == "Computed x after 0.3 s"
    assert store.failed == 4
    await asyncio.wait_for(runner, 5)
    assert runner.exception() is None


async def test_a_status_change_is_retried_too() -> None:
    server = build_demo_server()
    store = FlakyStore()
    store.fail_updates = 3  # the body's first write (its status message) meets the outage
    server.tasks.store = store
    server.options.tasks.store_retry_max_pause = 0.05
    wire = Wire(server, user="alice")
    task_id, runner = await start_slow_compute(wire, 0.1)
    done = await poll_until(wire, task_id, "completed", "failed")
    assert done["status"] == "completed" and store.failed == 3
    await asyncio.wait_for(runner, 5)


async def test_an_outage_past_the_ttl_gives_up_with_a_logged_reason(caplog: pytest.LogCaptureFixture) -> None:
    server = build_demo_server()
    store = FlakyStore()
    server.tasks.store = store
    server.options.tasks.ttl_ms = 400
    server.options.tasks.store_retry_max_pause = 0.05
    wire = Wire(server, user="alice")
    task_id, runner = await start_slow_compute(wire, 0.1)
    await wait_for_status_message(wire, task_id, "Computing")
    store.fail_updates = 1_000_000  # never comes back
    with caplog.at_level(logging.ERROR, logger="mrtr_studio.engine.tasks.service"):
        await asyncio.wait_for(runner, 10)
    assert runner.exception() is None  # ended quietly, not with an unhandled exception
    lost = [r.getMessage() for r in caplog.records if "task result lost" in r.getMessage()]
    assert len(lost) == 1, caplog.text
    assert task_id in lost[0] and "final status (completed)" in lost[0] and "the task's TTL (0.4 s)" in lost[0]
    assert store.failed >= 2


@pytest.mark.slow
async def test_a_paused_redis_at_the_final_write_still_gets_the_result(redis: Any) -> None:
    """CLIENT PAUSE holds every reply past the client's timeout exactly when the body finishes."""
    import redis.asyncio as aioredis

    from mrtr_studio.stores.redis_tasks import RedisTaskStore

    server = build_demo_server()
    server.tasks.store = RedisTaskStore.from_url(redis.url)
    admin = aioredis.from_url(redis.url)
    wire = Wire(server, user="alice")
    try:
        task_id, runner = await start_slow_compute(wire, 0.5)
        await wait_for_status_message(wire, task_id, "Computing")
        await admin.execute_command("CLIENT", "PAUSE", 5000, "ALL")  # past the client's timeout and its retry
        await asyncio.wait_for(runner, 30)
        assert runner.exception() is None
        done = (await tasks_call(wire, "tasks/get", {"taskId": task_id}))["result"]
        assert done["status"] == "completed", done
        assert done["result"]["content"][0]["text"] == "Computed x after 0.5 s"
    finally:
        await admin.aclose()
        await server.tasks.close()
        await server.tasks.store.close()  # type: ignore[attr-defined]
