"""The Redis the cluster starts has a password: a client without it is refused (NOAUTH), the nodes get
it through their environment, and it is on no command line, in no label and in no printed line."""

import asyncio
import os
from pathlib import Path

import pytest

from mrtr_studio import defaults
from mrtr_studio.teaching.cluster import split_password, start_cluster
from mrtr_studio.teaching.replay_across import replay_across
from tests.services import require

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.timeout(90)]


async def redis_says(port: int, *lines: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for line in lines:
            writer.write(line + b"\r\n")
        await writer.drain()
        return await asyncio.wait_for(reader.readline(), 10) + await asyncio.wait_for(reader.readline(), 10)
    finally:
        writer.close()


async def test_the_clusters_redis_wants_its_password_and_the_nodes_have_it(redis) -> None:  # type: ignore[no-untyped-def]
    require("redis-server")
    refused = await redis_says(redis.port, b"PING", b"PING")
    assert refused.startswith(b"-NOAUTH")
    allowed = await redis_says(redis.port, b"AUTH " + redis.password.encode(), b"PING")
    assert allowed == b"+OK\r\n+PONG\r\n"
    server = Path(f"/proc/{redis.process.pid}/task/{redis.process.pid}/children").read_text().split()
    command_lines = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in [redis.process.pid, *server]]
    assert all(redis.password.encode() not in line for line in command_lines)
    assert redis.password not in redis.shown_url and redis.password in redis.url
    async with await start_cluster(2, shared_secret=True, store=redis.url) as cluster:
        assert cluster.store == redis.shown_url  # the label the views show
        for node in cluster.nodes:
            assert redis.password.encode() not in Path(f"/proc/{node.process.pid}/cmdline").read_bytes()
            environ = Path(f"/proc/{node.process.pid}/environ").read_bytes()
            assert f"{defaults.STORE_PASSWORD_ENV}={redis.password}".encode() in environ
        report = await replay_across(cluster.urls, redis.shown_url)
    assert report.accepted == 1  # the nodes share the store: the replay on the other node is refused
    stderr = b"".join([await node.process.stderr.read() for node in cluster.nodes if node.process.stderr])
    assert redis.password.encode() not in stderr


def test_split_password_takes_it_out_of_the_url() -> None:
    assert split_password("redis://:s%2Fx@127.0.0.1:6379/0") == ("redis://127.0.0.1:6379/0", "s/x")
    assert split_password("redis://127.0.0.1:6379/0") == ("redis://127.0.0.1:6379/0", None)
    assert os.environ.get(defaults.STORE_PASSWORD_ENV) is None
