"""What a `.mrtr.json` trace and an autosave journal may hold, as pydantic models: the one place a
file's content is checked before any other code sees it.

A trace file comes from anywhere (a colleague, an old studio, a hand edit, an attacker), so every
record is validated strictly (no extra fields, no "3" for 3, no list where an object belongs) and a
problem is reported with its place in the document, `messages[3].rounds: Input should be ...`,
instead of surfacing later as an AttributeError deep in a view. pydantic-core parses and validates
the JSON text in one pass in Rust (no intermediate tree, no Python recursion: its parser refuses more
than 200 levels of nesting, so 100k `[` is a clear error); sizes are bounded by the readers (files,
autosave). The records are then turned into the slotted model objects, each message kept packed.
"""

import re
from collections.abc import Iterable
from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, Strict, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict

from .model import Direction, Finding, MessageKind, Operation, Outcome, Severity, TraceMessage, encode, pack

FORMAT = "mrtr-studio-trace"
VERSION = 1
#: Ceilings for one file and for one record (an operation or a message) in it.
MAX_TRACE_BYTES = 1024 * 1024 * 1024
MAX_RECORD_BYTES = 256 * 1024 * 1024

_STRICT = ConfigDict(extra="forbid", strict=True)
#: Sequence and round numbers: whole, not negative, and exact in any JSON reader (at most 2**53).
Count = Annotated[int, Field(ge=0, le=2**53)]
#: JSON object keys are strings: the round numbers of `answer_seconds` are read from "2" (and only digits).
RoundKey = Annotated[int, Strict(False), Field(ge=0, le=2**53)]
#: Times and durations: `1e400` parses as infinity, which no view can place on a timeline.
Seconds = Annotated[float, Field(allow_inf_nan=False)]


@with_config(_STRICT)
class FindingRecord(TypedDict):
    rule: str
    severity: Severity
    message: str


@with_config(_STRICT)
class OperationRecord(TypedDict):
    id: str
    method: str
    target: str
    arguments: dict[str, Any]
    era: str
    server: str
    started: Seconds
    outcome: NotRequired[Outcome]
    ended: NotRequired[Seconds | None]
    rounds: NotRequired[Count]
    answer_seconds: NotRequired[dict[RoundKey, Seconds]]
    problem: NotRequired[str | None]
    label: NotRequired[str]
    #: A call that became a task (SEP-2663): kept so a reopened trace can resume polling it.
    task_id: NotRequired[str | None]
    task_status: NotRequired[str | None]
    task_round: NotRequired[Count | None]


@with_config(_STRICT)
class MessageRecord(TypedDict):
    seq: Count
    operation_id: str
    round: Count
    direction: Direction
    kind: MessageKind
    message: Any
    timestamp: Seconds
    method: NotRequired[str | None]
    jsonrpc_id: NotRequired[str | int | None]
    transport: NotRequired[dict[str, Any]]
    findings: NotRequired[list[FindingRecord]]


@with_config(_STRICT)
class TraceDocument(TypedDict):
    format: Literal["mrtr-studio-trace"]
    version: Literal[1]
    operations: list[OperationRecord]
    messages: list[MessageRecord]


@with_config(_STRICT)
class OperationEntry(TypedDict):
    type: Literal["operation"]
    data: OperationRecord


@with_config(_STRICT)
class MessageEntry(TypedDict):
    type: Literal["message"]
    data: MessageRecord


@with_config(_STRICT)
class ClearedEntry(TypedDict):
    type: Literal["cleared"]


JournalRecord = Annotated[OperationEntry | MessageEntry | ClearedEntry, Field(discriminator="type")]

DOCUMENT = TypeAdapter(TraceDocument)
OPERATIONS = TypeAdapter(list[OperationRecord])
MESSAGES = TypeAdapter(list[MessageRecord])
JOURNAL_RECORD = TypeAdapter(JournalRecord)


class TraceFileError(ValueError):
    """A trace or journal that cannot be read as one: `where` is the JSON path of the first problem."""

    def __init__(self, source: str, where: str, problem: str) -> None:
        super().__init__(f"{source} is damaged: {where}: {problem}" if where else f"{source} is damaged: {problem}")
        self.source = source
        self.where = where
        self.problem = problem


def json_path(loc: Iterable[int | str], prefix: str = "", offset: int = 0) -> str:
    """pydantic's error location as a JSON path: ("messages", 3, "rounds") -> `messages[3].rounds`."""
    path = prefix
    first = True
    for part in loc:
        if isinstance(part, int):
            path += f"[{part + offset if first and prefix else part}]"
        elif part == "[key]":
            path += " (a key)"
        else:
            path += f".{part}" if path else str(part)
        first = False
    return path


_AT = re.compile(r" at line (\d+) column (\d+)$")


JOURNAL_TAGS = ("operation", "message", "cleared")


def first_problem(exc: ValidationError, prefix: str = "", offset: int = 0,
                  tags: tuple[str, ...] = ()) -> tuple[str, str]:
    """The first error of a validation as (JSON path, what is wrong), with the value when short.

    With a `prefix`, the text validated was `[\n` + one record per line + `\n]`, so a JSON syntax
    error's line number names the record (`messages[12]`). `tags`: a tagged union's tags, which
    pydantic puts first in the location although they are not part of the JSON path."""
    error = exc.errors(include_url=False, include_context=False)[0]
    loc = error["loc"]
    if loc and loc[0] in tags:
        loc = loc[1:]
    problem = error["msg"]
    if error["type"] == "json_invalid":
        at = _AT.search(problem)
        if at and prefix:
            record = offset + max(int(at.group(1)) - 2, 0)
            return f"{prefix}[{record}]", f"{problem[:at.start()]} at column {at.group(2)} of its line"
        return "", problem
    if error["type"] not in ("missing", "extra_forbidden"):
        shown = repr(error.get("input"))
        problem += f" (got {shown})" if len(shown) <= 60 else f" (got a {type(error.get('input')).__name__})"
    return json_path(loc, prefix, offset), problem


def records_text(lines: list[bytes]) -> bytes:
    """Record lines as one JSON array whose line k+2 is record k (see first_problem)."""
    return b"[\n" + b",\n".join(lines) + b"\n]"


class Builder:
    """Validated records -> model objects, sharing repeated strings (kinds, methods, operation ids)."""

    def __init__(self) -> None:
        self._strings: dict[str, str] = {}

    def operation(self, record: OperationRecord) -> Operation:
        op = Operation(**record)
        op.id = self._strings.setdefault(op.id, op.id)
        op.method = self._strings.setdefault(op.method, op.method)
        return op

    def messages(self, records: list[MessageRecord]) -> list[TraceMessage]:
        shared = self._strings.setdefault
        out = []
        for record in records:
            method = record.get("method")
            findings = record.get("findings")
            out.append(TraceMessage(
                record["seq"], shared(record["operation_id"], record["operation_id"]), record["round"],
                shared(record["direction"], record["direction"]), shared(record["kind"], record["kind"]),  # type: ignore[arg-type]
                pack(record["message"]), record["timestamp"], None if method is None else shared(method, method),
                record.get("jsonrpc_id"), record.get("transport"),
                [Finding(**f) for f in findings] if findings else None))
        return out


class References:
    """Cross-record checks a schema cannot make: unique ids and seqs, messages of known operations."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.operation_ids: set[str] = set()
        self.seqs: set[int] = set()

    def operations(self, operations: list[Operation], offset: int = 0) -> None:
        for index, op in enumerate(operations, offset):
            if op.id in self.operation_ids:
                raise TraceFileError(self.source, f"operations[{index}].id", f"operation {op.id!r} appears twice")
            self.operation_ids.add(op.id)

    def messages(self, messages: list[TraceMessage], offset: int = 0) -> None:
        for index, entry in enumerate(messages, offset):
            if entry.operation_id not in self.operation_ids:
                raise TraceFileError(self.source, f"messages[{index}].operation_id",
                                     f"no operation {entry.operation_id!r} in this trace")
            if entry.seq in self.seqs:
                raise TraceFileError(self.source, f"messages[{index}].seq", f"seq {entry.seq} appears twice")
            self.seqs.add(entry.seq)


class NotOneRecordPerLine(Exception):
    """The lines are not one JSON record each (a hand edit, another writer): read the document whole,
    which decides whether it is valid JSON at all."""


def _records_error(exc: ValidationError, source: str, prefix: str, offset: int) -> Exception:
    error = exc.errors(include_url=False, include_context=False)[0]
    if error["type"] == "json_invalid" and "recursion limit" not in error["msg"]:
        return NotOneRecordPerLine()  # nesting is the same in any layout; syntax is not
    return TraceFileError(source, *first_problem(exc, prefix, offset))


def operations_from(lines: list[bytes], source: str, builder: Builder, offset: int = 0) -> list[Operation]:
    """Operation records, one JSON text per line, validated together."""
    try:
        valid = OPERATIONS.validate_json(records_text(lines))
    except ValidationError as exc:
        raise _records_error(exc, source, "operations", offset) from None
    return [builder.operation(record) for record in valid]


def messages_from(lines: list[bytes], source: str, builder: Builder, offset: int = 0) -> list[TraceMessage]:
    """Message records, one JSON text per line, validated together."""
    try:
        valid = MESSAGES.validate_json(records_text(lines))
    except ValidationError as exc:
        raise _records_error(exc, source, "messages", offset) from None
    return builder.messages(valid)


def document_from(text: bytes, source: str) -> tuple[list[Operation], list[TraceMessage]]:
    """A whole document in any layout, checked and built (the format and version named first)."""
    try:
        document = DOCUMENT.validate_json(text)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=False)
        fields = {error["loc"][0] if error["loc"] else "": error for error in errors}
        if errors[0]["type"] != "json_invalid" and ("" in fields or "format" in fields):
            raise ValueError(f"{source} is not an MRTR Studio trace (no \"format\": \"{FORMAT}\")") from None
        if "version" in fields and fields["version"]["type"] != "missing":
            raise ValueError(f"{source} has trace format version {fields['version'].get('input')!r}; "
                             f"this studio reads {VERSION}") from None
        raise TraceFileError(source, *first_problem(exc)) from None
    build = Builder()
    operations = [build.operation(record) for record in document["operations"]]
    messages = build.messages(document["messages"])
    references = References(source)
    references.operations(operations)
    references.messages(messages)
    return operations, messages


def operation_json(op: Operation) -> bytes:
    """One operation record as compact JSON."""
    return encode(op.to_json())


def message_json(entry: TraceMessage) -> bytes:
    """One message record as compact JSON, splicing in a packed message without decoding it."""
    findings = [{"rule": f.rule, "severity": f.severity, "message": f.message} for f in entry.findings] \
        if entry.findings else []
    head = encode({"seq": entry.seq, "operation_id": entry.operation_id, "round": entry.round,
                   "direction": entry.direction, "kind": entry.kind, "timestamp": entry.timestamp,
                   "method": entry.method, "jsonrpc_id": entry.jsonrpc_id, "transport": entry.transport,
                   "findings": findings})
    return head[:-1] + b',"message":' + entry.message_json() + b"}"
