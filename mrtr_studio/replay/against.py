"""A recorded client's flows played against another server, each operation driven through the one
round-trip machine (protocol/roundtrip.py), and what differs listed per round.

The first request of each flow is the recorded one (its `_meta`, capabilities and arguments) under a
new id. When the server asks for input, the answers come from the recording's retry for that round,
key by key; a key the recording never answered fails that round with the reason (the new server asks
something the recorded client was never asked). Legacy flows get an `initialize` first, and the
server-initiated requests of a round are answered with the recorded client's answers, by method.

Per round the comparison covers the kind of answer, the inputs asked (keys and methods), the
complete result (its `_meta` aside), the error (code, message, data.reason), whether a requestState
came back, and the legacy server requests; timings are listed beside, never counted as a difference.
"""

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..protocol import jsonrpc
from ..protocol.roundtrip import MRTR_FIELDS, Done, Failed, NeedInput, RoundTrip, Send
from ..protocol.versions import LEGACY_VERSION
from .matcher import canonical
from .recording import RecordedFlow, RecordedRound, asked_of, kind_of_response

Message = dict[str, Any]
Sender = Callable[[Message], Awaitable[Message | None]]
#: Answers a legacy server-initiated request (the transport's handler): its result, or raises.
ServerRequests = Callable[[Callable[[Message], Awaitable[Message]]], None]
LEGACY_CAPABILITIES = {"roots": {"listChanged": True}, "elicitation": {}, "sampling": {}}


@dataclass
class RoundReport:
    number: int
    recorded_kind: str
    kind: str
    recorded_asked: dict[str, str] = field(default_factory=dict)
    asked: dict[str, str] = field(default_factory=dict)
    recorded_ms: float | None = None
    ms: float | None = None
    recorded_state: bool = False
    state: bool = False
    differences: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"round": self.number, "recorded": {"kind": self.recorded_kind, "asked": self.recorded_asked,
                                                   "requestState": self.recorded_state, "ms": self.recorded_ms},
                "now": {"kind": self.kind, "asked": self.asked, "requestState": self.state, "ms": self.ms},
                "differences": self.differences}


@dataclass
class FlowReport:
    operation_id: str
    label: str
    era: str
    outcome: str = "running"
    recorded_outcome: str = ""
    rounds: list[RoundReport] = field(default_factory=list)
    #: Differences of the flow as a whole (rounds missing or added, the reason a round could not be answered).
    differences: list[str] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        return bool(self.differences) or any(r.differences for r in self.rounds)

    def to_json(self) -> dict[str, Any]:
        return {"operation": self.operation_id, "flow": self.label, "era": self.era, "outcome": self.outcome,
                "recorded_outcome": self.recorded_outcome, "differs": self.differs,
                "differences": self.differences, "rounds": [r.to_json() for r in self.rounds]}


def _without_meta(body: Any) -> Any:
    return {k: v for k, v in body.items() if k != "_meta"} if isinstance(body, dict) else body


def _short(value: Any, limit: int = 80) -> str:
    text = canonical(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def compare(recorded: RecordedRound, response: Any) -> list[str]:
    """What differs between the recorded answer of a round and the new server's."""
    out: list[str] = []
    was, now = recorded.kind, kind_of_response(response)
    if was != now:
        out.append(f"answered {now}, recorded {was}")
        return out
    if now == "input_required":
        before, after = recorded.asked, asked_of(response)
        if before != after:
            out.append(f"inputs asked {_short(after)}, recorded {_short(before)}")
        has_state = isinstance(response, dict) and isinstance(response["result"].get("requestState"), str)
        if has_state != (recorded.state is not None):
            out.append("a requestState came back" if has_state else "no requestState came back, one was recorded")
    elif now == "error":
        old, new = (recorded.response or {}).get("error") or {}, (response or {}).get("error") or {}
        for key in ("code", "message"):
            if old.get(key) != new.get(key):
                out.append(f"error {key} {_short(new.get(key))}, recorded {_short(old.get(key))}")
        reasons = [e.get("data", {}).get("reason") if isinstance(e.get("data"), dict) else None for e in (old, new)]
        if reasons[0] != reasons[1]:
            out.append(f"error data.reason {reasons[1]!r}, recorded {reasons[0]!r}")
    elif now in ("complete", "task"):
        old_body = _without_meta((recorded.response or {}).get("result"))
        new_body = _without_meta((response or {}).get("result"))
        if canonical(old_body) != canonical(new_body):
            out.append(f"result {_short(new_body)}, recorded {_short(old_body)}")
    return out


def first_request(flow: RecordedFlow, new_id: str | int) -> Message:
    request = flow.rounds[0].request
    params = {k: v for k, v in (request.get("params") or {}).items() if k not in MRTR_FIELDS}
    return {"jsonrpc": "2.0", "id": new_id, "method": request.get("method"), "params": params}


class LegacyAnswers:
    """Answers a round's server-initiated requests with the recorded client's answers, in order, by method."""

    def __init__(self) -> None:
        self.pending: list[tuple[Message, Message | None]] = []
        self.asked: list[str] = []

    def start_round(self, recorded: RecordedRound | None) -> None:
        self.pending = [(e.request, e.answer) for e in recorded.exchanges] if recorded else []
        self.asked = []

    async def __call__(self, request: Message) -> Message:
        method = str(request.get("method"))
        self.asked.append(method)
        for index, (sent, answer) in enumerate(self.pending):
            if sent.get("method") == method:
                del self.pending[index]
                result = (answer or {}).get("result")
                if isinstance(result, dict):
                    return result
                raise RuntimeError(f"the recorded client answered {method} with an error")
        raise RuntimeError(f"the recording holds no answer to {method}")


def initialize_request(new_id: str | int) -> Message:
    return jsonrpc.request(new_id, "initialize", {"protocolVersion": LEGACY_VERSION,
                                                  "capabilities": LEGACY_CAPABILITIES,
                                                  "clientInfo": {"name": "mrtr-studio-replay", "version": "1"}})


async def replay_flow(flow: RecordedFlow, send: Sender, next_id: Callable[[], str | int],
                      legacy: LegacyAnswers | None = None) -> FlowReport:
    """Play one recorded flow through the round-trip machine and compare every round."""
    report = FlowReport(flow.operation_id, flow.label, flow.era, recorded_outcome=flow.rounds[-1].kind)
    machine = RoundTrip(first_request(flow, next_id()), max_rounds=max(len(flow.rounds) + 2, 10), accept_tasks=True)
    step: Send | Failed = machine.start()
    while isinstance(step, Send):
        number = step.round
        recorded = flow.rounds[number - 1] if number <= len(flow.rounds) else None
        if legacy is not None:
            legacy.start_round(recorded)
        began = time.perf_counter()
        try:
            response = await send(step.message)
        except Exception as exc:
            step = machine.transport_failed(exc)
            report.differences.append(f"round {number}: {step.problem}")
            break
        elapsed = round((time.perf_counter() - began) * 1000, 2)
        event = machine.receive(response)
        report.rounds.append(_round_report(number, recorded, response, elapsed, legacy))
        if not isinstance(event, NeedInput):
            break
        answers = flow.rounds[number].answered if number < len(flow.rounds) else None
        wanted = set(event.requests)
        if answers is None:
            step = machine.abort(f"the server asks again after round {number}; the recording ends there")
        elif not wanted <= set(answers):
            step = machine.abort(f"round {number}: the server asks for {sorted(wanted - set(answers))}, "
                                 f"the recording answered only {sorted(answers)}")
        else:
            step = machine.answer({key: answers[key] for key in event.requests}, next_id())
        if isinstance(step, Failed) and step.problem:
            report.differences.append(step.problem)
    end = machine.ended
    report.outcome = end.outcome if isinstance(end, Done | Failed) else "aborted"
    if len(report.rounds) < len(flow.rounds) and not report.differences:
        report.differences.append(f"ended after {len(report.rounds)} round(s), the recording has {len(flow.rounds)}")
    return report


def _round_report(number: int, recorded: RecordedRound | None, response: Any, elapsed: float,
                  legacy: LegacyAnswers | None) -> RoundReport:
    body = response.get("result") if isinstance(response, dict) else None
    state = isinstance(body, dict) and isinstance(body.get("requestState"), str)
    if recorded is None:
        return RoundReport(number, "none", kind_of_response(response), asked=asked_of(response), ms=elapsed,
                           state=state, differences=[f"round {number} is not in the recording"])
    report = RoundReport(number, recorded.kind, kind_of_response(response), recorded.asked, asked_of(response),
                         recorded.duration_ms, elapsed, recorded.state is not None, state, compare(recorded, response))
    if legacy is not None:
        was = [str(e.request.get("method")) for e in recorded.exchanges]
        if was != legacy.asked:
            report.differences.append(f"server requests {legacy.asked}, recorded {was}")
    return report
