"""Tasks in Redis: the `TaskStore` protocol shared by every node naming the same database.

Layout (under one prefix): `task:ID` holds the record as JSON and expires with the task
(`expires_at`, by the store's clock); `live:PRINCIPAL` is a sorted set of that principal's
non-terminal task ids scored by expiry, which the live cap counts. Creating (with the cap) is one
Lua script, so two nodes cannot both slip under the cap; `update` is WATCH / MULTI / EXEC and
retries a bounded number of times when another node wrote in between (`mutate` depends on the
record alone, as the protocol requires). Waiters poll the version with a short, growing interval,
so an answer given on one node reaches the runner on another within a fraction of a second,
without a subscription per waiter. Redis errors become `StoreUnavailable`.
"""

import asyncio
import json
import math
import time
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError, WatchError

from ..engine.shared_store import StoreUnavailable
from ..engine.tasks.task_store import Clock, Mutate, TaskLimitReached, TaskRecord
from .redis_replay import DEFAULT_PREFIX, connect, redacted

#: A stored record larger than this is refused on write and treated as corrupt on read.
MAX_RECORD_BYTES = 1024 * 1024
#: Conflicting writes tolerated in one `update` before giving up (each retry re-reads the record).
MAX_UPDATE_ATTEMPTS = 32
POLL_FIRST, POLL_MAX = 0.02, 0.2
_NEVER = "+inf"
_UNAVAILABLE = "the shared store (Redis) did not answer; the task cannot be read or changed until it does"

#: KEYS: task key, live set. ARGV: json, px (0 = no expiry), live score, task id, now, max_live (-1 = none).
_CREATE = """
if redis.call('exists', KEYS[1]) == 1 then return 'taken' end
redis.call('zremrangebyscore', KEYS[2], '-inf', '(' .. ARGV[5])
if tonumber(ARGV[6]) >= 0 and redis.call('zcard', KEYS[2]) >= tonumber(ARGV[6]) then return 'limit' end
if tonumber(ARGV[2]) > 0 then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('set', KEYS[1], ARGV[1])
end
redis.call('zadd', KEYS[2], ARGV[3], ARGV[4])
return 'ok'
"""


class RedisTaskStore:
    """TaskStore on Redis; records are the protocol's JSON (`TaskRecord.to_json`)."""

    def __init__(self, client: "aioredis.Redis", clock: Clock = time.time, prefix: str = DEFAULT_PREFIX,
                 description: str = "redis") -> None:
        self.client = client
        self.clock = clock
        self.prefix = prefix
        self.description = description
        self._create: Any = client.register_script(_CREATE)

    @classmethod
    def from_url(cls, url: str, clock: Clock = time.time, prefix: str = DEFAULT_PREFIX) -> "RedisTaskStore":
        return cls(connect(url), clock, prefix, description=redacted(url))

    def _key(self, task_id: str) -> str:
        return f"{self.prefix}task:{task_id}"

    def _live(self, principal: str) -> str:
        return f"{self.prefix}live:{principal}"

    def _px(self, record: TaskRecord) -> int:
        """Milliseconds the key lives: until the task expires (at least 1), 0 for a task without TTL."""
        expires = record.expires_at
        return 0 if expires is None else max(1, math.ceil((expires - self.clock()) * 1000))

    @staticmethod
    def _encode(record: TaskRecord) -> str:
        text = json.dumps(record.to_json(), separators=(",", ":"))
        if len(text) > MAX_RECORD_BYTES:
            raise ValueError(f"a task record may hold at most {MAX_RECORD_BYTES} bytes of JSON")
        return text

    @staticmethod
    def _decode(raw: bytes | str | None) -> TaskRecord | None:
        if raw is None or len(raw) > MAX_RECORD_BYTES:
            return None
        try:
            data = json.loads(raw)
            return TaskRecord.from_json(data) if isinstance(data, dict) else None
        except (ValueError, TypeError):
            return None

    async def create(self, record: TaskRecord, max_live: int | None = None) -> None:
        expires = record.expires_at
        try:
            outcome = await self._create(
                keys=[self._key(record.task_id), self._live(record.principal)],
                args=[self._encode(record), self._px(record), _NEVER if expires is None else repr(expires),
                      record.task_id, repr(self.clock()), -1 if max_live is None else max_live])
        except RedisError as exc:
            raise StoreUnavailable(_UNAVAILABLE) from exc
        outcome = outcome.decode() if isinstance(outcome, bytes) else str(outcome)
        if outcome == "taken":
            raise ValueError(f"task id {record.task_id!r} is taken")
        if outcome == "limit":
            raise TaskLimitReached(record.principal)

    async def get(self, task_id: str) -> TaskRecord | None:
        try:
            return self._decode(await self.client.get(self._key(task_id)))
        except RedisError as exc:
            raise StoreUnavailable(_UNAVAILABLE) from exc

    async def update(self, task_id: str, mutate: Mutate) -> TaskRecord | None:
        key = self._key(task_id)
        try:
            for _ in range(MAX_UPDATE_ATTEMPTS):
                async with self.client.pipeline(transaction=True) as pipe:
                    try:
                        await pipe.watch(key)
                        record = self._decode(await pipe.get(key))
                        if record is None:
                            return None
                        mutate(record)  # raising here stores nothing: the pipeline is reset on exit
                        record.version += 1
                        record.updated_at = max(self.clock(), record.updated_at)
                        pipe.multi()
                        px = self._px(record)
                        if px:
                            pipe.set(key, self._encode(record), px=px)
                        else:
                            pipe.set(key, self._encode(record))
                        if record.terminal:
                            pipe.zrem(self._live(record.principal), task_id)
                        await pipe.execute()
                        return record
                    except WatchError:
                        continue  # another node wrote first: read again and re-apply
        except RedisError as exc:
            raise StoreUnavailable(_UNAVAILABLE) from exc
        raise StoreUnavailable(f"task {task_id!r} changed {MAX_UPDATE_ATTEMPTS} times while being updated")

    async def count_live(self, principal: str) -> int:
        live = self._live(principal)
        try:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.zremrangebyscore(live, "-inf", f"({self.clock()!r}")
                pipe.zcard(live)
                _, count = await pipe.execute()
        except RedisError as exc:
            raise StoreUnavailable(_UNAVAILABLE) from exc
        return int(count)

    async def delete(self, task_id: str) -> None:
        record = await self.get(task_id)
        try:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.delete(self._key(task_id))
                if record is not None:
                    pipe.zrem(self._live(record.principal), task_id)
                await pipe.execute()
        except RedisError as exc:
            raise StoreUnavailable(_UNAVAILABLE) from exc

    async def wait_for_change(self, task_id: str, seen_version: int, timeout: float) -> TaskRecord | None:
        """Polls; an outage after the first read is waited through (the runner sees "no change yet" and
        waits again) rather than ending the node's runner, which would lose the task's result."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(timeout, 0)
        pause = POLL_FIRST
        last = await self.get(task_id)  # an outage here raises: there is nothing to report yet
        while True:
            if last is None or last.version != seen_version:
                return last
            left = deadline - loop.time()
            if left <= 0:
                return last
            await asyncio.sleep(min(pause, left))
            pause = min(pause * 2, POLL_MAX)
            try:
                last = await self.get(task_id)
            except StoreUnavailable:
                pause = POLL_MAX  # Redis is away: keep the last record seen and try again later

    async def close(self) -> None:
        await self.client.aclose(close_connection_pool=True)
