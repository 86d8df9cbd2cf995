"""Riding out a shared-store outage in a task's runner, instead of losing the task's result.

A task's body runs in the background on one node; its status changes and its final result are
writes to the task store. When that store is a shared one (Redis) it can be away for a while, and
a failed final write would end the runner and lose the result for good. So every store call the
runner makes goes through `StoreRetry.call`: on `StoreUnavailable` it waits (doubling from
`first_pause` up to `max_pause`) and tries again, until the task's TTL has passed (no client may
read the task after that anyway) or, for a task without a TTL, until `unlimited_bound` seconds.
Then it gives up with `StoreOutageOutlasted`, which the runner logs with a clear reason.
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ..shared_store import StoreUnavailable

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How long a runner keeps trying when its task has no TTL (a sane bound, not forever).
DEFAULT_UNLIMITED_BOUND = 600.0
FIRST_PAUSE = 0.05
MAX_PAUSE = 2.0


class StoreOutageOutlasted(Exception):
    """The store stayed unavailable until the runner's deadline; the message says what was lost and why."""


class StoreRetry:
    """Retries one runner's store calls through an outage, up to a deadline on the event loop's clock."""

    def __init__(self, task_id: str, ttl_ms: int | None, unlimited_bound: float = DEFAULT_UNLIMITED_BOUND,
                 first_pause: float = FIRST_PAUSE, max_pause: float = MAX_PAUSE) -> None:
        self.task_id = task_id
        self.bound = ttl_ms / 1000 if ttl_ms is not None else unlimited_bound
        self.bound_name = "the task's TTL" if ttl_ms is not None else "the retry bound for tasks without a TTL"
        self.first_pause = first_pause
        self.max_pause = max_pause
        self.deadline = asyncio.get_running_loop().time() + self.bound
        #: Failed attempts over this runner's life (shown in logs, read by tests and the studio).
        self.failures = 0

    async def call(self, what: str, operation: Callable[[], Awaitable[T]]) -> T:
        """`await operation()`, retried on StoreUnavailable until the deadline; `what` names it in logs."""
        loop = asyncio.get_running_loop()
        pause = self.first_pause
        while True:
            try:
                return await operation()
            except StoreUnavailable as problem:
                self.failures += 1
                left = self.deadline - loop.time()
                if left <= 0:
                    raise StoreOutageOutlasted(
                        f"task {self.task_id}: gave up on {what}: the shared store stayed unavailable "
                        f"({problem.detail}) until {self.bound_name} ({self.bound:g} s) ran out") from problem
                log.warning("task %s: %s failed (%s); retrying in %.2f s", self.task_id, what, problem.detail,
                            min(pause, left))
                await asyncio.sleep(min(pause, left))
                pause = min(pause * 2, self.max_pause)
