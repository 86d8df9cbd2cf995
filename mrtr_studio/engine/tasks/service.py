"""The server side of the tasks extension (SEP-2663): creating tasks, running them, tasks/get|update|cancel.

A `tools/call` whose handler called `response.start_task(body)` becomes a task when the request
declared `io.modelcontextprotocol/tasks`: the record is created in the store first (so a
`tasks/get` for the returned id resolves at once, on any node), then the body runs in the
background on this node. `tasks/update` and `tasks/cancel` only write the store and acknowledge
(eventually consistent); the runner hears of them through `TaskStore.wait_for_change`.

Tasks are bound to the principal that created them: another principal's `tasks/get` gets the
same -32602 as an unknown id, so a task id's existence does not leak.
"""

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from ...protocol.errors import INTERNAL_ERROR, INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY, McpError
from ...protocol.tasks_extension import REQUIRED_TASKS, declares_tasks
from ..handler_api import Request, Response, TaskStart
from ..options import TaskOptions
from ..results import complete_result
from .context import TaskCancelled, TaskContext
from .retry import StoreOutageOutlasted, StoreRetry
from .task_store import TaskLimitReached, TaskRecord, TaskStore

log = logging.getLogger(__name__)


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def task_wire(record: TaskRecord, detailed: bool) -> dict[str, Any]:
    """The Task shape; `detailed` adds what tasks/get inlines (inputRequests, result, error)."""
    task: dict[str, Any] = {
        "taskId": record.task_id,
        "status": record.status,
        "createdAt": iso(record.created_at),
        "lastUpdatedAt": iso(record.updated_at),
        "ttlMs": record.ttl_ms,
        "pollIntervalMs": record.poll_interval_ms,
    }
    if record.status_message:
        task["statusMessage"] = record.status_message
    if detailed:
        if record.status == "input_required":
            task["inputRequests"] = record.input_requests
        if record.status == "completed" and record.result is not None:
            task["result"] = record.result
        if record.status == "failed" and record.error is not None:
            task["error"] = record.error
    return task


def missing_tasks(what: str) -> McpError:
    return McpError(MISSING_REQUIRED_CLIENT_CAPABILITY,
                    f"Missing required client capability: {what} needs the io.modelcontextprotocol/tasks extension",
                    {"requiredCapabilities": REQUIRED_TASKS})


class TaskManager:
    """Creates and runs tasks for one server and answers the tasks/* methods from its store."""

    def __init__(self, store: TaskStore, options: TaskOptions, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.options = options
        self.clock = clock
        self.running: dict[str, asyncio.Task[None]] = {}

    # --- creation -------------------------------------------------------------------------

    async def answer_call(self, request: Request, response: Response) -> dict[str, Any]:
        """The wire result of a tools/call whose handler started a task (a task, or inline when undeclared)."""
        start = response.task
        assert start is not None
        if not declares_tasks(request.client_capabilities):
            context = TaskContext(request, store=None)
            await self._body(start, context)
            return complete_result("tools/call", _as_response(context), modern=True)
        return await self.create(request, start)

    async def create(self, request: Request, start: TaskStart) -> dict[str, Any]:
        now = self.clock()
        ttl = start.ttl_ms if start.ttl_ms is not None else self.options.ttl_ms
        record = TaskRecord(
            task_id=secrets.token_hex(16), principal=request.principal, method=request.method,
            name=request.params.name, created_at=now, updated_at=now, ttl_ms=ttl,
            poll_interval_ms=start.poll_interval_ms or self.options.poll_interval_ms,
            status_message=start.status_message)
        try:
            await self.store.create(record, max_live=self.options.max_live_per_principal)
        except TaskLimitReached as exc:
            raise McpError(INTERNAL_ERROR, f"Too many live tasks: {exc}; wait for one to finish or cancel one") \
                from exc
        retry = StoreRetry(record.task_id, ttl, unlimited_bound=self.options.store_retry_bound,
                           max_pause=self.options.store_retry_max_pause)
        context = TaskContext(request, self.store, record.task_id, recheck=self.options.runner_recheck, retry=retry)
        runner = asyncio.get_running_loop().create_task(self._run(start, context), name=f"task {record.task_id}")
        self.running[record.task_id] = runner
        runner.add_done_callback(lambda _: self.running.pop(record.task_id, None))
        return {"resultType": "task", **task_wire(record, detailed=False)}

    async def _body(self, start: TaskStart, context: TaskContext) -> None:
        try:
            await start.body(context)
        except (McpError, TaskCancelled):
            raise
        except Exception as exc:  # a body bug must not take the engine down or leak details
            log.warning("task body failed", exc_info=True)
            raise McpError(INTERNAL_ERROR, "Internal error: the task failed") from exc
        if not context.input_required.is_empty:
            raise McpError(INTERNAL_ERROR, "Internal error: the task ended with input requests it never waited for")

    async def _run(self, start: TaskStart, context: TaskContext) -> None:
        """The background runner: the body, then the final write; a store outage is ridden out, not fatal."""
        try:
            await self._outcome(start, context)
        except StoreOutageOutlasted as lost:
            log.error("task result lost: %s", lost)
        except Exception:  # a background task must never end in an unhandled exception
            log.error("task %s: runner failed", context.task_id, exc_info=True)

    async def _outcome(self, start: TaskStart, context: TaskContext) -> None:
        try:
            await self._body(start, context)
            outcome = complete_result("tools/call", _as_response(context), modern=False)
            await self._settle(context, "completed", result=outcome, message="Completed")
        except TaskCancelled:
            return  # tasks/cancel already recorded the terminal status (or the task is gone)
        except McpError as exc:
            error: dict[str, Any] = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                error["data"] = exc.data
            await self._settle(context, "failed", error=error, message=exc.message)

    async def _settle(self, context: TaskContext, status: str, result: dict[str, Any] | None = None,
                      error: dict[str, Any] | None = None, message: str | None = None) -> None:
        def finish(record: TaskRecord) -> None:
            if record.terminal:
                return
            record.status, record.result, record.error = status, result, error
            record.input_requests = {}
            if message:
                record.status_message = message

        assert context.retry is not None
        await context.retry.call(f"writing the final status ({status})",
                                 lambda: self.store.update(context.task_id, finish))

    async def close(self) -> None:
        """Stop this node's runners (their tasks stay in the store as they are)."""
        runners = list(self.running.values())
        for runner in runners:
            runner.cancel()
        await asyncio.gather(*runners, return_exceptions=True)

    # --- tasks/get, tasks/update, tasks/cancel ---------------------------------------------

    async def serve(self, method: str, params: dict[str, Any], client_capabilities: dict[str, Any],
                    principal: str) -> dict[str, Any]:
        if not declares_tasks(client_capabilities):
            raise missing_tasks(method)
        task_id = params.get("taskId")
        if not isinstance(task_id, str) or not task_id:
            raise McpError(INVALID_PARAMS, "Invalid params: taskId must be a non-empty string")
        record = await self._owned(task_id, principal, method)
        if method == "tasks/get":
            return {"resultType": "complete", **task_wire(record, detailed=True)}
        if method == "tasks/update":
            await self._update(record, params)
        else:
            await self.store.update(task_id, _cancel)
        return {"resultType": "complete"}

    async def _owned(self, task_id: str, principal: str, method: str) -> TaskRecord:
        verb = {"tasks/get": "retrieve", "tasks/update": "update", "tasks/cancel": "cancel"}[method]
        record = await self.store.get(task_id)
        if record is None or record.principal != principal:
            raise McpError(INVALID_PARAMS, f"Failed to {verb} task: Task not found")
        if record.expired(self.clock()):
            await self.store.delete(task_id)
            raise McpError(INVALID_PARAMS, f"Failed to {verb} task: Task has expired")
        return record

    async def _update(self, record: TaskRecord, params: dict[str, Any]) -> None:
        responses = params.get("inputResponses")
        if not isinstance(responses, dict) or not all(isinstance(v, dict) for v in responses.values()):
            raise McpError(INVALID_PARAMS, "Invalid params: inputResponses must be an object of objects")

        def deliver(current: TaskRecord) -> None:
            # Only keys outstanding now count: unknown, answered or superseded keys are ignored (SEP-2663).
            for key, answer in responses.items():
                if key in current.input_requests and key not in current.answered_keys:
                    del current.input_requests[key]
                    current.input_responses[key] = answer
                    current.answered_keys.append(key)
            if current.status == "input_required" and not current.input_requests:
                current.status = "working"

        if any(key in record.input_requests for key in responses):
            await self.store.update(record.task_id, deliver)


def _cancel(record: TaskRecord) -> None:
    if record.terminal:
        return  # cancelling a finished task is acknowledged and changes nothing
    record.cancel_requested = True
    record.status = "cancelled"
    record.status_message = "Cancelled by the client"
    record.input_requests = {}


def _as_response(context: TaskContext) -> Response:
    response = Response(result=context.result)
    return response
