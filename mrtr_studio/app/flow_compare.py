"""Two flows side by side: their messages paired in order, each pair with the fields that differ.

Messages are paired by position within their round, so a flow that needed an extra round shows
that round unpaired instead of shifting every later pair. The JSON-RPC `id` differs between
any two runs and says nothing about the flow, so it is left out of the comparison.
"""

from dataclasses import dataclass, field

from ..trace.model import TraceMessage
from .json_diff import Difference, Path, json_diff

IGNORED: frozenset[Path] = frozenset({("id",)})


@dataclass
class MessagePair:
    left: TraceMessage | None
    right: TraceMessage | None
    differences: list[Difference] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        return self.left is None or self.right is None or bool(self.differences)


def compare_flows(left: list[TraceMessage], right: list[TraceMessage]) -> list[MessagePair]:
    """Pair the two flows' messages and diff each pair (the kind of message counts as a field)."""
    a, b = _by_round(left), _by_round(right)
    pairs: list[MessagePair] = []
    for round_number in sorted(set(a) | set(b)):
        lefts, rights = a.get(round_number, []), b.get(round_number, [])
        for i in range(max(len(lefts), len(rights))):
            one = lefts[i] if i < len(lefts) else None
            other = rights[i] if i < len(rights) else None
            pairs.append(MessagePair(one, other, _differences(one, other)))
    return pairs


def _by_round(messages: list[TraceMessage]) -> dict[int, list[TraceMessage]]:
    grouped: dict[int, list[TraceMessage]] = {}
    for entry in messages:
        grouped.setdefault(entry.round, []).append(entry)
    return grouped


def _differences(left: TraceMessage | None, right: TraceMessage | None) -> list[Difference]:
    if left is None or right is None:
        return []
    found = json_diff(left.message, right.message, ignore=IGNORED)
    if left.kind != right.kind:
        found.insert(0, Difference(("(kind)",), "changed", left.kind, right.kind))
    return found
