"""The filter language evaluated over columns: which of a million messages match, without a Python call
per message for the fields that are the same for many of them.

`Columns` keeps, per message, a small code for its kind, direction, round, operation and method (a
response's: its request's), built once and extended as messages arrive — about 12 bytes a message. A
term on one of those fields is decided once per distinct value (there are a handful of kinds, a few
methods, one entry per operation) and spread over the messages by C loops (`bytes.translate`, `map`);
`and`, `or` and `not` combine the resulting masks (one byte per message, 0 or 1) as big integers.
A free-text word (ASCII) over many rows is one native search of the messages' JSON where it
lies (trace/text_column.py). The other terms that need a message's content (`state:`, `code:`, `finding:`,
`size:`, `duration:`, a non-ASCII word) test messages one by one, and only those the other terms left
(`domain`): an `and` narrows as it goes. `narrows()` tells when a new filter can only match a subset
of an old one (a word being typed longer), so the window tests only the old matches again.

Nothing here knows Qt; `cancelled` is polled between blocks so a run for a keystroke that was typed
over stops early (ui/log/filter_proxy.py runs this on a worker thread).
"""

import bisect
import itertools
import json
import operator
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .filter import BoundFilter, _build, _operation_test
from .filter_syntax import And, Everything, Node, Not, Or, Term, Text
from .model import TraceMessage, messages_json
from .text_column import TextColumn, rows_of

#: Messages tested one by one between two looks at `cancelled`.
BLOCK = 8192
#: Messages a single C loop goes over at most (a few milliseconds with the GIL held).
SPAN = 65536
#: A free-text word is searched by the native text column (trace/text_column.py) when at least this many
#: rows are left to test; fewer are cheaper one block of their own JSON at a time.
NATIVE_FROM = 32_768
#: Fields a term decides per operation (the operation's tool, id, era, principal, task).
_OPERATION_FIELDS = frozenset({"tool", "op", "era", "principal", "task"})
_FLIP = bytes.maketrans(b"\x00\x01", b"\x01\x00")


class Cancelled(Exception):
    """The run was typed over: its result is not wanted."""


def _never() -> bool:
    return False


class Columns:
    """Per-message codes of the fields most terms read, for one list of messages (appended to only)."""

    def __init__(self, messages: Sequence[TraceMessage]) -> None:
        self.messages = messages
        self.count = 0
        self.kinds = bytearray()
        self.directions = bytearray()
        self.rounds = array("I")
        self.operations = array("I")
        self.methods = array("I")
        self.kind_codes: dict[str, int] = {}
        self.direction_codes: dict[str, int] = {}
        self.operation_codes: dict[str, int] = {}
        self.method_codes: dict[str | None, int] = {}
        #: The messages' JSON for free-text words, coded after the other columns (it lags at their tail).
        self.texts = TextColumn()

    def sync(self, cancelled: Callable[[], bool] = _never) -> int:
        """Code the messages appended since the last call; how many are coded now."""
        messages, total = self.messages, len(self.messages)
        kind, direction = self.kind_codes.setdefault, self.direction_codes.setdefault
        operation, method = self.operation_codes.setdefault, self.method_codes.setdefault
        for start in range(self.count, total, BLOCK):
            if cancelled():
                raise Cancelled
            block = messages[start:min(start + BLOCK, total)]
            self.kinds.extend([kind(m.kind, len(self.kind_codes)) for m in block])
            self.directions.extend([direction(m.direction, len(self.direction_codes)) for m in block])
            self.rounds.extend([m.round if m.round < 2**32 else 2**32 - 1 for m in block])
            self.operations.extend([operation(m.operation_id, len(self.operation_codes)) for m in block])
            self.methods.extend([method(m.method_name, len(self.method_codes)) for m in block])
            self.count = start + len(block)
        self.texts.sync(messages, self.count, cancelled)
        return self.count


@dataclass(frozen=True)
class Condition:
    """One of the log's own boxes beside the expression: a field equal to a value (`direction`,
    `operation`, `method`), or `test` for what needs the message itself."""

    field: str
    value: str = ""
    test: Callable[[TraceMessage], bool] | None = None


def _ones(count: int) -> bytes:
    return b"\x01" * count


def _and(first: bytes, second: bytes) -> bytes:
    return (int.from_bytes(first, "little") & int.from_bytes(second, "little")).to_bytes(len(first), "little")


def _or(first: bytes, second: bytes) -> bytes:
    return (int.from_bytes(first, "little") | int.from_bytes(second, "little")).to_bytes(len(first), "little")


class _Run:
    def __init__(self, columns: Columns, count: int, bound: BoundFilter | None,
                 cancelled: Callable[[], bool]) -> None:
        self.columns = columns
        self.count = count
        self.bound = bound
        self.cancelled = cancelled

    def spread(self, table: bytes | bytearray, column: bytearray | array) -> bytes:
        """The mask of messages whose code in `column` maps to 1 in `table`."""
        if not any(table):  # no value matches (a word in no method name): nothing to spread
            return bytes(self.count)
        if all(table):
            return _ones(self.count)
        part = column if len(column) == self.count else column[:self.count]
        if isinstance(part, bytearray) and len(table) <= 256:
            return bytes(part.translate(bytes(table) + b"\x00" * (256 - len(table))))
        get = table.__getitem__  # a span at a time: one C loop over a million held the GIL for 75 ms
        return b"".join(bytes(map(get, part[at:at + SPAN])) for at in range(0, len(part), SPAN))

    def by_code(self, codes: dict, test: Callable, column: bytearray | array) -> bytes:
        table = bytearray(len(codes))
        for value, code in codes.items():
            table[code] = 1 if test(value) else 0
        return self.spread(table, column)

    def one_by_one(self, test: Callable[[TraceMessage], bool], domain: bytes) -> bytes:
        messages, out = self.columns.messages, bytearray(self.count)
        for start in range(0, self.count, BLOCK):
            if self.cancelled():
                raise Cancelled
            for row in itertools.compress(range(start, min(start + BLOCK, self.count)), domain[start:start + BLOCK]):
                if test(messages[row]):
                    out[row] = 1
        return bytes(out)

    def node(self, node: Node, domain: bytes) -> bytes:
        if self.cancelled():
            raise Cancelled
        if isinstance(node, Everything):
            return domain
        if isinstance(node, And):
            for item in sorted(node.items, key=_cost):  # cheap columns first: they narrow the rest
                domain = self.node(item, domain)
            return domain
        if isinstance(node, Or):
            found = bytes(self.count)
            for item in node.items:
                found = _or(found, self.node(item, domain))
            return found
        if isinstance(node, Not):
            return _and(domain, self.node(node.item, domain).translate(_FLIP))
        column = self.term(node) if isinstance(node, Term) else None
        if column is not None:
            return _and(domain, column)
        searched = _searched(node)
        if searched is not None and searched.isascii() and "\x00" not in searched:
            return self.search(searched, domain)
        assert self.bound is not None
        return self.one_by_one(_build(node, self.bound.index), domain)

    def search(self, needle: str, domain: bytes) -> bytes:
        """The text search (trace/filter.py's `_search`). With NATIVE_FROM rows or more left to test,
        the text column answers for the rows it holds in one call. The rest (a few rows left, the
        column's holes and the unsealed rows past it) go a block at a time: the block's JSON joined
        and lowered once, the needle found with `bytes.find`, and after each hit the search goes on
        from the end of that message, so a message costs one find however often it holds the needle.
        A response also matches by its request's method, decided once per method."""
        columns, messages = self.columns, self.columns.messages
        patterns = list(dict.fromkeys((needle.encode(), json.dumps(needle, ensure_ascii=False)[1:-1].encode())))
        found = bytearray(self.by_code(columns.method_codes, lambda method: needle in (method or "").lower(),
                                       columns.methods))
        texts, left = columns.texts, domain
        if texts.count >= NATIVE_FROM and domain.count(1, 0, texts.count) >= NATIVE_FROM:
            column = texts.search(patterns, self.cancelled)
            if column is None or self.cancelled():
                raise Cancelled
            found = bytearray(_or(bytes(found), column + bytes(self.count - texts.count)))
            if texts.loose or texts.count < self.count:  # what the column does not hold (its holes and
                rest = bytearray(texts.count) + domain[texts.count:]  # the rows past it): searched below
                for row in texts.loose:
                    rest[row] = domain[row]
                left = bytes(rest)
            else:
                return _and(domain, bytes(found))
        for start in range(0, self.count, BLOCK):
            if self.cancelled():
                raise Cancelled
            stop = min(start + BLOCK, self.count)
            if left.find(1, start, stop) == -1:  # nothing of this block left to test (the column had it)
                continue
            wanted = left[start:stop]
            if wanted.count(1) == stop - start:  # the whole block: sliced, not looked up row by row
                rows: Sequence[int] = range(start, stop)
                parts = messages_json(messages[start:stop])
            else:
                rows = list(itertools.compress(range(start, stop), wanted))
                if not rows:
                    continue
                parts = messages_json(list(map(messages.__getitem__, rows)))
            text = b"\x00".join(parts).lower()  # no compact JSON holds a raw NUL: hits never span two
            ends: list[int] = []
            for pattern in patterns:
                at = text.find(pattern)
                if at != -1 and not ends:  # where each message ends (past its NUL), only once a hit needs it
                    ends = list(map(operator.add, itertools.accumulate(map(len, parts)), itertools.count(1)))
                while at != -1:
                    hit = bisect.bisect_right(ends, at)
                    found[rows[hit]] = 1
                    at = text.find(pattern, ends[hit])
        return _and(domain, bytes(found))

    def term(self, term: Term) -> bytes | None:
        """A term decided per distinct value of a column, or None when it needs each message."""
        columns, name, value = self.columns, term.field, term.value
        if name == "kind":
            return self.by_code(columns.kind_codes, lambda kind: kind == value, columns.kinds)
        if name == "dir":
            return self.by_code(columns.direction_codes, lambda direction: direction == value, columns.directions)
        if name == "round" or name == "method":
            test = _build(term, self.bound.index) if self.bound is not None else None
            if test is None:
                return None
            probe: Callable[[Any], bool] = test  # reads only `method_name` or `round`: a _Probe will do
            if name == "method":
                return self.by_code(columns.method_codes, lambda method: probe(_Probe(method)), columns.methods)
            rounds = set(columns.rounds[:self.count])
            table = bytearray(max(rounds, default=0) + 1)
            if len(table) > 1 << 16:
                return None
            for number in rounds:
                table[number] = 1 if probe(_Probe(None, number)) else 0
            return self.spread(table, columns.rounds)
        if name in _OPERATION_FIELDS and self.bound is not None:
            test_operation = _operation_test(term, self.bound.index)
            operations = self.bound.index.operations
            return self.by_code(columns.operation_codes,
                                lambda op_id: (op := operations.get(op_id)) is not None and test_operation(op),
                                columns.operations)
        return None

    def condition(self, condition: Condition, domain: bytes) -> bytes:
        columns = self.columns
        if condition.test is not None:
            return self.one_by_one(condition.test, domain)
        wanted = condition.value
        codes, column = {"direction": (columns.direction_codes, columns.directions),
                         "operation": (columns.operation_codes, columns.operations),
                         "method": (columns.method_codes, columns.methods)}[condition.field]
        return _and(domain, self.by_code(codes, lambda value: (value or "") == wanted, column))  # type: ignore[arg-type]


class _Probe:
    """What a method or round test reads of a message, for one distinct value."""

    __slots__ = ("method_name", "round")

    def __init__(self, method: str | None, round_number: int = 0) -> None:
        self.method_name = method
        self.round = round_number


def _cost(node: Node) -> int:
    if isinstance(node, Term) and node.field in ("kind", "dir", "round", "method", *_OPERATION_FIELDS):
        return 0
    return 2 if isinstance(node, Text) or (isinstance(node, Term) and node.field == "text") else 1


@dataclass(frozen=True)
class Selected:
    """What matched: the rows (indexes into the messages, in order) and the same as a mask."""

    rows: array
    mask: bytes


def select(columns: Columns, bound: BoundFilter | None, conditions: Sequence[Condition] = (),
           domain: bytes | None = None, cancelled: Callable[[], bool] = _never) -> Selected:
    """The messages that match the bound filter and every condition; only rows set in `domain` (a
    mask, from an earlier run of a filter this one narrows) are considered, and rows past its end
    (arrived since). Raises Cancelled when `cancelled()` turns true."""
    count = columns.sync(cancelled)
    if domain is not None and len(domain) < count:
        domain = domain + _ones(count - len(domain))  # rows that arrived since: not yet ruled out
    run = _Run(columns, count, bound, cancelled)
    mask = _ones(count) if domain is None else domain[:count]
    for condition in sorted(conditions, key=lambda c: c.test is not None):
        mask = run.condition(condition, mask)
    if bound is not None:
        mask = run.node(bound.filter.ast, mask)
    found = rows_of(mask) if count >= NATIVE_FROM else None
    if found is not None:
        return Selected(found, mask)
    rows = array("I")
    for at in range(0, count, SPAN):  # a span at a time, so the GUI thread gets the GIL in between
        rows.extend(itertools.compress(range(at, min(at + SPAN, count)), mask[at:at + SPAN]))
    return Selected(rows, mask)


def _shape(node: Node) -> object:
    """A node without its positions (two texts typed at different places are the same filter)."""
    if isinstance(node, Term):
        return ("term", node.field, node.comparator, node.value, node.number)
    if isinstance(node, Text):
        return ("text", node.value)
    if isinstance(node, Not):
        return ("not", _shape(node.item))
    if isinstance(node, And | Or):
        return (type(node).__name__, tuple(_shape(item) for item in node.items))
    return ("everything",)


def _searched(node: Node) -> str | None:
    if isinstance(node, Text):
        return node.value.lower()
    if isinstance(node, Term) and node.field == "text":
        return node.value.lower()
    return None


def _implies(new: Node, old: Node) -> bool:
    if _shape(new) == _shape(old):
        return True
    was, now = _searched(old), _searched(new)
    return was is not None and now is not None and was in now  # a longer word matches fewer messages


def narrows(old: Node | None, new: Node) -> bool:
    """True when every message `new` matches, `old` matches too: each part of `old` (an `and`'s items)
    is implied by a part of `new`."""
    if old is None or isinstance(old, Everything):
        return True
    parts = list(new.items) if isinstance(new, And) else [new]
    return all(any(_implies(part, wanted) for part in parts)
               for wanted in (old.items if isinstance(old, And) else (old,)))


def context_free(node: Node) -> bool:
    """No term of `node` reads other messages than the one tested (`duration:` its reply, `state:` the
    round before, `principal:` its operation's): a verdict on a message stays as messages arrive."""
    if isinstance(node, Term):
        return node.field not in ("duration", "state", "principal")
    if isinstance(node, Not):
        return context_free(node.item)
    if isinstance(node, And | Or):
        return all(context_free(item) for item in node.items)
    return True
