"""The client's side of a task (SEP-2663): poll, answer, cancel — a pure function like `drive`.

`follow_task` starts from the `CreateTaskResult` (or from a task id alone, to resume a task a
reopened trace names) and loops: wait the server's `pollIntervalMs`, `tasks/get`, and when the
task is `input_required`, answer each key it has not answered before with the same responders
MRTR uses and send them with `tasks/update`. It never answers a key twice (keys are unique over a
task's life), stops at a terminal status, and cancels with `tasks/cancel` when `stop()` says so.
I/O goes through the `dispatch`, `sleep` and `respond` callables, so tests drive it in memory.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..protocol.errors import INVALID_PARAMS
from .driver import Dispatch, Message, Respond

TERMINAL = frozenset({"completed", "failed", "cancelled"})
#: The client's bounds on the server's poll interval: never hammer, never wait for ever.
MIN_POLL_SECONDS = 0.05
MAX_POLL_SECONDS = 30.0
DEFAULT_POLL_SECONDS = 1.0
DEFAULT_MAX_POLLS = 10_000

TaskOutcome = Literal["complete", "failed", "cancelled", "stopped", "expired", "error", "protocol_error",
                      "transport_error", "poll_limit"]
MakeRequest = Callable[[str, dict[str, Any]], Message]
Sleep = Callable[[float], Awaitable[None]]
#: Called after every tasks/get with the task; the session uses it to record status changes.
Observe = Callable[[dict[str, Any]], None]


@dataclass
class TaskRun:
    outcome: TaskOutcome
    task_id: str
    task: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    problem: str | None = None
    polls: int = 0
    input_rounds: int = 0
    answered: set[str] = field(default_factory=set)

    @property
    def ok(self) -> bool:
        return self.outcome == "complete"


def poll_seconds(task: dict[str, Any]) -> float:
    """The wait before the next poll: the server's `pollIntervalMs`, within the client's bounds."""
    interval = task.get("pollIntervalMs")
    if isinstance(interval, bool) or not isinstance(interval, int | float) or interval <= 0:
        return DEFAULT_POLL_SECONDS
    return min(max(interval / 1000, MIN_POLL_SECONDS), MAX_POLL_SECONDS)


def task_problem(task: Any) -> str | None:
    """Why a tasks/get result cannot be a task, or None."""
    if not isinstance(task, dict):
        return "the tasks/get result is not an object"
    if not isinstance(task.get("taskId"), str):
        return "the task has no string taskId"
    status = task.get("status")
    if status not in ("working", "input_required", *TERMINAL):
        return f"the task's status {status!r} is not one SEP-2663 defines"
    requests = task.get("inputRequests")
    if status == "input_required" and (not isinstance(requests, dict)
                                       or not all(isinstance(r, dict) for r in requests.values())):
        return "an input_required task must carry inputRequests as an object of requests"
    return None


async def follow_task(task_id: str, dispatch: Dispatch, make_request: MakeRequest, respond: Respond,
                      sleep: Sleep, first: dict[str, Any] | None = None, stop: Callable[[], bool] | None = None,
                      observe: Observe | None = None, answered: set[str] | None = None,
                      max_polls: int = DEFAULT_MAX_POLLS) -> TaskRun:
    """Follow one task to its end. `answered` carries keys already answered (a resumed task)."""
    run = TaskRun("poll_limit", task_id, task=dict(first or {}), answered=set(answered or ()))

    async def send(method: str, params: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        reply = await dispatch(make_request(method, {"taskId": task_id, **params}))
        if not isinstance(reply, dict):
            raise ConnectionError(f"{method}: the server sent no response")
        if isinstance(reply.get("error"), dict):
            return None, reply["error"]
        result = reply.get("result")
        if not isinstance(result, dict):
            raise ValueError(f"{method}: the response has neither a result object nor an error")
        return result, None

    try:
        while run.polls < max_polls:
            if stop is not None and stop():
                await send("tasks/cancel", {})
                run.outcome, run.problem = "stopped", "cancelled by the client (tasks/cancel sent)"
                return run
            if run.task or run.polls:
                await sleep(poll_seconds(run.task))
            task, error = await send("tasks/get", {})
            run.polls += 1
            if error is not None:
                run.error = error
                message = str(error.get("message", ""))
                # -32602 on tasks/get of an id the server itself gave: it no longer knows the task (its TTL
                # ran out, or it was removed), the extension's answer for both, told apart by no field.
                run.outcome = "expired" if error.get("code") == INVALID_PARAMS else "error"
                run.problem = f"{error.get('code')} {message}"
                return run
            assert task is not None
            wrong = task_problem(task)
            if wrong:
                run.outcome, run.problem, run.task = "protocol_error", wrong, task
                return run
            run.task = task
            if observe is not None:
                observe(task)
            status = task["status"]
            if status == "completed":
                result = task.get("result")
                if not isinstance(result, dict):
                    run.outcome, run.problem = "protocol_error", "a completed task must carry a result object"
                    return run
                run.outcome, run.result = "complete", result
                return run
            if status == "failed":
                failure = task.get("error")
                run.outcome, run.error = "failed", failure if isinstance(failure, dict) else None
                run.problem = str(task.get("statusMessage") or (run.error or {}).get("message") or "the task failed")
                return run
            if status == "cancelled":
                run.outcome, run.problem = "cancelled", str(task.get("statusMessage") or "the task was cancelled")
                return run
            if status == "input_required":
                fresh = {k: v for k, v in task["inputRequests"].items() if k not in run.answered}
                if fresh:
                    run.input_rounds += 1
                    try:
                        answers = await respond(fresh, run.input_rounds)
                    except Exception as exc:  # nobody can answer: the task cannot go on, so cancel it
                        await send("tasks/cancel", {})
                        run.outcome, run.problem = "stopped", f"could not answer {', '.join(fresh)}: {exc}"
                        return run
                    answers = {k: v for k, v in answers.items() if k in fresh}
                    run.answered |= set(answers)
                    _, error = await send("tasks/update", {"inputResponses": answers})
                    if error is not None:
                        run.outcome, run.error = "error", error
                        run.problem = f"tasks/update: {error.get('code')} {error.get('message')}"
                        return run
        run.problem = f"still {run.task.get('status')} after {max_polls} polls (the poll limit)"
        return run
    except (ConnectionError, OSError, TimeoutError) as exc:
        run.outcome, run.problem = "transport_error", f"{type(exc).__name__}: {exc}"
        return run
    except ValueError as exc:
        run.outcome, run.problem = "protocol_error", str(exc)
        return run
