"""Task status notifications (SEP-2663) on a `subscriptions/listen` stream (SEP-2575).

A client names the tasks it wants to hear about (`notifications.taskIds`); the server acknowledges the
ones it will report on (the requester's own, live tasks: another principal's task is as unknown here
as it is to tasks/get) and then sends `notifications/tasks` with the complete DetailedTask, the same
object tasks/get would return: once at once (so a late subscriber knows where the task stands), then
at every committed change, until the task reaches a terminal status or is gone. A request for task
notifications from a client that does not declare the tasks extension is refused with -32021.

Each watched task waits on the task store's `wait_for_change`, so a change made on another node of a
cluster (a shared store) is reported too.
"""

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from ...protocol.errors import INVALID_PARAMS, McpError
from .service import TaskManager, missing_tasks, task_wire

#: Tasks one stream may watch, and the longest task id it accepts (bounds on what a client asks for).
MAX_TASK_IDS = 64
MAX_TASK_ID = 256
#: How long one wait on the store lasts before the watcher looks again (expiry, a closed stream).
WAIT_SECONDS = 30.0


@dataclass
class TaskFeed:
    """What one listen request may hear of tasks: `principal`'s, and only when it `declared` the extension."""

    manager: TaskManager
    principal: str
    declared: bool

    async def accept(self, requested: Any) -> list[str]:
        """The task ids this stream will report on, in the order asked, each once."""
        if not isinstance(requested, list) or not all(isinstance(t, str) and 0 < len(t) <= MAX_TASK_ID
                                                      for t in requested):
            raise McpError(INVALID_PARAMS, "Invalid params: notifications.taskIds must be a list of task ids")
        if len(requested) > MAX_TASK_IDS:
            raise McpError(INVALID_PARAMS, f"Invalid params: at most {MAX_TASK_IDS} task ids per stream")
        if not self.declared:
            raise missing_tasks("task status notifications")
        accepted = []
        for task_id in dict.fromkeys(requested):
            record = await self.manager.store.get(task_id)
            if record is not None and record.principal == self.principal \
                    and not record.expired(self.manager.clock()):
                accepted.append(task_id)
        return accepted

    async def watch(self, task_id: str) -> AsyncIterator[dict[str, Any]]:
        """The task's DetailedTask now, then after each change; ends at a terminal status or when it is gone."""
        store, clock = self.manager.store, self.manager.clock
        record = await store.get(task_id)
        if record is None:
            return
        version = record.version
        yield task_wire(record, detailed=True)
        while not record.terminal:
            changed = await store.wait_for_change(task_id, version, WAIT_SECONDS)
            if changed is None or changed.expired(clock()):
                return
            record = changed
            if record.version != version:
                version = record.version
                yield task_wire(record, detailed=True)
