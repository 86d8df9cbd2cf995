"""MemoryTaskStore keeps the TaskStore contract a shared store must keep too."""

import asyncio

import pytest

from mrtr_studio.engine.tasks.task_store import MemoryTaskStore, TaskLimitReached, TaskRecord
from tests.engine.task_records import Clock, record

pytestmark = pytest.mark.anyio


async def test_records_are_copies_and_update_is_the_only_write() -> None:
    store = MemoryTaskStore(clock=Clock())
    await store.create(record("a"))
    got = await store.get("a")
    assert got is not None
    got.status = "completed"
    again = await store.get("a")
    assert again is not None and again.status == "working" and again.version == 0

    def finish(r: TaskRecord) -> None:
        r.status = "completed"
        r.result = {"content": []}

    stored = await store.update("a", finish)
    assert stored is not None and stored.status == "completed" and stored.version == 1
    assert await store.update("missing", finish) is None
    with pytest.raises(ValueError):
        await store.create(record("a"))


async def test_a_failing_mutation_stores_nothing() -> None:
    store = MemoryTaskStore(clock=Clock())
    await store.create(record("a"))

    def broken(r: TaskRecord) -> None:
        r.status = "failed"
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        await store.update("a", broken)
    got = await store.get("a")
    assert got is not None and got.status == "working" and got.version == 0


async def test_live_cap_counts_only_live_tasks_of_that_principal() -> None:
    clock = Clock()
    store = MemoryTaskStore(clock=clock)
    await store.create(record("a1"), max_live=2)
    await store.create(record("a2"), max_live=2)
    await store.create(record("b1", principal="bob"), max_live=2)
    with pytest.raises(TaskLimitReached):
        await store.create(record("a3"), max_live=2)
    assert await store.get("a3") is None
    await store.update("a1", lambda r: setattr(r, "status", "cancelled"))
    assert await store.count_live("alice") == 1
    await store.create(record("a3"), max_live=2)
    clock.now += 61
    assert await store.count_live("alice") == 0


async def test_expired_records_are_dropped_by_the_next_create() -> None:
    clock = Clock()
    store = MemoryTaskStore(clock=clock)
    await store.create(record("old", ttl_ms=1000))
    clock.now += 2
    await store.create(record("new", at=clock.now))
    assert await store.get("old") is None
    assert await store.get("new") is not None


async def test_wait_for_change_wakes_on_update_from_elsewhere_and_times_out_otherwise() -> None:
    store = MemoryTaskStore(clock=Clock())
    await store.create(record("a"))
    quiet = await store.wait_for_change("a", 0, 0.01)
    assert quiet is not None and quiet.version == 0

    async def answer_later() -> None:
        await asyncio.sleep(0)
        await store.update("a", lambda r: r.input_responses.update({"k": {"action": "accept"}}))

    waiter = asyncio.ensure_future(store.wait_for_change("a", 0, 30))
    await answer_later()
    changed = await waiter
    assert changed is not None and changed.input_responses == {"k": {"action": "accept"}}
    # already changed: returns at once
    assert (await store.wait_for_change("a", 0, 30)) is not None
    waiter = asyncio.ensure_future(store.wait_for_change("a", 1, 30))
    await asyncio.sleep(0)
    await store.delete("a")
    assert await waiter is None


async def test_round_trips_through_json() -> None:
    original = record("a")
    original.input_requests = {"k": {"method": "elicitation/create", "params": {}}}
    assert TaskRecord.from_json(original.to_json()) == original


async def test_a_full_store_forgets_finished_tasks_first_and_refuses_when_all_are_live() -> None:
    store = MemoryTaskStore(clock=Clock(), max_records=2)
    await store.create(record("a"))
    await store.create(record("b"))
    with pytest.raises(TaskLimitReached):
        await store.create(record("c"))
    await store.update("a", lambda r: setattr(r, "status", "completed"))
    await store.create(record("c"))
    assert await store.get("a") is None and await store.get("b") is not None and await store.get("c") is not None


def test_one_store_serves_one_event_loop_after_another() -> None:
    store = MemoryTaskStore(clock=Clock())

    async def wait_once(task_id: str) -> None:
        await store.create(record(task_id))
        waiter = asyncio.ensure_future(store.wait_for_change(task_id, 0, 30))
        await asyncio.sleep(0)
        await store.update(task_id, lambda r: setattr(r, "status_message", "hi"))
        assert (await waiter) is not None

    asyncio.run(wait_once("a"))
    asyncio.run(wait_once("b"))
