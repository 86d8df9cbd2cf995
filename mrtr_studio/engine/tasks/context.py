"""What a task's body sees: the handler-facing side of the tasks extension.

A tool handler calls `response.start_task(body)`; the engine creates the task and runs
`await body(task)` in the background with a `TaskContext`. The body works in the seed's style:
it adds input requests to `task.input_required`, waits with `await task.wait_for_input()` (the
task shows `input_required` until every key is answered), reads answers with
`task.input_response(key)`, and fills `task.result` before returning. Every read and write goes
through the task store, so answers and cancellation made on any node reach it.
"""

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from ...protocol import capabilities
from ...protocol.errors import MISSING_REQUIRED_CLIENT_CAPABILITY, McpError
from ...protocol.tasks_extension import REQUIRED_TASKS
from ..handler_api import InputRequiredBuilder, Request, ResultBuilder
from .retry import StoreRetry
from .task_store import TaskRecord, TaskStore

#: The longest wait a body may do inline (for a client without the extension) before the call needs a task.
INLINE_MAX_SECONDS = 10.0


class TaskCancelled(Exception):
    """Raised inside the body when the client cancelled the task (or it expired and was dropped)."""


class TaskContext:
    """The running task, as its body sees it. `inline` runs the body for a client without tasks."""

    def __init__(self, request: Request, store: TaskStore | None, task_id: str = "", recheck: float = 1.0,
                 retry: StoreRetry | None = None) -> None:
        self.request = request
        #: Every store call rides out an outage through this (None: calls fail at once, as inline).
        self.retry = retry
        self.task_id = task_id
        self.input_required = InputRequiredBuilder()
        self.result = ResultBuilder()
        self.input_responses: dict[str, dict[str, Any]] = {}
        self._store = store
        self._recheck = recheck
        self._version = 0
        self._asked: set[str] = set()
        self._inline_waited = 0.0

    @property
    def inline(self) -> bool:
        """True when the client did not declare the extension: no task exists, the call waits for the body."""
        return self._store is None

    # --- answers, in the same words as a handler's request ---------------------------------

    def has_input_response(self, key: str) -> bool:
        return key in self.input_responses

    def input_response(self, key: str) -> str:
        """The client's answer for `key` as raw JSON text, `""` when absent."""
        return json.dumps(self.input_responses[key], ensure_ascii=False) if key in self.input_responses else ""

    def input_response_value(self, key: str) -> dict[str, Any] | None:
        return self.input_responses.get(key)

    # --- reporting --------------------------------------------------------------------------

    async def set_status(self, message: str) -> None:
        """The task's `statusMessage` (what a poll shows while it works)."""
        await self._write(lambda r: setattr(r, "status_message", message))

    async def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """Progress as a status message (SEP-2663 sends no progress notifications for tasks)."""
        amount = f"{done:g}/{total:g}" if total is not None else f"{done:g}"
        await self.set_status(f"{message} ({amount})" if message else amount)

    # --- waiting ----------------------------------------------------------------------------

    async def sleep(self, seconds: float) -> None:
        """Wait while working; a cancellation ends the wait with TaskCancelled."""
        if self._store is None:
            self._inline_waited += seconds
            if self._inline_waited > INLINE_MAX_SECONDS:
                raise McpError(MISSING_REQUIRED_CLIENT_CAPABILITY,
                               f"This call runs longer than {INLINE_MAX_SECONDS:g} s, which needs the tasks extension",
                               {"requiredCapabilities": REQUIRED_TASKS})
            await asyncio.sleep(seconds)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while True:
            record = await self._current()
            left = deadline - loop.time()
            if left <= 0:
                return
            changed = await self._wait(record.version, min(left, self._recheck))
            self._check(changed)

    async def wait_for_input(self) -> None:
        """Publish the input requests added since the last wait and return when all are answered.

        Keys are unique over the task's life: asking a key twice is a bug (ValueError). While it waits
        the task shows `input_required` with exactly the keys not answered yet.
        """
        asked = dict(self.input_required.requests)
        self.input_required = InputRequiredBuilder()
        if not asked:
            return
        reused = sorted(set(asked) & self._asked)
        if reused:
            raise ValueError(f"input keys are unique over a task's life; already asked: {', '.join(reused)}")
        self._asked |= set(asked)
        lacking = capabilities.missing(self.request.client_capabilities, asked)
        if lacking:
            raise McpError(MISSING_REQUIRED_CLIENT_CAPABILITY, "The task needs a capability the client lacks",
                           {"requiredCapabilities": lacking})
        if self._store is None:
            raise McpError(MISSING_REQUIRED_CLIENT_CAPABILITY,
                           "This tool asks for input while it runs, which needs the tasks extension",
                           {"requiredCapabilities": REQUIRED_TASKS})

        def publish(record: TaskRecord) -> None:
            if record.terminal:
                return
            record.input_requests.update(asked)
            record.asked_keys += [key for key in asked if key not in record.asked_keys]
            record.status = "input_required"

        await self._write(publish)
        while True:
            record = await self._current()
            if not any(key in record.input_requests for key in asked):
                break
            changed = await self._wait(record.version, self._recheck)
            self._check(changed)
        taken = {key: record.input_responses[key] for key in asked if key in record.input_responses}
        self.input_responses.update(taken)

        def consume(record: TaskRecord) -> None:
            for key in taken:
                record.input_responses.pop(key, None)
            if record.status == "input_required" and not record.input_requests:
                record.status = "working"

        await self._write(consume)

    # --- store plumbing ---------------------------------------------------------------------

    async def _current(self) -> TaskRecord:
        store = self._store
        assert store is not None
        record = await self._retried("reading the task", lambda: store.get(self.task_id))
        return self._check(record)

    async def _wait(self, version: int, timeout: float) -> TaskRecord | None:
        store = self._store
        assert store is not None
        return await self._retried("waiting for a change",
                                   lambda: store.wait_for_change(self.task_id, version, timeout))

    async def _retried(self, what: str, operation: Callable[[], Awaitable[TaskRecord | None]]) -> TaskRecord | None:
        if self.retry is None:
            return await operation()
        return await self.retry.call(what, operation)

    def _check(self, record: TaskRecord | None) -> TaskRecord:
        if record is None or record.cancel_requested or record.status == "cancelled":
            raise TaskCancelled(self.task_id)
        self._version = record.version
        return record

    async def _write(self, mutate: Callable[[TaskRecord], None]) -> None:
        if self._store is None:
            return

        def guarded(record: TaskRecord) -> None:
            if not record.terminal:
                mutate(record)

        store = self._store
        self._check(await self._retried("writing a status change", lambda: store.update(self.task_id, guarded)))
