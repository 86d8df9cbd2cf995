"""Which recorded round an incoming request is, or why none is: pure, no I/O.

A request matches a recorded round on its method, its target (tool or prompt name, resource URI),
its arguments and the input keys it answers. `strict` (the default) wants the arguments equal and
exactly the recorded answer keys; `loose` ignores the arguments and accepts any answers that cover
the recorded keys (extra answers are ignored, as a server ignores unknown keys).

Where the request continues is known from its requestState when it has one (the server resolves
the state to a position first); a retry without state (a server that sent none) is found by its
answer keys; a first call takes the recorded flows that start alike in turn, so a recording that
called the same tool twice is replayed in its order.

When nothing matches, the mismatch names the nearest recorded request and what differs, so the
person sees at once whether the client changed its arguments, its answers or the tool it calls.
"""

import json
from dataclasses import dataclass, field
from typing import Any

from ..protocol.call import Call
from ..protocol.errors import INVALID_PARAMS, METHOD_NOT_FOUND
from .recording import RecordedFlow, RecordedRound, arguments_of, target_of

Message = dict[str, Any]


@dataclass(frozen=True)
class Position:
    """A recorded round: the flow's index in the recording and the round's number (1-based)."""

    flow: int
    round: int


@dataclass(frozen=True)
class Incoming(Call):
    """What of a request matching looks at: the call and the input keys it answers."""

    answered: frozenset[str]

    @classmethod
    def of(cls, request: Message) -> "Incoming":
        params = request.get("params")
        responses = params.get("inputResponses") if isinstance(params, dict) else None
        keys = frozenset(responses) if isinstance(responses, dict) else frozenset()
        return cls(str(request.get("method")), target_of(request), arguments_of(request), keys)


@dataclass(frozen=True)
class Mismatch:
    """No recorded round answers the request: a JSON-RPC error to send back."""

    code: int
    message: str
    data: dict[str, Any] = field(default_factory=dict)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _short(value: Any) -> str:
    text = canonical(value)
    return text if len(text) <= 60 else text[:57] + "..."


def argument_differences(given: dict[str, Any], recorded: dict[str, Any]) -> list[str]:
    """Top-level argument differences, each as one phrase (`arguments.path is "/b", recorded "/a"`)."""
    out = []
    for key in sorted(set(given) | set(recorded)):
        if key not in given:
            out.append(f"arguments.{key} is missing (recorded {_short(recorded[key])})")
        elif key not in recorded:
            out.append(f"arguments.{key} is {_short(given[key])}, not in the recording")
        elif canonical(given[key]) != canonical(recorded[key]):
            out.append(f"arguments.{key} is {_short(given[key])}, recorded {_short(recorded[key])}")
    return out


def _keys(keys: Any) -> str:
    return "{" + ", ".join(sorted(keys)) + "}" if keys else "none"


class Matcher:
    """Matches requests against `flows` (see the module's docstring for the rules)."""

    def __init__(self, flows: list[RecordedFlow], strict: bool = True) -> None:
        self.flows = flows
        self.strict = strict
        self._turns: dict[tuple[object, ...], int] = {}

    def round_at(self, position: Position) -> RecordedRound:
        return self.flows[position.flow].rounds[position.round - 1]

    def differences(self, incoming: Incoming, recorded: RecordedRound) -> list[str]:
        request = recorded.request
        out = []
        if incoming.method != request.get("method"):
            out.append(f"the method is {incoming.method}, recorded {request.get('method')}")
        if incoming.target != target_of(request):
            out.append(f"the target is {incoming.target!r}, recorded {target_of(request)!r}")
        if self.strict:
            out += argument_differences(incoming.arguments, arguments_of(request))
        want = frozenset(recorded.answered)
        differ = incoming.answered != want if self.strict else not want <= incoming.answered
        if differ:
            out.append(f"the answered input keys are {_keys(incoming.answered)}, recorded {_keys(want)}")
        return out

    def first(self, incoming: Incoming) -> Position | Mismatch:
        """A first call (no state, no answers): the next recorded flow that starts like it."""
        return self._choose(incoming, [Position(i, 1) for i in range(len(self.flows))], "first")

    def retry_without_state(self, incoming: Incoming, any_state: bool = False) -> Position | Mismatch:
        """A retry with answers but no requestState: a recorded retry whose previous answer sent no state
        (`any_state`: any recorded retry, for a state the recording never issued, matched loosely)."""
        candidates = [Position(i, r.number) for i, flow in enumerate(self.flows) for r in flow.rounds
                      if r.number > 1 and (any_state or flow.rounds[r.number - 2].state is None)]
        return self._choose(incoming, candidates, "retry")

    def after(self, previous: Position, incoming: Incoming) -> Position | Mismatch:
        """The retry that follows `previous` (known from the echoed requestState)."""
        flow = self.flows[previous.flow]
        if previous.round >= len(flow.rounds):
            return Mismatch(INVALID_PARAMS, f"Replay: the recording of {flow.label} ends at round {previous.round}",
                            {"operation": flow.operation_id, "round": previous.round})
        position = Position(previous.flow, previous.round + 1)
        differences = self.differences(incoming, self.round_at(position))
        if differences:
            return self._mismatch(incoming, position, differences)
        return position

    def _choose(self, incoming: Incoming, candidates: list[Position], turn: str) -> Position | Mismatch:
        if not any(f.method == incoming.method for f in self.flows):
            return Mismatch(METHOD_NOT_FOUND, f"Method not found: the recording holds no {incoming.method}",
                            {"recorded": sorted({f.method for f in self.flows})})
        fits = [p for p in candidates if not self.differences(incoming, self.round_at(p))]
        if not fits:
            nearest = min(candidates, key=lambda p: self._distance(incoming, self.round_at(p)), default=None)
            if nearest is None:
                return Mismatch(INVALID_PARAMS, f"Replay: no recorded {turn} round of {incoming.method}", {})
            return self._mismatch(incoming, nearest, self.differences(incoming, self.round_at(nearest)))
        exact = [p for p in fits if canonical(incoming.arguments) == canonical(arguments_of(self.round_at(p).request))]
        pool = exact or fits
        key = (turn, *pool)  # by the recorded rounds that fit: bounded by the recording, whatever clients send
        turn_number = self._turns.get(key, 0)
        self._turns[key] = turn_number + 1
        return pool[turn_number % len(pool)]

    def _distance(self, incoming: Incoming, recorded: RecordedRound) -> tuple[int, int]:
        request = recorded.request
        weight = (8 if incoming.method != request.get("method") else 0) + \
            (4 if incoming.target != target_of(request) else 0)
        return weight, len(self.differences(incoming, recorded))

    def _mismatch(self, incoming: Incoming, nearest: Position, differences: list[str]) -> Mismatch:
        flow = self.flows[nearest.flow]
        recorded = self.round_at(nearest)
        text = "; ".join(differences)
        return Mismatch(INVALID_PARAMS,
                        f"Replay: no recorded request matches; nearest is {flow.label} round {nearest.round}: {text}",
                        {"nearest": {"operation": flow.operation_id, "round": nearest.round,
                                     "method": recorded.request.get("method"), "target": target_of(recorded.request),
                                     "arguments": arguments_of(recorded.request),
                                     "answered": sorted(recorded.answered)},
                         "differences": differences, "strict": self.strict})
