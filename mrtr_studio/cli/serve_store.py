"""`serve --store`: the engine's shared state in this process's memory, or in Redis for a cluster.

With `redis://HOST:PORT/DB` every node naming the same database refuses a single-use state that
any node already completed. Redis need not be up when `serve` starts: the node warns once and
serves what does not need the store; requests that do get the documented `store_unavailable`
error until Redis answers, then work again without a restart.
"""

import os
import sys
from collections.abc import Awaitable, Callable
from urllib.parse import quote, urlsplit

from .. import defaults
from ..engine import McpServer

Closer = Callable[[], Awaitable[None]]


def check_store_flag(value: str, prefix: str | None = None) -> str | None:
    """None when --store (and --store-prefix) are valid, else the message to print."""
    if value == "memory":
        return None if prefix is None else "--store-prefix needs --store redis://HOST:PORT/DB (memory has no keys)"
    from ..stores.redis_replay import check_prefix, check_store_url

    try:
        check_store_url(value)
        if prefix is not None:
            check_prefix(prefix)
    except ValueError as exc:
        return str(exc)
    return None


def with_password(url: str, password: str | None) -> str:
    """`url` with `password` in it when it has none (from the environment: never a command line)."""
    parts = urlsplit(url)
    if not password or parts.password is not None or parts.scheme not in ("redis", "rediss"):
        return url
    user, _, host = parts.netloc.rpartition("@")  # a user already in the URL stays, as written
    return parts._replace(netloc=f"{user}:{quote(password, safe='')}@{host}").geturl()


def store_prefix(server: McpServer, prefix: str | None) -> str:
    """--store-prefix, else the deployment's own namespace (named by its signing key's id)."""
    from ..stores.redis_replay import deployment_prefix

    return prefix if prefix is not None else deployment_prefix(server.codec.signing_key_id)


async def attach_store(server: McpServer, value: str, prefix: str | None = None) -> Closer:
    """Give `server` the store `value` names, its keys under `prefix` (default: `store_prefix`); returns
    what closes it. Warns when Redis does not answer yet."""
    if value == "memory":
        return server.replay_guard.close
    from ..stores.redis_replay import RedisReplayStore
    from ..stores.redis_tasks import RedisTaskStore

    value = with_password(value, os.environ.get(defaults.STORE_PASSWORD_ENV))
    namespace = store_prefix(server, prefix)
    if prefix is None and len(server.codec.keys) > 1:
        print(f"mrtr-studio serve: the store's keys are under {namespace!r}, named by the signing key; a rotation "
              "that changes the first --secret changes it too (pass --store-prefix to keep one namespace)",
              file=sys.stderr, flush=True)
    store = RedisReplayStore.from_url(value, clock=server.codec.clock, prefix=namespace)
    server.replay_guard = store
    closers = [store.close]
    manager = getattr(server, "tasks", None)  # the tasks extension's manager, where the engine has it
    if manager is not None and hasattr(manager, "store"):
        tasks = RedisTaskStore.from_url(value, prefix=namespace)
        manager.store = tasks
        closers.append(tasks.close)
    if not await store.ping():
        print(f"mrtr-studio serve: the store {store.description} does not answer yet; requests that need it "
              "get a store_unavailable error until it does", file=sys.stderr, flush=True)

    async def close() -> None:
        for closer in closers:
            await closer()

    return close
