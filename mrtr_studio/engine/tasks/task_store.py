"""Where a task's state lives between requests (the `io.modelcontextprotocol/tasks` extension).

Everything a later request needs about a task — its status, result or error, the input requests
still outstanding, the answers received, who owns it, when it expires — is one `TaskRecord` in a
`TaskStore`. No other place holds task state: the runner that executes the task's body receives
answers and cancellation only by reading the store (`wait_for_change`), so a `tasks/update` or
`tasks/cancel` served by another node of a cluster reaches it as long as both share the store.

`MemoryTaskStore` is the default (one process). A shared store (e.g. Redis) implements the same
`TaskStore` protocol; records travel as JSON (`TaskRecord.to_json` / `from_json`).
"""

import asyncio
import contextlib
import copy
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

TERMINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})

Clock = Callable[[], float]
Mutate = Callable[["TaskRecord"], None]


class TaskLimitReached(Exception):
    """The principal already has as many live (non-terminal) tasks as the server allows."""


@dataclass
class TaskRecord:
    """One task, as stored. Times are unix seconds (floats); `version` counts committed changes."""

    task_id: str
    principal: str
    #: The request the task augments (`tools/call`) and its target (the tool's name).
    method: str
    name: str
    created_at: float
    updated_at: float
    #: Time-to-live from creation in milliseconds, None for unlimited.
    ttl_ms: int | None
    poll_interval_ms: int
    status: str = "working"
    status_message: str | None = None
    #: The final result (completed) or JSON-RPC error object (failed).
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    #: Input requests the client still has to answer, by key (what tasks/get shows as inputRequests).
    input_requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Answers received by tasks/update and not yet taken by the runner, by key.
    input_responses: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Every key ever asked over the task's life (keys are unique per task) and every key answered.
    asked_keys: list[str] = field(default_factory=list)
    answered_keys: list[str] = field(default_factory=list)
    #: Set by tasks/cancel; the runner stops at its next wait.
    cancel_requested: bool = False
    version: int = 0

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def expires_at(self) -> float | None:
        return None if self.ttl_ms is None else self.created_at + self.ttl_ms / 1000

    def expired(self, now: float) -> bool:
        expires = self.expires_at
        return expires is not None and now >= expires

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TaskRecord":
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


class TaskStore(Protocol):
    """The contract every task store keeps (memory, Redis, ...). All methods are coroutines.

    Records returned are copies: changing one changes nothing stored; only `update` writes.
    """

    async def create(self, record: TaskRecord, max_live: int | None = None) -> None:
        """Store a new record, durably: once this returns, `get(record.task_id)` finds it on every node.

        With `max_live`, atomically refuse (raise `TaskLimitReached`, storing nothing) when the
        principal already has `max_live` live tasks (see `count_live`). A taken task_id raises ValueError.
        """
        ...

    async def get(self, task_id: str) -> TaskRecord | None:
        """The record, or None when unknown or already dropped. Expired records may still be returned
        (the caller decides what expiry means); the store may drop them at any time after `expires_at`."""
        ...

    async def update(self, task_id: str, mutate: Mutate) -> TaskRecord | None:
        """Atomic read-modify-write: call `mutate` on the current record, store the result with
        `version` + 1 and `updated_at` = now, and wake every `wait_for_change` on this task.

        `mutate` may be called more than once (a store may retry on a conflicting write), so it must
        depend on the record alone. If it raises, nothing is stored and the exception propagates.
        Returns the stored record, or None (and calls nothing) when the task is unknown.
        """
        ...

    async def count_live(self, principal: str) -> int:
        """How many of `principal`'s tasks are not terminal and not expired."""
        ...

    async def delete(self, task_id: str) -> None:
        """Forget the task (no error when unknown); waiters wake and then see None."""
        ...

    async def wait_for_change(self, task_id: str, seen_version: int, timeout: float) -> TaskRecord | None:
        """Return as soon as the stored version differs from `seen_version` (at once if it already
        does), or after `timeout` seconds with the record as it is then. None when the task is gone.

        This is how the node running a task hears about answers and cancellation made anywhere:
        memory wakes on an event; a shared store may poll or subscribe.
        """
        ...


class MemoryTaskStore:
    """The default store: a dict and one asyncio.Condition, for a single process.

    Bounded: past `max_records`, the oldest finished tasks are forgotten first; when every stored
    task is still live, `create` refuses with TaskLimitReached.
    """

    def __init__(self, clock: Clock = time.time, max_records: int = 10_000) -> None:
        self.clock = clock
        self.max_records = max_records
        self._records: dict[str, dict[str, Any]] = {}
        self._condition: asyncio.Condition | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def _changed(self) -> asyncio.Condition:
        """One condition per event loop (a server object may outlive the loop that first used it)."""
        loop = asyncio.get_running_loop()
        if self._condition is None or self._loop is not loop:
            self._condition, self._loop = asyncio.Condition(), loop
        return self._condition

    def _copy(self, task_id: str) -> TaskRecord | None:
        data = self._records.get(task_id)
        return None if data is None else TaskRecord.from_json(_deep_copy(data))

    def _sweep(self) -> None:
        now = self.clock()
        for task_id in [t for t, data in self._records.items() if _expired(data, now)]:
            del self._records[task_id]

    async def create(self, record: TaskRecord, max_live: int | None = None) -> None:
        self._sweep()
        if record.task_id in self._records:
            raise ValueError(f"task id {record.task_id!r} is taken")
        if max_live is not None and await self.count_live(record.principal) >= max_live:
            raise TaskLimitReached(f"the principal already has {max_live} live tasks")
        if len(self._records) >= self.max_records:
            finished = sorted((data["updated_at"], task_id) for task_id, data in self._records.items()
                              if data["status"] in TERMINAL_STATUSES)
            if not finished:
                raise TaskLimitReached(f"the server holds {self.max_records} live tasks")
            for _, task_id in finished[: len(self._records) - self.max_records + 1]:
                del self._records[task_id]
        self._records[record.task_id] = _deep_copy(record.to_json())

    async def get(self, task_id: str) -> TaskRecord | None:
        return self._copy(task_id)

    async def update(self, task_id: str, mutate: Mutate) -> TaskRecord | None:
        record = self._copy(task_id)
        if record is None:
            return None
        mutate(record)
        record.version += 1
        record.updated_at = max(self.clock(), record.updated_at)
        self._records[task_id] = _deep_copy(record.to_json())
        await self._notify()
        return self._copy(task_id)

    async def count_live(self, principal: str) -> int:
        now = self.clock()
        return sum(1 for data in self._records.values() if data["principal"] == principal
                   and data["status"] not in TERMINAL_STATUSES and not _expired(data, now))

    async def delete(self, task_id: str) -> None:
        if self._records.pop(task_id, None) is not None:
            await self._notify()

    async def wait_for_change(self, task_id: str, seen_version: int, timeout: float) -> TaskRecord | None:
        def changed() -> bool:
            data = self._records.get(task_id)
            return data is None or data["version"] != seen_version

        condition = self._changed
        async with condition:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(condition.wait_for(changed), max(timeout, 0))
        return self._copy(task_id)

    async def _notify(self) -> None:
        condition = self._changed
        async with condition:
            condition.notify_all()


def _expired(data: dict[str, Any], now: float) -> bool:
    """`TaskRecord.expired` on a stored record, without building it (the store scans many)."""
    ttl = data["ttl_ms"]
    return ttl is not None and now >= data["created_at"] + ttl / 1000


def _deep_copy(data: dict[str, Any]) -> dict[str, Any]:
    """Records hold JSON only, so a deep copy is what a shared store's round trip would give."""
    return copy.deepcopy(data)
