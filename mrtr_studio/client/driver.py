"""The client's round-trip loop, as a pure function over two callables.

`dispatch(request) -> response` puts one JSON-RPC request on the wire; `retry(original,
input_required, round) -> next request | None` builds the retry (gathering answers, letting a
person edit it in step mode) or gives up. The loop itself does no I/O and keeps the rules:
a new id per retry, `requestState` echoed byte for byte and only when sent, an absent
`resultType` read as complete, a round limit so a looping server cannot hang the client.
"""

import copy
import itertools
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Message = dict[str, Any]
Dispatch = Callable[[Message], Awaitable[Message | None]]
Retry = Callable[[Message, dict[str, Any], int], Awaitable[Message | None]]
Respond = Callable[[dict[str, Any], int], Awaitable[dict[str, Any]]]
#: "task": the server answered with a CreateTaskResult (SEP-2663); `client.tasks.follow_task` takes over.
Outcome = Literal["complete", "task", "error", "aborted", "round_limit", "protocol_error", "transport_error"]

DEFAULT_ROUND_LIMIT = 10
_MRTR_FIELDS = ("inputResponses", "requestState")


@dataclass
class Round:
    request: Message
    response: Message | None = None


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


def build_retry(original: Message, input_required: dict[str, Any], responses: dict[str, Any],
                new_id: str | int) -> Message:
    """The spec's retry: same method and params, a new id, the answers, the state echoed verbatim."""
    params = {k: v for k, v in copy.deepcopy(original.get("params") or {}).items() if k not in _MRTR_FIELDS}
    if input_required.get("inputRequests") or responses:
        params["inputResponses"] = responses
    if "requestState" in input_required:
        params["requestState"] = input_required["requestState"]
    return {"jsonrpc": "2.0", "id": new_id, "method": original["method"], "params": params}


def retry_with(respond: Respond, next_id: Callable[[], str | int]) -> Retry:
    """A standard `retry`: answer every input request with `respond`, then build the retry."""

    async def retry(original: Message, input_required: dict[str, Any], round_number: int) -> Message | None:
        requests = input_required.get("inputRequests") or {}
        responses = await respond(requests, round_number) if requests else {}
        return build_retry(original, input_required, responses, next_id())

    return retry


def classify(response: Message | None, accept_tasks: bool = False) -> tuple[str, str | None]:
    """('complete'|'input_required'|'task'|'error'|'invalid', problem) for one response.

    A task (`resultType: "task"`) is valid only when the client declared the tasks extension.
    """
    if not isinstance(response, dict):
        return "invalid", "the server sent no JSON-RPC response"
    if "error" in response:
        error = response["error"]
        code = error.get("code") if isinstance(error, dict) else None
        if not isinstance(error, dict) or not isinstance(code, int) or isinstance(code, bool) \
                or not isinstance(error.get("message"), str):
            return "invalid", (f"the response's error is {_shown(error)}, not an object with an integer code "
                               "and a message")
        return "error", None
    body = response.get("result")
    if not isinstance(body, dict):
        return "invalid", "the response has neither a result object nor an error"
    kind = body.get("resultType", "complete")  # absent: a pre-2026 server, read as complete
    if kind == "complete":
        return "complete", None
    if kind == "input_required":
        if "inputRequests" not in body and "requestState" not in body:
            return "invalid", "input_required with neither inputRequests nor requestState"
        if "inputRequests" in body and not isinstance(body["inputRequests"], dict):
            return "invalid", "inputRequests is not an object"
        if "requestState" in body and not isinstance(body["requestState"], str):
            return "invalid", "requestState is not a string"
        return "input_required", None
    if kind == "task":
        if not accept_tasks:
            return "invalid", "a task result (resultType task) although the client did not declare the tasks extension"
        if not isinstance(body.get("taskId"), str) or not body["taskId"]:
            return "invalid", "a task result without a string taskId"
        return "task", None
    return "invalid", f"unknown resultType {kind!r}"


#: What a complete result of each operation must hold, when present: the field and its JSON type.
_RESULT_LISTS = {"tools/call": "content", "prompts/get": "messages", "resources/read": "contents"}


def result_problem(method: str, body: dict[str, Any]) -> str | None:
    """Why a complete result cannot be what `method` returns (its main field has the wrong type), or None."""
    name = _RESULT_LISTS.get(method)
    if name and name in body and not isinstance(body[name], list):
        return f"the {method} result's {name} is {_shown(body[name])}, not a list"
    return None


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


async def drive(request: Message, dispatch: Dispatch, retry: Retry,
                max_rounds: int = DEFAULT_ROUND_LIMIT, accept_tasks: bool = False) -> DriveResult:
    """Run one operation to its end: complete, a JSON-RPC error, a give-up, or a broken server."""
    rounds: list[Round] = []
    current: Message | None = request
    seen_ids: set[Any] = set()
    for round_number in itertools.count(1):
        assert current is not None
        if current.get("id") in seen_ids:
            reused = current.get("id")
            return DriveResult("protocol_error", rounds, problem=f"retry reuses JSON-RPC id {reused!r}")
        seen_ids.add(current.get("id"))
        this_round = Round(copy.deepcopy(current))
        rounds.append(this_round)
        try:
            response = await dispatch(current)
        except Exception as exc:
            return DriveResult("transport_error", rounds, problem=f"{type(exc).__name__}: {exc}")
        this_round.response = response
        kind, problem = classify(response, accept_tasks)
        if kind != "invalid" and isinstance(response, dict) and response.get("id") != current.get("id"):
            if kind == "error":  # the server could not read the request (or its id): its error still answers it
                return DriveResult("error", rounds, error=response["error"], problem=(
                    "the server answered with an error " + ("without id" if response.get("id") is None else
                                                            f"for id {_shown(response.get('id'))}")
                    + f" instead of id {_shown(current.get('id'))}"))
            kind = "invalid"
            problem = f"response id {response.get('id')!r} does not answer request id {current.get('id')!r}"

        if kind == "error":
            assert response is not None
            return DriveResult("error", rounds, error=response["error"])
        if kind == "invalid":
            return DriveResult("protocol_error", rounds, problem=problem)
        assert response is not None
        body = response["result"]
        if kind == "task":
            return DriveResult("task", rounds, result=body)
        if kind == "complete":
            wrong = result_problem(str(current.get("method")), body)
            if wrong:
                return DriveResult("protocol_error", rounds, problem=wrong)
            return DriveResult("complete", rounds, result=body)
        if round_number >= max_rounds:
            return DriveResult("round_limit", rounds,
                               problem=f"still input_required after {max_rounds} rounds (the round limit)")
        try:
            current = await retry(current, body, round_number)
        except Exception as exc:  # a responder that cannot answer ends the operation, never hangs it
            return DriveResult("aborted", rounds, problem=f"could not answer round {round_number}: {exc}")
        if current is None:
            return DriveResult("aborted", rounds, problem="the client gave up before retrying")
    raise AssertionError("unreachable")
