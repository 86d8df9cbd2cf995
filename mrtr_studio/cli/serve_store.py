"""`serve --store`: the engine's shared state in this process's memory, or in Redis for a cluster.

With `redis://HOST:PORT/DB` every node naming the same database refuses a single-use state that
any node already completed. Redis need not be up when `serve` starts: the node warns once and
serves what does not need the store; requests that do get the documented `store_unavailable`
error until Redis answers, then work again without a restart.
"""

import sys
from collections.abc import Awaitable, Callable

from ..engine import McpServer

Closer = Callable[[], Awaitable[None]]


def check_store_flag(value: str) -> str | None:
    """None when the flag is valid, else the message to print."""
    if value == "memory":
        return None
    from ..engine.redis_store import check_store_url

    try:
        check_store_url(value)
    except ValueError as exc:
        return str(exc)
    return None


async def attach_store(server: McpServer, value: str) -> Closer:
    """Give `server` the store `value` names; returns what closes it. Warns when Redis does not answer yet."""
    if value == "memory":
        return server.replay_guard.close
    from ..engine.redis_store import RedisReplayStore
    from ..engine.redis_tasks import RedisTaskStore

    store = RedisReplayStore.from_url(value, clock=server.codec.clock)
    server.replay_guard = store
    closers = [store.close]
    manager = getattr(server, "tasks", None)  # the tasks extension's manager, where the engine has it
    if manager is not None and hasattr(manager, "store"):
        tasks = RedisTaskStore.from_url(value)
        manager.store = tasks
        closers.append(tasks.close)
    if not await store.ping():
        print(f"mrtr-studio serve: the store {store.description} does not answer yet; requests that need it "
              "get a store_unavailable error until it does", file=sys.stderr, flush=True)

    async def close() -> None:
        for closer in closers:
            await closer()

    return close
