"""The shared store on Redis (`serve --store redis://HOST:PORT/DB`), with the `redis` package's asyncio client.

Consumption is one atomic `SET key token NX EX ttl`: of several nodes racing with the same state,
exactly one sets the key, and the key expires with the state (after which the state fails
verification anyway), so Redis holds only live nonces. A run that did not complete frees its key
with a compare-and-delete script, so only the claimer can free it. Every call is bounded in time
(connect and socket timeouts, one quick retry) and in connections (a blocking pool): a Redis that
is down or too slow raises `StoreUnavailable` within about a second, and the pool reconnects by
itself once Redis answers again.
"""

import logging
import math
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ConstantBackoff
from redis.exceptions import RedisError

from ..engine.entropy import random_text
from ..engine.shared_store import StoreUnavailable, check_nonce
from .redis_pipeline import PipelinedRedis, PipelineError, supports

log = logging.getLogger(__name__)

DEFAULT_PREFIX = "mrtr-studio:"
#: The longest --store-prefix accepted (it starts every key).
MAX_PREFIX = 128
#: Seconds to connect, and to wait for one reply; the whole store call stays near a second when Redis is gone.
CONNECT_TIMEOUT = 0.5
SOCKET_TIMEOUT = 1.0
MAX_CONNECTIONS = 32
_UNAVAILABLE = "the shared store (Redis) did not answer; a single-use state cannot be accepted until it does"
#: Delete the key only if it still holds this claim's token (a later claimer's key is left alone).
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"


def check_store_url(url: str) -> str:
    """`redis://HOST:PORT/DB` (or `rediss://`, `unix://`); a clear ValueError otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss", "unix"):
        raise ValueError(f"--store expects memory or redis://HOST:PORT/DB, got {url!r}")
    if parts.scheme != "unix":
        if not parts.hostname:
            raise ValueError(f"--store {url!r} names no host")
        try:
            parts.port  # noqa: B018 - raises ValueError on a bad port
        except ValueError:
            raise ValueError(f"--store {url!r} has an invalid port") from None
        db = parts.path.strip("/")
        if db and not db.isdigit():
            raise ValueError(f"--store {url!r}: the database must be a number, got {db!r}")
    return url


def deployment_prefix(key_id: str) -> str:
    """The default namespace of a deployment: named by its signing key's id, so deployments with
    different secrets sharing one Redis never read or count each other's keys (tasks, live counts,
    consumed states)."""
    return f"{DEFAULT_PREFIX}{key_id}:"


def check_prefix(value: str) -> str:
    """A --store-prefix: 1 to MAX_PREFIX printable characters, no spaces (a clear ValueError otherwise)."""
    if not value or len(value) > MAX_PREFIX or not value.isprintable() or any(c.isspace() for c in value):
        raise ValueError(f"--store-prefix takes 1 to {MAX_PREFIX} printable characters without spaces, "
                         f"got {value!r}")
    return value


def connect(url: str) -> "aioredis.Redis":
    """A client whose every call is bounded in time and connections (no I/O happens here)."""
    check_store_url(url)
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=MAX_CONNECTIONS, timeout=SOCKET_TIMEOUT, socket_connect_timeout=CONNECT_TIMEOUT,
        socket_timeout=SOCKET_TIMEOUT, retry=Retry(ConstantBackoff(0.05), 1), health_check_interval=0)
    return aioredis.Redis(connection_pool=pool)


def redacted(url: str) -> str:
    """The URL without its password, for logs and the studio."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    return parts._replace(netloc=f"{parts.username or ''}:***@{netloc}").geturl()


class RedisReplayStore:
    """Consumed requestState nonces in Redis, shared by every node that names the same database."""

    def __init__(self, client: "aioredis.Redis", clock: Callable[[], float], prefix: str = DEFAULT_PREFIX,
                 description: str = "redis", pipeline: PipelinedRedis | None = None) -> None:
        self.client = client
        #: The claim's own lean connection (redis_pipeline), when the URL allows one; else redis-py.
        self.pipeline = pipeline
        self.clock = clock
        self.prefix = prefix
        self.description = description
        self._release: Any = client.register_script(_RELEASE)
        #: nonce -> the token this process set, for the compare-and-delete.
        self._tokens: dict[str, str] = {}

    @classmethod
    def from_url(cls, url: str, clock: Callable[[], float], prefix: str = DEFAULT_PREFIX) -> "RedisReplayStore":
        pipeline = PipelinedRedis(url, CONNECT_TIMEOUT, SOCKET_TIMEOUT) if supports(url) else None
        return cls(connect(url), clock, prefix, description=redacted(url), pipeline=pipeline)

    def key(self, nonce: str) -> str:
        return f"{self.prefix}replay:{nonce}"

    def _ttl(self, expires: float) -> int:
        return max(1, math.ceil(expires - self.clock()))

    async def claim(self, nonce: str, expires: float) -> bool:
        check_nonce(nonce)
        token = random_text(12)  # ours to compare-and-delete; drawn in bulk (engine/entropy)
        try:
            if self.pipeline is not None:
                claimed = await self.pipeline.call(b"SET", self.key(nonce).encode(), token.encode(), b"NX", b"EX",
                                                   str(self._ttl(expires)).encode())
            else:
                claimed = await self.client.set(self.key(nonce), token, nx=True, ex=self._ttl(expires))
        except (RedisError, PipelineError) as exc:
            log.warning("replay store %s: %s: %s", self.description, type(exc).__name__, exc)
            raise StoreUnavailable(_UNAVAILABLE) from exc
        if claimed:
            self._tokens[nonce] = token
        return bool(claimed)

    async def settle(self, nonce: str, expires: float, consumed: bool) -> None:
        token = self._tokens.pop(nonce, None)
        if consumed or token is None:
            return  # the key stays until the state expires: the nonce is spent on every node
        try:
            await self._release(keys=[self.key(nonce)], args=[token])
        except RedisError as exc:
            # Not freed: this state cannot be retried before it expires (safe: never used twice).
            log.warning("replay store %s: could not free a claim: %s", self.description, exc)

    async def ping(self) -> bool:
        """True when Redis answers now (serve checks it at start, only to warn)."""
        try:
            return bool(await self.client.ping())
        except RedisError:
            return False

    async def close(self) -> None:
        if self.pipeline is not None:
            self.pipeline.close()
        await self.client.aclose(close_connection_pool=True)
