"""The flows a watching recorder follows: each MRTR operation it sees, observed through THE round-trip
machine (protocol.roundtrip.RoundTrip), and the index of those waiting for a retry.

The stitcher does not re-derive rounds or outcomes: every request it places in a flow goes to the
flow's machine with `send`, every answer with `receive`, and the machine's event (NeedInput, Done,
Failed) says whether the flow waits for a retry or how it ended.

Which waiting flow a retry continues: the requestState it echoes names it, but a state need not be
unique: a codec without a nonce (the TypeScript SDK's) gives six concurrent calls of the same tool
byte-identical states. So a state maps to every flow waiting with it, and the one chosen is the
one on the same session (`Mcp-Session-Id`), else on the same connection, else with the same
arguments, oldest first; it then leaves the index, so each waiting round takes exactly one retry.
"""

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..protocol.roundtrip import RoundTrip

#: Flows waiting for a retry that are remembered at most; the oldest are forgotten first.
MAX_REMEMBERED = 10_000
#: An observer imposes no round limit of its own: the server and client decide when a flow ends.
OBSERVED_ROUNDS = 1 << 30


@dataclass(eq=False)
class Flow:
    """One observed operation: its trace operation id, where its requests came from, and its machine."""

    operation: str
    method: str
    target: Any
    arguments: Any
    session: Any
    connection: Any
    machine: RoundTrip

    @classmethod
    def first(cls, operation: str, request: dict[str, Any], target: Any, arguments: Any, session: Any,
              connection: Any) -> "Flow":
        machine = RoundTrip(request, max_rounds=OBSERVED_ROUNDS, accept_tasks=True)
        machine.start()
        return cls(operation, str(request.get("method")), target, arguments, session, connection, machine)

    @property
    def round(self) -> int:
        return self.machine.round


@dataclass
class _Entry:
    flow: Flow
    state: str | None
    keys: frozenset[str]


@dataclass
class WaitingFlows:
    """Flows whose last round answered input_required, in the order they started waiting."""

    _entries: OrderedDict[int, _Entry] = field(default_factory=OrderedDict)
    _number_of: dict[int, int] = field(default_factory=dict)  # id(flow) -> entry number
    _by_state: dict[str, OrderedDict[int, None]] = field(default_factory=dict)
    _count: int = 0

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, flow: Flow, state: str | None, keys: frozenset[str]) -> None:
        self.discard(flow)
        self._count += 1
        self._entries[self._count] = _Entry(flow, state, keys)
        self._number_of[id(flow)] = self._count
        if state is not None:
            self._by_state.setdefault(state, OrderedDict())[self._count] = None
        while len(self._entries) > MAX_REMEMBERED:  # abandoned flows: forget the oldest
            self.discard(next(iter(self._entries.values())).flow)

    def discard(self, flow: Flow) -> None:
        number = self._number_of.pop(id(flow), None)
        if number is None:
            return
        entry = self._entries.pop(number)
        if entry.state is not None:
            same = self._by_state.get(entry.state)
            if same is not None:
                same.pop(number, None)
                if not same:
                    del self._by_state[entry.state]

    def by_state(self, state: str, session: Any, connection: Any, arguments: Any) -> Flow | None:
        """The waiting flow a retry echoing `state` continues (see the module docstring), taken out."""
        numbers = self._by_state.get(state)
        if not numbers:
            return None
        flows = [self._entries[n].flow for n in numbers]
        chosen = _closest(flows, session, connection, arguments)
        self.discard(chosen)
        return chosen

    def by_keys(self, method: str, target: Any, answered: frozenset[str], session: Any, connection: Any,
                arguments: Any) -> Flow | None:
        """For a retry whose state is unknown (altered, or none): the waiting round of the same method
        and target whose input keys it answers (any, when it answers none), taken out."""
        candidates = [e.flow for e in reversed(self._entries.values())
                      if e.flow.method == method and e.flow.target == target
                      and (e.keys & answered if answered else True)]
        if not candidates:
            return None
        chosen = _closest(candidates, session, connection, arguments)
        self.discard(chosen)
        return chosen


def _closest(flows: list[Flow], session: Any, connection: Any, arguments: Any) -> Flow:
    """The first of `flows` that best shares the retry's session, connection and arguments."""
    def score(flow: Flow) -> tuple[bool, bool, bool]:
        return (session is not None and flow.session == session,
                connection is not None and flow.connection == connection,
                flow.arguments == arguments)

    best = max(score(f) for f in flows)
    return next(f for f in flows if score(f) == best)
