"""Two flows side by side: their messages paired in order, each pair with the fields that differ.

Messages are paired by position within their round, so a flow that needed an extra round shows
that round unpaired instead of shifting every later pair; an authorization flow's exchanges pair
among themselves. The JSON-RPC `id` differs between
any two runs and says nothing about the flow, so it is left out of the comparison, as is the
`_meta.traceparent` the client sends (a new span id per round).
"""

from dataclasses import dataclass, field

from ..trace.model import TraceMessage
from .json_diff import Difference, Path, json_diff

#: The W3C traceparent is new per round by design (protocol/trace_context.py): no difference of the flow.
IGNORED: frozenset[Path] = frozenset({("id",), ("params", "_meta", "traceparent")})


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
    for group in sorted(set(a) | set(b)):
        lefts, rights = a.get(group, []), b.get(group, [])
        for i in range(max(len(lefts), len(rights))):
            one = lefts[i] if i < len(lefts) else None
            other = rights[i] if i < len(rights) else None
            pairs.append(MessagePair(one, other, _differences(one, other)))
    return pairs


def _by_round(messages: list[TraceMessage]) -> dict[tuple[int, int], list[TraceMessage]]:
    """Each round's messages, the authorization flow's exchanges apart (first): a flow that had to
    authorize pairs its MRTR messages with the other flow's all the same."""
    grouped: dict[tuple[int, int], list[TraceMessage]] = {}
    for entry in messages:
        grouped.setdefault((entry.round, 0 if entry.kind == "auth" else 1), []).append(entry)
    return grouped


def _differences(left: TraceMessage | None, right: TraceMessage | None) -> list[Difference]:
    if left is None or right is None:
        return []
    found = json_diff(left.message, right.message, ignore=IGNORED)
    if left.kind != right.kind:
        found.insert(0, Difference(("(kind)",), "changed", left.kind, right.kind))
    return found
