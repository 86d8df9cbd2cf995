"""RedisReplayStore's claim on its pipelined connection, against a real redis-server: one winner per
nonce across nodes, the database of the URL, a clear StoreUnavailable when Redis is down, recovery after."""

import asyncio
import time

import pytest
import redis.asyncio as aioredis

from mrtr_studio.engine.shared_store import StoreUnavailable
from mrtr_studio.stores.redis_replay import RedisReplayStore
from mrtr_studio.teaching.cluster_services import start_redis

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_concurrent_claims_of_one_nonce_on_three_nodes_have_one_winner(redis) -> None:  # type: ignore[no-untyped-def]
    nodes = [RedisReplayStore.from_url(redis.url, time.time) for _ in range(3)]
    try:
        assert all(node.pipeline is not None for node in nodes)
        for round_number in range(20):
            nonce = f"nonce-{round_number}"
            results = await asyncio.gather(*(node.claim(nonce, time.time() + 60) for node in nodes for _ in range(4)))
            assert sorted(results) == [False] * 11 + [True]
    finally:
        for node in nodes:
            await node.close()


async def test_the_claim_lands_in_the_urls_database_with_its_expiry(redis) -> None:  # type: ignore[no-untyped-def]
    store = RedisReplayStore.from_url(redis.url.rsplit("/", 1)[0] + "/3", time.time, prefix="t:")
    check = aioredis.from_url(redis.url.rsplit("/", 1)[0] + "/3")
    try:
        assert await store.claim("abc", time.time() + 30)
        assert 0 < await check.ttl("t:replay:abc") <= 30
        assert await aioredis.from_url(redis.url).exists("t:replay:abc") == 0  # not in database 0
    finally:
        await store.close()
        await check.aclose()


async def test_redis_down_refuses_within_a_bound_then_recovers(redis) -> None:  # type: ignore[no-untyped-def]
    store = RedisReplayStore.from_url(redis.url, time.time)
    try:
        assert await store.claim("before", time.time() + 60)
        port = redis.port
        await redis.stop()
        began = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await store.claim("during", time.time() + 60)
        assert time.monotonic() - began < 5
        again = await start_redis(port=port, password=redis.password)
        try:
            assert await store.claim("after", time.time() + 60)
            assert not await store.claim("after", time.time() + 60)
        finally:
            await again.stop()
    finally:
        await store.close()


async def test_a_redis_that_never_answers_refuses_within_the_reply_bound() -> None:
    """A server that takes the connection and the command and says nothing: the claim fails with
    StoreUnavailable once the reply is overdue (never a hang), and so does every command behind it."""
    held: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        await reader.read(1 << 16)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    store = RedisReplayStore.from_url(f"redis://127.0.0.1:{port}/0", time.time)
    try:
        began = time.monotonic()
        outcomes = await asyncio.gather(*(store.claim(f"n{i}", time.time() + 60) for i in range(3)),
                                        return_exceptions=True)
        waited = time.monotonic() - began
        assert all(isinstance(outcome, StoreUnavailable) for outcome in outcomes), outcomes
        assert 0.9 < waited < 3  # SOCKET_TIMEOUT (1 s) and at most one sweep of a quarter of it
    finally:
        await store.close()
        for writer in held:
            writer.close()
        server.close()
