"""A trace file as the flows a replay needs: per operation, its rounds' request, response and (legacy)
the server-initiated requests with the client's answers, plus the timings the trace kept.

The trace is read through the one reader (trace/files.py: bounded, validated) into the one store,
which already links each response to its request (`TraceMessage.reply_to`); nothing here pairs
messages again. Only MRTR operations (tools/call, prompts/get, resources/read) become flows.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..protocol.roundtrip import result_type_of
from ..protocol.versions import MRTR_METHODS
from ..trace import files
from ..trace.model import TraceMessage, params_of, result_of
from ..trace.store import TraceStore

Message = dict[str, Any]


@dataclass(frozen=True)
class Exchange:
    """A legacy server-initiated request sent during a round, and the client's answer to it."""

    request: Message
    answer: Message | None


@dataclass
class RecordedRound:
    number: int
    request: Message
    response: Message | None
    exchanges: list[Exchange] = field(default_factory=list)
    #: Milliseconds between the request and its response as recorded (None when unknown).
    duration_ms: float | None = None
    #: Seconds the person took to answer before this round's request (None for round 1 or unknown).
    answer_seconds: float | None = None

    @property
    def answered(self) -> dict[str, Any]:
        """The request's inputResponses (what the client answered in this retry)."""
        value = params_of(self.request).get("inputResponses")
        return value if isinstance(value, dict) else {}

    @property
    def asked(self) -> dict[str, str]:
        """The response's inputRequests as key -> method (empty unless input_required)."""
        return asked_of(self.response)

    @property
    def state(self) -> str | None:
        state = result_of(self.response).get("requestState")
        return state if isinstance(state, str) else None

    @property
    def kind(self) -> str:
        return kind_of_response(self.response)


@dataclass
class RecordedFlow:
    operation_id: str
    method: str
    target: str
    arguments: dict[str, Any]
    era: str
    rounds: list[RecordedRound]

    @property
    def label(self) -> str:
        return f"{self.method} {self.target}"


def asked_of(response: Any) -> dict[str, str]:
    body = result_of(response)
    if result_type_of(body) != "input_required":
        return {}
    requests = body.get("inputRequests")
    if not isinstance(requests, dict):
        return {}
    return {str(k): str(v.get("method")) if isinstance(v, dict) else "?" for k, v in requests.items()}


def kind_of_response(response: Any) -> str:
    """complete, input_required, task, error or none (no answer recorded)."""
    if not isinstance(response, dict):
        return "none"
    if "error" in response:
        return "error"
    return result_type_of(response.get("result")) or "invalid"


def target_of(request: Message) -> str:
    params = params_of(request)
    value = params.get("uri") if request.get("method") == "resources/read" else params.get("name")
    return value if isinstance(value, str) else ""


def arguments_of(request: Message) -> dict[str, Any]:
    value = params_of(request).get("arguments")
    return value if isinstance(value, dict) else {}


def flows_of(store: TraceStore, operation_id: str | None = None) -> list[RecordedFlow]:
    """The store's MRTR operations as flows, in recording order (only `operation_id`'s when given: the
    others' rounds are not built); rounds without a request are skipped."""
    flows: list[RecordedFlow] = []
    chosen = store.operations if operation_id is None else \
        [op for op in store.operations if op.id == operation_id]
    for op in chosen:
        if op.method not in MRTR_METHODS:
            continue
        rounds: list[RecordedRound] = []
        for number, entries in sorted(store.rounds_of(op.id).items()):
            built = _round(number, entries, op.answer_seconds.get(number))
            if built is not None:
                rounds.append(built)
        if rounds:
            flows.append(RecordedFlow(op.id, op.method, op.target, dict(op.arguments), op.era, rounds))
    return flows


def _round(number: int, entries: list[TraceMessage], answer_seconds: float | None) -> RecordedRound | None:
    request = next((e for e in entries if e.kind == "request" and e.method in MRTR_METHODS), None)
    if request is None:
        return None
    response = next((e for e in entries if e.reply_to is request), None)
    answers = {e.reply_to.seq: e for e in entries if e.kind == "client_response" and e.reply_to is not None}
    exchanges = [Exchange(e.message, answers[e.seq].message if e.seq in answers else None)
                 for e in entries if e.kind == "server_request"]
    duration = None
    if response is not None:
        told = response.transport.get("duration_ms")
        duration = float(told) if isinstance(told, int | float) else (response.timestamp - request.timestamp) * 1000
    return RecordedRound(number, request.message, None if response is None else response.message, exchanges,
                         duration, answer_seconds)


def load_recording(path: str | Path) -> list[RecordedFlow]:
    """A trace file's flows; ValueError (naming the file and the problem) when it cannot be read or holds none."""
    store = TraceStore()
    store.load(*files.open_trace(path))
    flows = flows_of(store)
    if not flows:
        raise ValueError(f"{path} holds no tools/call, prompts/get or resources/read operation to replay")
    return flows
