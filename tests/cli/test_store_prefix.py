"""Redis keys are namespaced per deployment: by default under the signing secret's key id, so two
deployments with different secrets sharing one Redis never see each other's consumed states, tasks or
live-task counts; `--store-prefix` names the namespace explicitly; bad values are refused by name."""

import subprocess
import sys
import time

import pytest
import redis.asyncio as aioredis

from mrtr_studio.cli.serve_store import attach_store, check_store_flag
from mrtr_studio.engine.options import MrtrOptions, ServerOptions
from mrtr_studio.engine.state_token import StateCodec
from mrtr_studio.engine.tasks.task_store import TaskLimitReached
from mrtr_studio.scenarios.demo import build_demo_server
from tests.engine.task_records import record

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


@pytest.mark.parametrize(("flags", "says"), [
    (["--store", "redis://127.0.0.1:6379/0", "--store-prefix", ""], "--store-prefix takes 1 to 128"),
    (["--store", "redis://127.0.0.1:6379/0", "--store-prefix", "a b"], "--store-prefix takes 1 to 128"),
    (["--store-prefix", "mine:"], "--store-prefix needs --store redis://"),
])
def test_a_bad_store_prefix_is_refused_naming_the_flag(flags: list[str], says: str) -> None:
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "serve", "--port", "0", *flags],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr
    assert check_store_flag("redis://127.0.0.1:6379/0", "ok:") is None


def server(secret: str):  # type: ignore[no-untyped-def]
    return build_demo_server(ServerOptions(mrtr=MrtrOptions(secret=secret)))


@pytest.mark.anyio
async def test_deployments_with_different_secrets_never_share_keys(redis) -> None:  # type: ignore[no-untyped-def]
    a1, a2, b, named = server("secret-a"), server("secret-a"), server("secret-b"), server("secret-b")
    closers = [await attach_store(a1, redis.url), await attach_store(a2, redis.url),
               await attach_store(b, redis.url), await attach_store(named, redis.url, "team-x:")]
    admin = aioredis.from_url(redis.url)
    try:
        kid_a = StateCodec.from_secrets("secret-a").signing_key_id
        assert a1.replay_guard.prefix == a2.replay_guard.prefix == f"mrtr-studio:{kid_a}:"  # type: ignore[attr-defined]
        assert b.replay_guard.prefix != a1.replay_guard.prefix  # type: ignore[attr-defined]
        assert a1.tasks.store.prefix == a1.replay_guard.prefix  # type: ignore[attr-defined]
        expires = time.time() + 60
        assert await a1.replay_guard.claim("nonce-1", expires)
        assert not await a2.replay_guard.claim("nonce-1", expires)  # same deployment: consumed once
        assert await b.replay_guard.claim("nonce-1", expires)  # another secret: its own namespace
        assert await named.replay_guard.claim("nonce-1", expires)
        # Live-task counts are per deployment too: alice's tasks on A do not use up her quota on B.
        await a1.tasks.store.create(record("t1", at=time.time()), max_live=1)
        with pytest.raises(TaskLimitReached):
            await a2.tasks.store.create(record("t2", at=time.time()), max_live=1)
        await b.tasks.store.create(record("t3", at=time.time()), max_live=1)
        assert await b.tasks.store.get("t1") is None and await a2.tasks.store.get("t1") is not None
        keys = sorted(k.decode() for k in await admin.keys("*"))
        assert all(k.startswith((f"mrtr-studio:{kid_a}:", b.replay_guard.prefix, "team-x:"))  # type: ignore[attr-defined]
                   for k in keys), keys
        assert any(k.startswith("team-x:replay:") for k in keys)
    finally:
        await admin.aclose()
        for close in closers:
            await close()
