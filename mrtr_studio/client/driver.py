"""The client's round-trip loop: the one round-trip machine (`protocol.roundtrip`) driven by two callables.

`dispatch(request) -> response` puts one JSON-RPC request on the wire; `retry(original,
input_required, round) -> next request | None` builds the retry (gathering answers, letting a
person edit it in step mode) or gives up. The rules (a new id per retry, `requestState` echoed
byte for byte and only when sent, an absent `resultType` read as complete, the round limit) are
the machine's; this loop only does the I/O.
"""

import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from .. import defaults
from ..protocol.roundtrip import (
    Done,
    Failed,
    Message,
    NeedInput,
    Outcome,
    Round,
    RoundTrip,
    build_retry,
    result_kind,
    result_problem,
)

Dispatch = Callable[[Message], Awaitable[Message | None]]
Retry = Callable[[Message, dict[str, Any], int], Awaitable[Message | None]]
Respond = Callable[[dict[str, Any], int], Awaitable[dict[str, Any]]]

DEFAULT_ROUND_LIMIT = defaults.ROUND_LIMIT
#: The one reading of a response's kind, under the name the client has always used.
classify = result_kind

__all__ = ["DEFAULT_ROUND_LIMIT", "DriveResult", "IdSource", "Message", "Outcome", "Round", "build_retry",
           "classify", "drive", "result_problem", "retry_with"]


@dataclass
class DriveResult:
    outcome: Outcome
    rounds: list[Round] = field(default_factory=list)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    problem: str | None = None
    #: When the call became a task: its id, last status, polls and input rounds (set by the session).
    task: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.outcome == "complete"


class IdSource:
    """Fresh JSON-RPC ids; one source per client so parallel operations never share one."""

    def __init__(self, prefix: str = "", start: int = 1) -> None:
        self._counter = itertools.count(start)
        self._prefix = prefix

    def __call__(self) -> str | int:
        n = next(self._counter)
        return f"{self._prefix}{n}" if self._prefix else n


def retry_with(respond: Respond, next_id: Callable[[], str | int]) -> Retry:
    """A standard `retry`: answer every input request with `respond`, then build the retry."""

    async def retry(original: Message, input_required: dict[str, Any], round_number: int) -> Message | None:
        requests = input_required.get("inputRequests") or {}
        responses = await respond(requests, round_number) if requests else {}
        return build_retry(original, input_required, responses, next_id())

    return retry


def result_of(machine: RoundTrip, end: Done | Failed) -> DriveResult:
    """The machine's end as the client's DriveResult."""
    if isinstance(end, Done):
        return DriveResult(end.outcome, machine.rounds, result=end.result)
    return DriveResult(end.outcome, machine.rounds, error=end.error, problem=end.problem)


async def drive(request: Message, dispatch: Dispatch, retry: Retry,
                max_rounds: int = DEFAULT_ROUND_LIMIT, accept_tasks: bool = False) -> DriveResult:
    """Run one operation to its end: complete, a JSON-RPC error, a give-up, or a broken server."""
    machine = RoundTrip(request, max_rounds=max_rounds, accept_tasks=accept_tasks)
    step: Any = machine.start()
    while True:
        try:
            response = await dispatch(step.message)
        except Exception as exc:
            return result_of(machine, machine.transport_failed(exc))
        event = machine.receive(response)
        if not isinstance(event, NeedInput):
            return result_of(machine, event)
        try:
            current = await retry(step.message, event.body, event.round)
        except Exception as exc:  # a responder that cannot answer ends the operation, never hangs it
            return result_of(machine, machine.abort(f"could not answer round {event.round}: {exc}"))
        if current is None:
            return result_of(machine, machine.abort("the client gave up before retrying"))
        step = machine.send(current)
        if isinstance(step, Failed):
            return result_of(machine, step)
