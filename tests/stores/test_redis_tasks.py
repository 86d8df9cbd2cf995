"""RedisTaskStore keeps the TaskStore contract against a real redis-server, across two clients (two nodes)."""

import asyncio

import pytest

from mrtr_studio.engine.shared_store import StoreUnavailable
from mrtr_studio.engine.tasks.task_store import TaskLimitReached, TaskRecord
from mrtr_studio.stores.redis_tasks import RedisTaskStore
from mrtr_studio.teaching.cluster_services import start_redis
from tests.engine.task_records import Clock, record

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture
async def nodes(redis):  # type: ignore[no-untyped-def]
    clock = Clock()
    stores = [RedisTaskStore.from_url(redis.url, clock=clock) for _ in range(3)]
    try:
        yield clock, stores
    finally:
        for store in stores:
            await store.close()


async def test_created_on_one_node_read_and_changed_on_the_others(nodes) -> None:  # type: ignore[no-untyped-def]
    _, (zero, one, two) = nodes
    await zero.create(record("a"))
    got = await one.get("a")
    assert got is not None and got.status == "working" and got.version == 0
    got.status = "completed"  # a copy: nothing stored changes
    assert (await two.get("a")).status == "working"  # type: ignore[union-attr]

    def finish(r: TaskRecord) -> None:
        r.status = "completed"
        r.result = {"content": []}

    stored = await two.update("a", finish)
    assert stored is not None and stored.version == 1
    assert (await zero.get("a")) == stored
    assert await one.update("missing", finish) is None
    with pytest.raises(ValueError):
        await one.create(record("a"))


async def test_a_failing_mutation_stores_nothing(nodes) -> None:  # type: ignore[no-untyped-def]
    _, (zero, one, _two) = nodes
    await zero.create(record("a"))

    def broken(r: TaskRecord) -> None:
        r.status = "failed"
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        await one.update("a", broken)
    got = await zero.get("a")
    assert got is not None and got.status == "working" and got.version == 0


async def test_concurrent_updates_from_every_node_are_all_kept(nodes) -> None:  # type: ignore[no-untyped-def]
    _, stores = nodes
    await stores[0].create(record("a"))

    async def answer(store: RedisTaskStore, key: str) -> None:
        await store.update("a", lambda r: r.answered_keys.append(key))

    await asyncio.gather(*(answer(stores[i % 3], f"k{i}") for i in range(30)))
    final = await stores[1].get("a")
    assert final is not None and final.version == 30
    assert sorted(final.answered_keys) == sorted(f"k{i}" for i in range(30))


async def test_live_cap_holds_across_nodes(nodes) -> None:  # type: ignore[no-untyped-def]
    clock, (zero, one, two) = nodes
    await zero.create(record("a1"), max_live=2)
    await one.create(record("a2"), max_live=2)
    await two.create(record("b1", principal="bob"), max_live=2)
    with pytest.raises(TaskLimitReached):
        await two.create(record("a3"), max_live=2)
    assert await zero.get("a3") is None
    await one.update("a1", lambda r: setattr(r, "status", "cancelled"))
    assert await two.count_live("alice") == 1
    await two.create(record("a3"), max_live=2)
    clock.now += 61
    assert await zero.count_live("alice") == 0


async def test_keys_expire_with_the_task(nodes, redis) -> None:  # type: ignore[no-untyped-def]
    _, (zero, _one, _two) = nodes
    await zero.create(record("short", ttl_ms=30_000))
    await zero.create(record("forever", ttl_ms=None))
    ttl_ms = await zero.client.pttl("mrtr-studio:task:short")
    assert 29_000 <= ttl_ms <= 30_000
    assert await zero.client.pttl("mrtr-studio:task:forever") == -1
    await zero.update("short", lambda r: setattr(r, "status_message", "half way"))
    assert 0 < await zero.client.pttl("mrtr-studio:task:short") <= 30_000  # the expiry does not move


async def test_wait_on_one_node_wakes_on_an_update_made_on_another(nodes) -> None:  # type: ignore[no-untyped-def]
    _, (zero, one, two) = nodes
    await zero.create(record("a"))
    quiet = await one.wait_for_change("a", 0, 0.05)
    assert quiet is not None and quiet.version == 0
    waiter = asyncio.ensure_future(one.wait_for_change("a", 0, 30))
    await asyncio.sleep(0.05)
    await two.update("a", lambda r: r.input_responses.update({"k": {"action": "accept"}}))
    changed = await waiter
    assert changed is not None and changed.input_responses == {"k": {"action": "accept"}}
    waiter = asyncio.ensure_future(one.wait_for_change("a", 1, 30))
    await asyncio.sleep(0.05)
    await zero.delete("a")
    assert await waiter is None
    assert await zero.count_live("alice") == 0


async def test_redis_down_raises_store_unavailable_then_recovers(redis) -> None:  # type: ignore[no-untyped-def]
    store = RedisTaskStore.from_url(redis.url)
    try:
        await store.create(record("a", at=0, ttl_ms=None))
        port = redis.port
        await redis.stop()
        for call in (store.get("a"), store.update("a", lambda r: None), store.count_live("alice")):
            with pytest.raises(StoreUnavailable):
                await call
        again = await start_redis(port=port, password=redis.password)  # the same clients reconnect
        try:
            await store.create(record("b", at=0, ttl_ms=None))
            assert (await store.get("b")) is not None
        finally:
            await again.stop()
    finally:
        await store.close()


async def test_a_waiting_runner_waits_through_an_outage_and_hears_the_answer_after_it(redis) -> None:  # type: ignore[no-untyped-def]
    """Redis stops answering for longer than a reply may take (CLIENT PAUSE keeps its data, so nothing
    races a restart): the runner keeps waiting instead of failing, and hears the answer afterwards."""
    import redis.asyncio as aioredis

    runner_node = RedisTaskStore.from_url(redis.url)
    answering_node = RedisTaskStore.from_url(redis.url)
    admin = aioredis.from_url(redis.url)
    try:
        await runner_node.create(record("a", at=0, ttl_ms=None))
        waiter = asyncio.ensure_future(runner_node.wait_for_change("a", 0, 60))
        await asyncio.sleep(0.1)
        await admin.execute_command("CLIENT", "PAUSE", 2500, "ALL")  # every reply held past its timeout
        await asyncio.sleep(1.5)
        assert not waiter.done()  # still waiting, not failed
        await asyncio.sleep(1.2)  # the pause is over
        await answering_node.update("a", lambda r: r.input_responses.update({"k": {"action": "accept"}}))
        changed = await asyncio.wait_for(waiter, 30)
        assert changed is not None and changed.input_responses == {"k": {"action": "accept"}}
    finally:
        await admin.aclose()
        await runner_node.close()
        await answering_node.close()
