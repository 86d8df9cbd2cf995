"""The flow model: an operation (one tools/call, prompts/get or resources/read) made of rounds,
each round made of the messages that crossed the wire.

A message is recorded once; every view (diagram, log, inspector, files, terminal) renders the same
object. Everything here is plain data that round-trips through JSON unchanged.
"""

import itertools
import json
import operator
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from ..protocol.roundtrip import result_type_of
from . import transport_shapes

Direction = Literal["client->server", "server->client"]
MessageKind = Literal[
    "request",  # client request (first call or retry)
    "input_required",  # result with resultType input_required
    "complete",  # result with resultType complete (or absent)
    "task",  # result with resultType task: the call became a task (SEP-2663)
    "error",  # JSON-RPC error response
    "notification",
    "server_request",  # legacy server-initiated request
    "client_response",  # the client's answer to a server-initiated request
    "invalid",  # not understood
    "auth",  # an HTTP exchange of the authorization flow (masked), not JSON-RPC: see `auth_exchange`
]
Severity = Literal["error", "warning", "info"]


@dataclass(slots=True)
class Finding:
    rule: str
    severity: Severity
    message: str
    #: Fields a newer studio wrote that this one does not know: kept to be written back (format_version).
    extra: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        fields = {"rule": self.rule, "severity": self.severity, "message": self.message}
        return {**fields, **self.extra} if self.extra else fields


class PackedJson(bytes):
    """A message kept as its compact JSON text (orjson's output, which orjson reads back exactly).

    A loaded trace of 100,000 messages as Python dicts takes over 200 MB; as packed text about 20 MB.
    Views read `TraceMessage.message` as usual and get a freshly decoded value each time.
    """

    __slots__ = ()


def pack(value: Any) -> Any:
    """`value` as PackedJson, or unchanged when orjson cannot write it exactly (an integer past 64 bits,
    a non-string key, a NaN or infinity, which it writes as null): those few stay Python objects."""
    try:
        encoded = orjson.dumps(value)
    except TypeError:
        return value
    if b"null" in encoded and orjson.loads(encoded) != value:  # NaN != NaN: a lossy encoding stays unpacked
        return value
    return PackedJson(encoded)  # a copy of the exact size: orjson's buffer is over-allocated


class PackedBlock:
    """Consecutive packed messages sealed into one contiguous text: their compact JSON end to end, and
    where each starts (`offsets`, one more than messages).

    The store seals every `BLOCK_MESSAGES` messages it records (trace/store.py), so a million messages
    are 3,907 texts instead of a million bytes objects (49 bytes of header each), and a native search
    reads them in place (trace/text_column.py) instead of a copy. A sealed message keeps the block and
    its place in it; its text never changes there (assigning `message` gives the message its own)."""

    __slots__ = ("data", "offsets")

    def __init__(self, parts: Sequence[bytes]) -> None:
        self.data = b"".join(parts)
        self.offsets = array("q", itertools.accumulate(map(len, parts), initial=0))

    def view(self, at: int) -> memoryview:
        return memoryview(self.data)[self.offsets[at]:self.offsets[at + 1]]

    def json(self, at: int) -> bytes:
        return self.data[self.offsets[at]:self.offsets[at + 1]]


#: Messages sealed into one block (below 257, each message's place is one of Python's shared small ints).
BLOCK_MESSAGES = 256


def seal(entries: Sequence["TraceMessage"]) -> None:
    """Seal the packed ones of `entries` (in order) into one block; the others keep what they hold."""
    packed = [entry for entry in entries if type(entry._message) is PackedJson]
    if not packed:
        return
    block = PackedBlock([entry._message for entry in packed])
    for at, entry in enumerate(packed):
        entry._at = at  # before the block: a reader on another thread sees the old text or the new pair
        entry._message = block


_PLACE_OF = operator.attrgetter("_message", "_at")


def places_of(entries: Sequence["TraceMessage"]) -> list[tuple[Any, int]]:
    """Each entry's (block, place in it) when sealed, else (what it keeps, a place that means nothing):
    read for thousands at once without a Python call per message (trace/text_column.py)."""
    return list(map(_PLACE_OF, entries))


def blocks_of(entries: Sequence["TraceMessage"]) -> list[PackedBlock]:
    """The blocks `entries` are sealed in, each once, in the order they first appear."""
    return list({id(value): value for value in map(_PACKED_OF, entries) if type(value) is PackedBlock}.values())


#: A message's transport metadata when it has none (read as a fresh empty dict).
_NO_TRANSPORT = PackedJson(b"{}")


def _pack_transport(transport: dict[str, Any] | None) -> Any:
    """Transport metadata as kept on a message: its shared shape (trace/transport_shapes.py), else packed."""
    if not transport:
        return _NO_TRANSPORT
    shared = transport_shapes.share(transport)
    return shared if shared is not None else pack(transport)


class _NoFindings(list):
    """The findings of every message that has none: one shared empty list (a list per message was 5%
    of a loaded trace's memory). It refuses to change; TraceStore.add_findings gives the message its own."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a message without findings shares this list: assign a new list instead")

    append = extend = insert = remove = pop = clear = sort = reverse = __setitem__ = __delitem__ = _refuse
    __iadd__ = __imul__ = _refuse


NO_FINDINGS: list["Finding"] = _NoFindings()


class TraceMessage:
    """One message as it crossed the wire, with where it belongs (operation, round) and what the
    linter found. Slots and a packed payload keep a loaded trace of 100k messages small."""

    __slots__ = (
        "_at",
        "_message",
        "_transport",
        "direction",
        "extra",
        "findings",
        "jsonrpc_id",
        "kind",
        "method",
        "operation_id",
        "reply_to",
        "round",
        "seq",
        "timestamp",
    )

    def __init__(self, seq: int, operation_id: str, round: int, direction: Direction, kind: MessageKind,
                 message: Any, timestamp: float, method: str | None = None, jsonrpc_id: str | int | None = None,
                 transport: dict[str, Any] | None = None, findings: list[Finding] | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        self.seq = seq
        self.operation_id = operation_id
        self.round = round
        self.direction = direction
        self.kind = kind
        self._message = message
        #: The message's place in its PackedBlock, once sealed into one (`seal`).
        self._at = 0
        self.timestamp = timestamp
        self.method = method
        self.jsonrpc_id = jsonrpc_id
        # Shared between messages of the same shape: per-message dicts of headers took twice the memory
        # of the messages, and even packed one by one they took more than the messages.
        self._transport: Any = _pack_transport(transport)
        self.findings: list[Finding] = NO_FINDINGS if findings is None else findings
        #: Fields a newer studio wrote that this one does not know: kept to be written back (format_version).
        self.extra = extra
        #: For a response: the request it answers, linked once by the store as it is recorded or loaded
        #: (same operation, same id, the other direction), so no view pairs messages again.
        self.reply_to: TraceMessage | None = None

    @property
    def transport(self) -> dict[str, Any]:
        """What the transport knew of the message (exchange, HTTP status, masked headers...), decoded anew
        when packed: change it by assigning a whole dict."""
        value = self._transport
        kind = type(value)
        if kind is PackedJson:
            return orjson.loads(memoryview(value))
        return value.decode() if kind in transport_shapes.SHARED_TYPES else value

    @transport.setter
    def transport(self, value: dict[str, Any]) -> None:
        self._transport = _pack_transport(value)

    @property
    def method_name(self) -> str | None:
        """The method, for a response the method of the request it answers (responses carry none)."""
        if self.method:
            return self.method
        return self.reply_to.method if self.reply_to is not None else None

    @property
    def message(self) -> Any:
        """The JSON-RPC message (decoded anew when packed: callers may keep or change what they get)."""
        value = self._message
        kind = type(value)
        if kind is PackedBlock:
            return orjson.loads(value.view(self._at))
        return orjson.loads(memoryview(value)) if kind is PackedJson else value  # orjson wants exact bytes

    @message.setter
    def message(self, value: Any) -> None:
        self._message = value

    def kept(self) -> Any:
        """The message as this one keeps it, for a copy to keep as is: its packed text (a sealed one's
        own, cut from the block), or the value it could not pack."""
        value = self._message
        return PackedJson(value.json(self._at)) if type(value) is PackedBlock else value

    def packed(self) -> bool:
        """Kept as compact JSON (alone, or sealed in a block), not as a Python value."""
        return type(self._message) in (PackedJson, PackedBlock)

    def message_json(self) -> bytes:
        """The message as compact JSON, without decoding a packed one."""
        value = self._message
        kind = type(value)
        if kind is PackedBlock:
            return value.json(self._at)
        return value if kind is PackedJson else encode(value)

    def to_json(self) -> dict[str, Any]:
        fields = {"seq": self.seq, "operation_id": self.operation_id, "round": self.round,
                  "direction": self.direction, "kind": self.kind, "message": self.message,
                  "timestamp": self.timestamp, "method": self.method, "jsonrpc_id": self.jsonrpc_id,
                  "transport": self.transport, "findings": [f.to_json() for f in self.findings]}
        return {**fields, **self.extra} if self.extra else fields

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TraceMessage):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        return (f"TraceMessage(seq={self.seq!r}, operation_id={self.operation_id!r}, round={self.round!r}, "
                f"direction={self.direction!r}, kind={self.kind!r}, message={self.message!r})")


_PACKED_OF = operator.attrgetter("_message")


def messages_json(entries: Sequence["TraceMessage"]) -> list[bytes]:
    """`message_json()` of each entry, for a search over thousands at once: when none is sealed yet
    (a live tail) they are read without a Python call per message; a sealed one is cut from its block."""
    parts = list(map(_PACKED_OF, entries))
    if set(map(type, parts)) == {PackedJson}:  # messages not yet sealed: nothing to slice or encode
        return parts
    return [entry.message_json() for entry in entries]


def encode(value: Any) -> bytes:
    """Compact JSON for the trace's files. orjson, or the stdlib for what orjson refuses (an integer past
    64 bits, a non-string key; anything else not JSON as its str). JSON has no NaN: orjson writes null."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode()


#: "refused": the HTTP layer turned the call away (401, 403, a 4xx/5xx without a JSON-RPC error); the
#: operation's `problem` names the status ("HTTP 401"), shown as "refused (HTTP 401)" (`outcome_text`).
Outcome = Literal["running", "complete", "error", "aborted", "round_limit", "protocol_error", "transport_error",
                  "refused"]


@dataclass(slots=True)
class Operation:
    id: str
    method: str
    target: str  # tool or prompt name, resource uri
    arguments: dict[str, Any]
    era: str
    server: str  # "embedded", an URL, a stdio command
    started: float
    outcome: Outcome = "running"
    ended: float | None = None
    rounds: int = 0
    #: Seconds the person spent answering before each retry, by the round that retry opened.
    answer_seconds: dict[int, float] = field(default_factory=dict)
    problem: str | None = None
    label: str = ""
    #: A call that became a task (SEP-2663): its id (kept so a reopened trace can resume polling),
    #: its last seen status, and the round whose answer created it (the MRTR phase ends there).
    task_id: str | None = None
    task_status: str | None = None
    task_round: int | None = None
    #: The JSON-RPC error code the operation ended with (set with its outcome; a loaded trace's comes
    #: from its last error message), so nothing reads it back out of `problem`'s text.
    error_code: int | None = None
    #: Fields a newer studio wrote that this one does not know: kept to be written back (format_version).
    extra: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """As JSON (the arguments are shared, not copied: encode or copy before changing them)."""
        fields = {"id": self.id, "method": self.method, "target": self.target, "arguments": self.arguments,
                  "era": self.era, "server": self.server, "started": self.started, "outcome": self.outcome,
                  "ended": self.ended, "rounds": self.rounds,
                  "answer_seconds": {str(k): v for k, v in self.answer_seconds.items()}, "problem": self.problem,
                  "label": self.label, "task_id": self.task_id, "task_status": self.task_status,
                  "task_round": self.task_round}
        return {**fields, **self.extra} if self.extra else fields


def outcome_text(op: Operation) -> str:
    """The outcome as people read it: "refused (HTTP 401)" names the status, the others stand alone."""
    if op.outcome == "refused" and op.problem:
        return f"refused ({op.problem.split(':')[0]})"
    return op.outcome


def kind_of(message: Any, direction: Direction) -> MessageKind:
    """What a message is, from the side that received it."""
    if not isinstance(message, dict):
        return "invalid"
    if "method" in message:
        if "id" not in message:
            return "notification"
        return "request" if direction == "client->server" else "server_request"
    if direction == "client->server":
        return "client_response"
    if "error" in message:
        return "error"
    body = message.get("result")
    if not isinstance(body, dict):
        return "invalid"
    kind = result_type_of(body)
    if kind == "input_required":
        return "input_required"
    return "task" if kind == "task" else "complete"


def auth_exchange(entry: "TraceMessage") -> dict[str, Any]:
    """An "auth" message's exchange: phase, method, url, status, masked request and response, checks."""
    message = entry.message if entry.kind == "auth" else None
    return message if isinstance(message, dict) else {}


def params_of(message: Any) -> dict[str, Any]:
    """A message's `params` object, `{}` when absent or not an object (traces hold whatever peers sent)."""
    params = message.get("params") if isinstance(message, dict) else None
    return params if isinstance(params, dict) else {}


def result_of(message: Any) -> dict[str, Any]:
    """A response's `result` object, `{}` when absent or not an object."""
    result = message.get("result") if isinstance(message, dict) else None
    return result if isinstance(result, dict) else {}
