"""One MRTR operation's round trips, as a state machine that does no I/O (h11's shape).

Every part of the studio that sends an operation round after round — the client's driver, `check`,
the lab and the task lab, the replay across nodes, the cluster and eras views — and the proxy's
stitcher, which only watches, goes through this one machine, so the rules live in one place:

- `start()` gives the first request; `receive(response)` reads the server's answer and gives
  `NeedInput` (the round's inputRequests and its state), `Done` (complete, or a task) or `Failed`;
- `answer(responses, new_id)` builds the retry: same method and params, a new id, the answers as
  `inputResponses`, the `requestState` echoed byte for byte and only when the server sent one;
- `send(message)` accepts a retry someone edited (step mode, an attack) and still refuses a reused id;
- the round limit ends a server that keeps asking.

A response's kind is read by `result_kind()` alone; nothing else in the studio inspects `resultType`.
"""

import copy
import json
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from .. import defaults

Message = dict[str, Any]
#: What one response is: a result of one of the three kinds, an error, or not a valid answer at all.
ResultKind = Literal["complete", "input_required", "task", "error", "invalid"]
#: How an operation ended; "task": the server answered with a CreateTaskResult (SEP-2663).
Outcome = Literal["complete", "task", "error", "aborted", "round_limit", "protocol_error", "transport_error"]

MRTR_FIELDS = ("inputResponses", "requestState")
#: What a complete result of each operation must hold, when present: its main list.
_RESULT_LISTS = {"tools/call": "content", "prompts/get": "messages", "resources/read": "contents"}


def result_kind(response: Any, accept_tasks: bool = False) -> tuple[ResultKind, str | None]:
    """The kind of one JSON-RPC response and, when it is "invalid", why.

    An absent `resultType` is a pre-2026 server's complete result. A task (`resultType: "task"`) is
    valid only when the client declared the tasks extension.
    """
    if not isinstance(response, dict):
        return "invalid", "the server sent no JSON-RPC response"
    if "error" in response:
        error = response["error"]
        code = error.get("code") if isinstance(error, dict) else None
        if not isinstance(error, dict) or not isinstance(code, int) or isinstance(code, bool) \
                or not isinstance(error.get("message"), str):
            return "invalid", (f"the response's error is {shown(error)}, not an object with an integer code "
                               "and a message")
        return "error", None
    body = response.get("result")
    if not isinstance(body, dict):
        return "invalid", "the response has neither a result object nor an error"
    kind = body.get("resultType", "complete")
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


def result_type_of(body: Any) -> str | None:
    """A result body's declared kind ("complete" when absent), or None when it is not a result object."""
    if not isinstance(body, dict):
        return None
    kind = body.get("resultType", "complete")
    return kind if isinstance(kind, str) else None


def result_problem(method: str, body: dict[str, Any]) -> str | None:
    """Why a complete result cannot be what `method` returns (its main field has the wrong type), or None."""
    name = _RESULT_LISTS.get(method)
    if name and name in body and not isinstance(body[name], list):
        return f"the {method} result's {name} is {shown(body[name])}, not a list"
    return None


def build_retry(original: Message, input_required: dict[str, Any], responses: dict[str, Any],
                new_id: str | int) -> Message:
    """The spec's retry: same method and params, a new id, the answers, the state echoed verbatim."""
    params = {k: v for k, v in copy.deepcopy(original.get("params") or {}).items() if k not in MRTR_FIELDS}
    if input_required.get("inputRequests") or responses:
        params["inputResponses"] = responses
    if "requestState" in input_required:
        params["requestState"] = input_required["requestState"]
    return {"jsonrpc": "2.0", "id": new_id, "method": original["method"], "params": params}


def shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass
class Round:
    request: Message
    response: Message | None = None

    @property
    def state(self) -> str | None:
        """The requestState this round's answer carried (what the next retry must echo), if any."""
        body = (self.response or {}).get("result") if isinstance(self.response, dict) else None
        state = body.get("requestState") if isinstance(body, dict) else None
        return state if isinstance(state, str) else None


# --- the machine's events ---------------------------------------------------------------------------

@dataclass(frozen=True)
class AtRound:
    """What every step and event of the machine says first: the round it belongs to (1-based)."""

    round: int


@dataclass(frozen=True)
class Send(AtRound):
    """Put this message on the wire (round `round`)."""

    message: Message


@dataclass(frozen=True)
class NeedInput(AtRound):
    """The server answered input_required: answer `requests` (maybe none) and retry."""

    body: dict[str, Any]

    @property
    def requests(self) -> dict[str, Any]:
        return self.body.get("inputRequests") or {}

    @property
    def state(self) -> str | None:
        state = self.body.get("requestState")
        return state if isinstance(state, str) else None


@dataclass(frozen=True)
class Done(AtRound):
    """The operation ended well: complete, or it became a task."""

    outcome: Literal["complete", "task"]
    result: dict[str, Any]


@dataclass(frozen=True)
class Failed(AtRound):
    """The operation ended badly: a JSON-RPC error, a broken server, a give-up or the round limit."""

    outcome: Outcome
    problem: str | None = None
    error: dict[str, Any] | None = None


Event = NeedInput | Done | Failed
_End = TypeVar("_End", Done, Failed)


@dataclass
class RoundTrip:
    """One operation's rounds. Drive it with `start`, `receive`, then `answer` (or `send`) until an end.

    The machine keeps every round's request and response (`rounds`), so whoever drives it — or
    watches it — reads the same history.
    """

    request: Message
    max_rounds: int = defaults.ROUND_LIMIT
    accept_tasks: bool = False
    rounds: list[Round] = field(default_factory=list)
    ended: Done | Failed | None = None
    _pending: NeedInput | None = None
    _ids: set[Any] = field(default_factory=set)

    @property
    def round(self) -> int:
        return len(self.rounds)

    @property
    def current(self) -> Message | None:
        return self.rounds[-1].request if self.rounds else None

    def start(self) -> Send:
        if self.rounds:
            raise RuntimeError("the operation has started already")
        sent = self.send(self.request)
        assert isinstance(sent, Send)
        return sent

    def send(self, message: Message) -> Send | Failed:
        """Send `message` as the next round (the first request, or a retry, edited or not)."""
        if self.ended is not None:
            raise RuntimeError("the operation has ended")
        if self.rounds and self._pending is None:
            raise RuntimeError("the previous round has not been answered")
        if message.get("id") in self._ids:
            return self._end(Failed(self.round, "protocol_error", f"retry reuses JSON-RPC id {message.get('id')!r}"))
        self._ids.add(message.get("id"))
        self._pending = None
        self.rounds.append(Round(copy.deepcopy(message)))
        return Send(self.round, message)

    def answer(self, responses: dict[str, Any], new_id: str | int) -> Send | Failed:
        """The standard retry for the pending input_required, with `responses` as its answers."""
        if self._pending is None or self.current is None:
            raise RuntimeError("no input_required to answer")
        return self.send(build_retry(self.current, self._pending.body, responses, new_id))

    def retry_for(self, responses: dict[str, Any], new_id: str | int) -> Message:
        """The retry `answer` would send, without sending it (to show, edit or tamper with first)."""
        if self._pending is None or self.current is None:
            raise RuntimeError("no input_required to answer")
        return build_retry(self.current, self._pending.body, responses, new_id)

    def receive(self, response: Message | None) -> Event:
        """Read the answer to the round just sent."""
        if self.ended is not None or not self.rounds or self._pending is not None:
            raise RuntimeError("no request is waiting for an answer")
        this = self.rounds[-1]
        this.response = response
        kind, problem = result_kind(response, self.accept_tasks)
        sent_id = this.request.get("id")
        if kind != "invalid" and isinstance(response, dict) and response.get("id") != sent_id:
            if kind == "error":  # the server could not read the request (or its id): its error still answers it
                return self._end(Failed(self.round, "error", error=response["error"], problem=(
                    "the server answered with an error " + ("without id" if response.get("id") is None else
                                                            f"for id {shown(response.get('id'))}")
                    + f" instead of id {shown(sent_id)}")))
            kind = "invalid"
            problem = f"response id {response.get('id')!r} does not answer request id {sent_id!r}"
        if kind == "error":
            assert isinstance(response, dict)
            return self._end(Failed(self.round, "error", error=response["error"]))
        if kind == "invalid":
            return self._end(Failed(self.round, "protocol_error", problem))
        assert isinstance(response, dict)
        body = response["result"]
        if kind == "task":
            return self._end(Done(self.round, "task", body))
        if kind == "complete":
            wrong = result_problem(str(this.request.get("method")), body)
            if wrong:
                return self._end(Failed(self.round, "protocol_error", wrong))
            return self._end(Done(self.round, "complete", body))
        if self.round >= self.max_rounds:
            return self._end(Failed(self.round, "round_limit",
                                    f"still input_required after {self.max_rounds} rounds (the round limit)"))
        self._pending = NeedInput(self.round, body)
        return self._pending

    def transport_failed(self, exc: BaseException) -> Failed:
        """The round's request could not be delivered, or its answer not read."""
        return self._end(Failed(self.round, "transport_error", f"{type(exc).__name__}: {exc}"))

    def abort(self, problem: str) -> Failed:
        """The client gave up (a person cancelled, a responder could not answer)."""
        return self._end(Failed(self.round, "aborted", problem))

    def _end(self, event: _End) -> _End:
        self.ended = event
        self._pending = None
        return event
