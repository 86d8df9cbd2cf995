"""Three real `serve` nodes, one secret, one real redis-server: a single-use state completes once in the cluster.

The fixture starts redis-server on a free loopback port (skipped, with the reason, where it is not
installed); the HAProxy test puts a real HAProxy in front of the nodes, one URL for the client.
"""


import pytest

from mrtr_studio.teaching.cluster import start_cluster
from mrtr_studio.teaching.cluster_services import free_port, start_haproxy, start_redis
from mrtr_studio.teaching.replay_across import replay_across
from tests.services import require

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_per_node_memory_accepts_a_replay_on_every_other_node() -> None:
    """The bug the shared store fixes: this test shows it, so the next one can fail."""
    async with await start_cluster(3, shared_secret=True) as cluster:
        report = await replay_across(cluster.urls, "memory")
    assert report.error is None
    assert report.first is not None and report.first.answer == "File deleted"
    assert [a.answer for a in report.replays] == ["File deleted", "File deleted"]
    assert report.accepted == 3


async def test_shared_redis_refuses_the_replay_on_each_other_node(redis) -> None:  # type: ignore[no-untyped-def]
    async with await start_cluster(3, shared_secret=True, store=redis.url) as cluster:
        report = await replay_across(cluster.urls, redis.url)
        # ...and each node refuses a replay even when it is the one that completed the flow
        back_home = await replay_across([cluster.urls[1], cluster.urls[1], cluster.urls[2], cluster.urls[0]],
                                        redis.url)
    assert report.error is None
    assert report.first is not None and report.first.answer == "File deleted"
    assert [a.reason for a in report.replays] == ["replayed", "replayed"]
    assert [a.url for a in report.replays] == cluster.urls[1:]
    assert report.accepted == 1
    assert [a.reason for a in back_home.replays] == ["replayed"] * 3


async def test_a_redis_outage_refuses_with_the_documented_error_then_recovers(redis) -> None:  # type: ignore[no-untyped-def]
    async with await start_cluster(3, shared_secret=True, store=redis.url) as cluster:
        before = await replay_across(cluster.urls, redis.url)
        port = redis.port
        await redis.stop()  # Redis dies mid-flow: round 1 needs no store, the completion does
        during = await replay_across(cluster.urls, redis.url)
        listing = await _list_tools(cluster.urls[2])
        restarted = await start_redis(port=port, password=redis.password)
        try:
            after = await replay_across(cluster.urls, redis.url)
        finally:
            await restarted.stop()
    assert before.accepted == 1
    assert during.error is None and during.first is not None
    assert during.first.accepted is False
    assert during.first.answer == "-32603 Shared store unavailable (store_unavailable)"
    assert all(a.reason == "store_unavailable" for a in during.replays)
    assert during.accepted == 0  # never a silent accept while the store is down
    assert "delete_file" in listing  # what needs no store is still served
    assert after.first is not None and after.first.answer == "File deleted"
    assert [a.reason for a in after.replays] == ["replayed", "replayed"]


async def test_through_haproxy_one_url_refuses_the_replay_on_every_node(redis) -> None:  # type: ignore[no-untyped-def]
    require("haproxy")
    port = free_port()
    async with await start_cluster(3, shared_secret=True, store=redis.url, balancer_port=port) as cluster:
        balancer = await start_haproxy(cluster.urls, port=port)
        try:
            shared = await replay_across([balancer.url], redis.url, replays=3)
        finally:
            await balancer.stop()
    async with await start_cluster(3, shared_secret=True, balancer_port=port) as cluster:
        balancer = await start_haproxy(cluster.urls, port=port)
        try:
            memory = await replay_across([balancer.url], "memory", replays=3)
        finally:
            await balancer.stop()
    # HAProxy balanced every request on its own: round 1, the completion and 3 replays over 3 nodes
    assert [a.served_by for a in [shared.first, *shared.replays] if a] == ["node1", "node2", "node0", "node1"]
    assert shared.first is not None and shared.first.answer == "File deleted"
    assert [a.reason for a in shared.replays] == ["replayed"] * 3
    assert memory.accepted > 1  # without the shared store the same balancer lets replays through


async def _list_tools(url: str) -> str:
    import httpx

    from mrtr_studio.protocol.versions import META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, MODERN_VERSION

    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list",
               "params": {"_meta": {META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_CAPABILITIES: {}}}}
    async with httpx.AsyncClient(timeout=15) as client:
        reply = await client.post(url, json=message, headers={
            "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": MODERN_VERSION,
            "Mcp-Method": "tools/list"})
    return reply.text


ORPHANING_PARENT = """
import asyncio, sys
sys.path.insert(0, {root!r})
from mrtr_studio.teaching.cluster_services import start_redis

async def main():
    service = await start_redis()
    print(service.process.pid, service.port, service.folder.name, flush=True)
    await asyncio.sleep(120)  # killed long before this ends

asyncio.run(main())
"""


def test_redis_stops_when_the_process_that_started_it_is_killed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import contextlib
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    require("redis-server")
    script = tmp_path / "parent.py"
    script.write_text(ORPHANING_PARENT.format(root=str(Path(__file__).resolve().parents[2])))
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        line = parent.stdout.readline() if parent.stdout else ""
        words = line.split()
        tether, port, folder = int(words[0]), int(words[1]), Path(words[2])
        assert folder.is_dir()
        children = Path(f"/proc/{tether}/task/{tether}/children").read_text().split()
        assert len(children) == 1  # the redis-server the tether runs
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
        parent.send_signal(signal.SIGKILL)  # no cleanup code runs in the parent
        parent.wait(10)
        for _ in range(300):  # a bounded wait: up to 30 s on a busy machine
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                time.sleep(0.1)
                continue
            break
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        for _ in range(100):  # the tether removes the folder once redis-server has exited
            if not folder.exists():
                break
            time.sleep(0.1)
        assert not folder.exists()
    finally:
        parent.kill()
        parent.wait(10)
        with contextlib.suppress(Exception):
            for pid in [tether, *map(int, children)]:
                os.kill(pid, signal.SIGKILL)


async def test_redis_dies_between_the_rounds_then_the_same_retry_completes_once_it_is_back(redis) -> None:  # type: ignore[no-untyped-def]
    import itertools

    import httpx

    from mrtr_studio.protocol.roundtrip import build_retry
    from mrtr_studio.teaching.replay_across import ACCEPT_ANSWER, _post, _request

    ids = itertools.count(1)
    async with await start_cluster(3, shared_secret=True, store=redis.url) as cluster, \
            httpx.AsyncClient(timeout=30) as client:
        zero, one, two = cluster.urls
        first = _request(ids)
        asked, _ = await _post(client, zero, first)  # round 1 with Redis up
        retry = build_retry(first, asked["result"], dict(ACCEPT_ANSWER), next(ids))
        port = redis.port
        await redis.stop()
        refused, _ = await _post(client, one, retry)  # the completion needs the store: refused, not accepted
        restarted = await start_redis(port=port, password=redis.password)
        try:
            done, _ = await _post(client, two, {**retry, "id": next(ids)})  # the same retry, after recovery
            again, _ = await _post(client, zero, {**retry, "id": next(ids)})
        finally:
            await restarted.stop()
    assert refused["error"]["code"] == -32603
    assert refused["error"]["message"] == "Shared store unavailable"
    assert refused["error"]["data"]["reason"] == "store_unavailable"
    assert done["result"]["content"][0]["text"] == "File deleted"  # the refused attempt consumed nothing
    assert again["error"]["data"]["reason"] == "replayed"
