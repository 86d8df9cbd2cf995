"""The one filter language over a trace (DESIGN.md): `tool:delete_file round:>1 kind:error -kind:auth
duration:>500ms state:altered`, for `mrtr-studio trace filter` and the window's filter bar alike.

`compile_filter(text)` parses once (trace/filter_syntax.py: FilterError with the position) and builds
one closure per term, so testing a message is a few attribute reads and comparisons: no re-parsing,
and a message's JSON is decoded only by the terms that need its content (`code:`, `state:`, and the
text search, which reads the packed JSON bytes). tools/bench_filter.py filters 1,000,000 messages.

What each field means for a message:

- `method:` the method, a response's from the request it answers (`reply_to`); `kind:` its kind;
  `round:`, `op:` (operation id) and `dir:` (c2s/s2c) where it was recorded;
- `tool:` the tool its operation calls; `era:`, `principal:` and `task:` (task id) of its operation.
  The principal is the recorder's `principal` metadata, else the `p` of the studio's requestState;
- `code:` a JSON-RPC error's code; `finding:` a linter finding's rule or severity;
- `state:present` carries a requestState; `state:altered` is a retry whose requestState is not the one
  the server sent in the round before (edited, replayed from elsewhere, or invented); `state:absent`;
- `duration:` a request's time until its reply, and a reply's time since its request (the exchange's);
- `size:` the message's compact JSON in bytes; `text:` (and bare words) a case-insensitive search.

Text values compare case-insensitively and take `*` and `?` wildcards. For the operations list,
`matches_operation` reads operation fields from the operation itself (duration: start to end) and
every other term as "some message of it matches", so `-kind:error` lists operations without errors.
"""

import fnmatch
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..protocol.token_format import PREFIX, b64url_decode
from .filter_syntax import (
    CHOICES,
    FIELDS,
    KEYWORDS,
    And,
    Everything,
    FilterError,
    Node,
    Not,
    Term,
    Text,
    parse,
)
from .model import Operation, TraceMessage

__all__ = ["BoundFilter", "Completion", "Filter", "FilterError", "TraceIndex", "compile_filter", "complete", "parse"]

MessageTest = Callable[[TraceMessage], bool]
#: Fields read from the operation itself in the operations list.
_OPERATION_FIELDS = frozenset({"tool", "op", "era", "principal", "task", "duration"})
_NUMBER_OPS: dict[str, Callable[[float, float], bool]] = {
    "=": lambda a, b: a == b, ">": lambda a, b: a > b, "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b,
}
_STATE_KEY = b'"requestState"'


class TraceIndex:
    """What terms need beyond one message (its operation, its reply, the state before it), computed
    once per trace and only as far as a filter asks for it."""

    def __init__(self, operations: Iterable[Operation], messages: Sequence[TraceMessage],
                 by_id: Mapping[str, Operation] | None = None,
                 messages_of: Callable[[str], Sequence[TraceMessage]] | None = None) -> None:
        """`by_id` and `messages_of`: what a store already knows (the operations by id, an operation's
        messages), so binding a filter at each keystroke does not walk a million messages again."""
        self.operations: Mapping[str, Operation] = by_id if by_id is not None else {op.id: op for op in operations}
        self.messages = messages
        self._replies: dict[int, TraceMessage] | None = None
        self._altered: dict[str, set[int]] = {}  # by operation: the seqs of its altered retries
        self._principals: dict[str, str] | None = None
        self._by_operation: dict[str, list[TraceMessage]] | None = None
        self._messages_of = messages_of

    def operation(self, entry: TraceMessage) -> Operation | None:
        return self.operations.get(entry.operation_id)

    def reply_of(self, entry: TraceMessage) -> TraceMessage | None:
        if self._replies is None:
            self._replies = {id(m.reply_to): m for m in self.messages if m.reply_to is not None}
        return self._replies.get(id(entry))

    def duration_ms(self, entry: TraceMessage) -> float | None:
        if entry.reply_to is not None:
            return (entry.timestamp - entry.reply_to.timestamp) * 1000
        reply = self.reply_of(entry)
        return None if reply is None else (reply.timestamp - entry.timestamp) * 1000

    def altered(self, entry: TraceMessage) -> bool:
        """Whether the message is a retry whose requestState is not the one the server last sent in
        its operation. Decided per operation, when a message of it is first asked about: the
        operations list and the log's colouring ask about the few rows on screen, and a pass over
        every message of a million (decoding each with a state) took seconds on the GUI thread."""
        found = self._altered.get(entry.operation_id)
        if found is None:
            found = self._altered[entry.operation_id] = _find_altered(self.messages_of(entry.operation_id))
        return entry.seq in found

    def principal(self, operation_id: str) -> str | None:
        if self._principals is None:
            self._principals = self._find_principals()
        return self._principals.get(operation_id)

    def _find_principals(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for entry in self.messages:
            if entry.operation_id in found:
                continue
            if isinstance(entry.transport.get("principal"), str):
                found[entry.operation_id] = entry.transport["principal"]
            elif entry.kind == "input_required" and _STATE_KEY in entry.message_json():
                principal = _state_principal(entry.message)
                if principal is not None:
                    found[entry.operation_id] = principal
        return found

    def messages_of(self, operation_id: str) -> Sequence[TraceMessage]:
        if self._messages_of is not None:
            return self._messages_of(operation_id)
        if self._by_operation is None:
            self._by_operation = {}
            for entry in self.messages:
                self._by_operation.setdefault(entry.operation_id, []).append(entry)
        return self._by_operation.get(operation_id, [])


def _find_altered(messages: Iterable[TraceMessage]) -> set[int]:
    """Of one operation's messages in order: the retries whose requestState differs from the last one
    the server sent."""
    last: dict[str, Any] = {}
    altered: set[int] = set()
    for entry in messages:
        if _STATE_KEY not in entry.message_json():
            if entry.kind == "request" and entry.round > 1 and entry.operation_id in last:
                altered.add(entry.seq)  # the state the server sent was dropped
            continue
        if entry.kind == "input_required":
            result = entry.message.get("result") if isinstance(entry.message, dict) else None
            last[entry.operation_id] = result.get("requestState") if isinstance(result, dict) else None
        elif entry.kind == "request":
            sent = _params(entry.message).get("requestState")
            if entry.operation_id not in last or sent != last[entry.operation_id]:
                altered.add(entry.seq)
    return altered


def _params(message: Any) -> dict[str, Any]:
    params = message.get("params") if isinstance(message, dict) else None
    return params if isinstance(params, dict) else {}


def _state_principal(message: Any) -> str | None:
    """The `p` of a studio requestState (readable without the key: it is signed, not encrypted)."""
    result = message.get("result") if isinstance(message, dict) else None
    token = result.get("requestState") if isinstance(result, dict) else None
    if not isinstance(token, str) or not token.startswith(PREFIX) or len(token) > 1 << 20:
        return None
    try:
        payload = json.loads(b64url_decode(token[len(PREFIX):].partition(".")[0]))
    except ValueError:
        return None
    principal = payload.get("p") if isinstance(payload, dict) else None
    return principal if isinstance(principal, str) else None


def _text_test(pattern: str) -> Callable[[str | None], bool]:
    """Case-insensitive equality, or a glob when the value has `*` or `?`."""
    wanted = pattern.lower()
    if "*" in wanted or "?" in wanted:
        regex = re.compile(fnmatch.translate(wanted), re.IGNORECASE | re.DOTALL)
        return lambda value: value is not None and regex.match(value) is not None
    return lambda value: value is not None and value.lower() == wanted


def _error_code(entry: TraceMessage) -> int | None:
    if entry.kind != "error":
        return None
    message = entry.message
    error = message.get("error") if isinstance(message, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _term_test(term: Term, index: TraceIndex) -> MessageTest:
    name, value = term.field, term.value
    if FIELDS[name] in ("int", "duration", "size"):
        compare, number = _NUMBER_OPS[term.comparator], float(term.number or 0)
        if name == "round":
            return lambda m: compare(m.round, number)
        if name == "size":
            return lambda m: compare(len(m.message_json()), number)
        if name == "duration":
            def slow(m: TraceMessage) -> bool:
                took = index.duration_ms(m)
                return took is not None and compare(took, number)
            return slow
        def coded(m: TraceMessage) -> bool:
            code = _error_code(m)
            return code is not None and compare(code, number)
        return coded
    if name == "kind":
        return lambda m: m.kind == value
    if name == "dir":
        return lambda m: m.direction == value
    if name == "state":
        if value == "altered":
            return index.altered
        if value == "absent":
            return lambda m: _STATE_KEY not in m.message_json()
        return lambda m: _STATE_KEY in m.message_json()
    if name == "text":
        return _search(value)
    test = _text_test(value)
    if name == "method":
        return lambda m: test(m.method_name)
    if name == "finding":
        return lambda m: any(test(f.rule) or test(f.severity) for f in m.findings)
    operation_test = _operation_test(term, index)
    operations = index.operations
    return lambda m: (op := operations.get(m.operation_id)) is not None and operation_test(op)


def _operation_test(term: Term, index: TraceIndex) -> Callable[[Operation], bool]:
    """A term on an operation field, as the operations list reads it."""
    name = term.field
    if name == "duration":
        compare, number = _NUMBER_OPS[term.comparator], float(term.number or 0)
        return lambda op: op.ended is not None and compare((op.ended - op.started) * 1000, number)
    if name == "era":
        return lambda op: op.era == term.value
    test = _text_test(term.value)
    if name == "tool":
        return lambda op: op.method == "tools/call" and test(op.target)
    if name == "op":
        return lambda op: test(op.id) or (bool(op.label) and test(op.label))
    if name == "task":
        return lambda op: test(op.task_id)
    return lambda op: test(index.principal(op.id))


def _search(value: str) -> MessageTest:
    """A case-insensitive search of the message's compact JSON (and of a response's method)."""
    needle = value.lower()
    escaped = json.dumps(needle, ensure_ascii=False)[1:-1]  # how quotes and backslashes appear in JSON
    if needle.isascii():
        raw, raw_escaped = needle.encode(), escaped.encode()

        def ascii_search(m: TraceMessage) -> bool:
            text = m.message_json().lower()
            return raw in text or raw_escaped in text or needle in (m.method_name or "").lower()
        return ascii_search

    def search(m: TraceMessage) -> bool:
        text = m.message_json().decode("utf-8", "replace").lower()
        return needle in text or escaped in text
    return search


def _build(node: Node, index: TraceIndex) -> MessageTest:
    if isinstance(node, Everything):
        return lambda m: True
    if isinstance(node, Term):
        return _term_test(node, index)
    if isinstance(node, Text):
        return _search(node.value)
    if isinstance(node, Not):
        inner = _build(node.item, index)
        return lambda m: not inner(m)
    parts = [_build(item, index) for item in node.items]
    if isinstance(node, And):
        if len(parts) == 2:
            first, second = parts
            return lambda m: first(m) and second(m)
        return lambda m: all(part(m) for part in parts)
    return lambda m: any(part(m) for part in parts)


def _build_operation(node: Node, index: TraceIndex) -> Callable[[Operation], bool]:
    if isinstance(node, Everything):
        return lambda op: True
    if isinstance(node, Term) and node.field in _OPERATION_FIELDS:
        return _operation_test(node, index)
    if isinstance(node, Term | Text):
        test = _build(node, index)
        return lambda op: any(test(m) for m in index.messages_of(op.id))
    if isinstance(node, Not):
        inner = _build_operation(node.item, index)
        return lambda op: not inner(op)
    parts = [_build_operation(item, index) for item in node.items]
    if isinstance(node, And):
        return lambda op: all(part(op) for part in parts)
    return lambda op: any(part(op) for part in parts)


@dataclass(frozen=True)
class Filter:
    """A parsed filter; `bind` it to a trace to get the predicates."""

    source: str
    ast: Node

    def bind(self, operations: Iterable[Operation], messages: Sequence[TraceMessage],
             by_id: Mapping[str, Operation] | None = None,
             messages_of: Callable[[str], Sequence[TraceMessage]] | None = None, *,
             index: "TraceIndex | None" = None) -> "BoundFilter":
        """`index`: one already made for this trace, shared by several filters (the colouring rules);
        `by_id` and `messages_of`: the store's own lookups, so binding walks no message."""
        index = index if index is not None else TraceIndex(operations, messages, by_id, messages_of)
        return BoundFilter(self, index, _build(self.ast, index), _build_operation(self.ast, index))

    def messages(self, operations: Iterable[Operation], messages: Sequence[TraceMessage]) -> list[TraceMessage]:
        test = self.bind(operations, messages).matches
        return [m for m in messages if test(m)]


@dataclass(frozen=True)
class BoundFilter:
    filter: Filter
    index: TraceIndex
    matches: MessageTest
    matches_operation: Callable[[Operation], bool]


def compile_filter(source: str) -> Filter:
    """Parse once (FilterError on a mistake); bind to a trace for the predicates."""
    return Filter(source, parse(source))


# --- completion ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Completion:
    """Replace `text[start:end]` with `replacement` (what the window's completer offers)."""

    replacement: str
    start: int
    end: int
    label: str = ""


_FIELD_HELP = {
    "method": "the method (a response: its request's)", "tool": "the operation's tool", "kind": "the message's kind",
    "round": "the round number", "op": "the operation id or label", "dir": "c2s or s2c", "era": "modern or legacy",
    "principal": "who the operation runs as", "code": "a JSON-RPC error code", "finding": "a lint rule or severity",
    "state": "requestState present, altered, absent", "duration": "time until the reply (ms, s)",
    "size": "the message's JSON size (B, KB, MB)", "task": "the task id", "text": "search the message's text",
}
_VALUE_HINTS: dict[str, tuple[str, ...]] = {
    **CHOICES, "dir": ("c2s", "s2c"), "method": ("tools/call", "prompts/get", "resources/read", "tools/list",
                                                   "server/discover", "initialize", "tasks/get", "tasks/result"),
    "finding": ("error", "warning", "info"), "round": (">1", "1", "2"), "duration": (">500ms", ">1s", "<100ms"),
    "size": (">1KB", ">1MB", "<512B"), "code": ("-32602", "-32603", "-32601", "-32600"), "task": ("*",),
}


def complete(source: str, cursor: int, known: Mapping[str, Iterable[str]] | None = None) -> list[Completion]:
    """Field names, then values, for the word that ends at `cursor`; `known` adds values seen in the
    trace (`{"tool": [...], "op": [...], "principal": [...]}`)."""
    cursor = max(0, min(cursor, len(source)))
    start = cursor
    while start > 0 and not source[start - 1].isspace() and source[start - 1] not in "()":
        start -= 1
    word = source[start:cursor]
    negated = word.startswith("-")
    if negated:
        word, start = word[1:], start + 1
    name, colon, typed = word.partition(":")
    if not colon:
        lowered = word.lower()
        found = [Completion(f"{f}:", start, cursor, _FIELD_HELP[f]) for f in FIELDS if f.startswith(lowered)]
        if not negated:
            found += [Completion(k, start, cursor, "keyword") for k in KEYWORDS if k.startswith(lowered) and lowered]
        return found
    name = name.lower()
    if name not in FIELDS:
        return []
    values = list(_VALUE_HINTS.get(name, ()))
    for extra in (known or {}).get(name, ()):
        if extra not in values:
            values.append(extra)
    value_start = start + len(name) + 1
    prefix = typed.lower()
    return [Completion(_quoted(v), value_start, cursor, f"{name}:{v}") for v in values
            if v.lower().startswith(prefix)]


def _quoted(value: str) -> str:
    if value and not any(c.isspace() or c in '()"' for c in value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

