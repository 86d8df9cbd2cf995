"""What a `.mrtr.json` trace and an autosave journal may hold, checked by pydantic models (file_records): the
one place a file's content is checked before any other code sees it.

A trace file comes from anywhere (a colleague, an old studio, a hand edit, an attacker), so every
record is validated strictly (no extra fields, no "3" for 3, no list where an object belongs) and a
problem is reported with its place in the document, `messages[3].rounds: Input should be ...`,
instead of surfacing later as an AttributeError deep in a view. pydantic-core parses and validates
the JSON text in one pass in Rust (no intermediate tree, no Python recursion: its parser refuses more
than 200 levels of nesting, so 100k `[` is a clear error); sizes are bounded by the readers (files,
autosave). The records are then turned into the slotted model objects, each message kept packed.

A file from a newer studio (a newer MINOR format version) may carry fields this one does not know:
they are accepted, kept on the model objects and written back (format_version); in a file of this
version or older they are damage, refused like any other with their place.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_args

from . import format_version
from .format_version import Newer
from .model import BLOCK_MESSAGES, Finding, MessageKind, Operation, Outcome, Severity, TraceMessage, encode, pack, seal

if TYPE_CHECKING:
    from pydantic import TypeAdapter, ValidationError

    from .file_records import FindingRecord, MessageRecord, OperationRecord

FORMAT = "mrtr-studio-trace"
VERSION = format_version.MAJOR
#: The ceiling for one record (an operation or a message); a whole file's is the memory it needs (memory_fit).
MAX_RECORD_BYTES = 256 * 1024 * 1024

#: The pydantic models of the records (file_records), imported with the first file or journal read: pydantic
#: and the models' schemas took some 40 ms of every launch of the window, which mostly reads no file.


def adapter(name: str) -> "TypeAdapter[Any]":
    """The validator of one shape (DOCUMENT, HEAD, OPERATIONS, MESSAGES, JOURNAL_RECORD), built once."""
    from .file_records import adapter as built

    return built(name)


def __getattr__(name: str) -> Any:
    """`file_format.HEAD` and the other shapes' validators; only an upper-case name loads the models (the
    import system asks every module for `__path__`, and that question must not cost pydantic)."""
    if name.isupper() and not name.startswith("__"):
        from . import file_records

        if name in file_records.SHAPES:
            return file_records.adapter(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


JOURNAL_TAGS = ("operation", "message", "cleared", "source")


def first_problem(exc: "ValidationError", prefix: str = "", offset: int = 0,
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
    """Validated records -> model objects, sharing repeated strings (kinds, methods, operation ids).

    Fields a record does not declare are refused (TraceFileError with their place) unless the file
    is from a newer studio (`newer`: they are kept on the object and counted for the note) or the
    records are the studio's own journal (`keep_unknown`: it holds what an opened newer file had)."""

    def __init__(self, source: str = "", newer: Newer | None = None, keep_unknown: bool = False) -> None:
        self._strings: dict[str, str] = {}
        self.source = source
        self.newer = newer
        self.keep_unknown = keep_unknown or newer is not None
        from .file_records import FINDING_KEYS, MESSAGE_KEYS, OPERATION_KEYS  # built with the first file read

        self._finding_keys, self._message_keys, self._operation_keys = FINDING_KEYS, MESSAGE_KEYS, OPERATION_KEYS

    def _unknown(self, record: dict[str, Any], known: frozenset[str], where: str) -> dict[str, Any] | None:
        if known.issuperset(record):
            return None
        if not self.keep_unknown:
            key = format_version.first_unknown(record, known)
            raise TraceFileError(self.source, f"{where}.{key}", "Extra inputs are not permitted")
        extra = format_version.split(record, known)
        if self.newer is not None and extra:
            self.newer.fields.update(f"{where.partition('[')[0]}{_levels(where)}.{key}" for key in extra)
        return extra

    def _unknown_value(self, record: dict[str, Any], field: str, choices: tuple[str, ...], fallback: str,
                       where: str, extra: dict[str, Any] | None) -> dict[str, Any]:
        """A value this version does not know in a field it does (a newer studio's new kind, say): shown
        as `fallback`, the value itself kept in `extra` (written back over the fallback on save)."""
        value = record[field]
        if not self.keep_unknown:
            shown = repr(value) if len(repr(value)) <= 60 else "a str"
            expected = f"{', '.join(map(repr, choices[:-1]))} or {choices[-1]!r}"  # as pydantic says it
            raise TraceFileError(self.source, f"{where}.{field}", f"Input should be {expected} (got {shown})")
        record[field] = fallback
        if self.newer is not None:
            self.newer.fields[f"{where.partition('[')[0]}{_levels(where)}.{field} {value!r} (shown as {fallback})"] += 1
        return {**(extra or {}), field: value}

    def operation(self, record: "OperationRecord", index: int = 0) -> Operation:
        extra = None if self._operation_keys.issuperset(record) else \
            self._unknown(record, self._operation_keys, f"operations[{index}]")  # type: ignore[arg-type]
        if record.get("outcome", "running") not in _OUTCOMES:
            extra = self._unknown_value(record, "outcome", _OUTCOME_CHOICES, "aborted",  # type: ignore[arg-type]
                                        f"operations[{index}]", extra)
        op = Operation(**record, extra=extra)  # type: ignore[arg-type]  # the outcome is one of Outcome's
        op.id = self._strings.setdefault(op.id, op.id)
        op.method = self._strings.setdefault(op.method, op.method)
        return op

    def messages(self, records: "list[MessageRecord]", offset: int = 0) -> list[TraceMessage]:
        shared = self._strings.setdefault
        known = self._message_keys.issuperset
        out = []
        for index, record in enumerate(records, offset):
            # Formatting the place only for a record with unknown fields: this loop runs 100,000 times.
            extra = None if known(record) else self._unknown(record, self._message_keys, f"messages[{index}]")  # type: ignore[arg-type]
            if record["kind"] not in _KINDS:
                extra = self._unknown_value(record, "kind", _KIND_CHOICES, "invalid",  # type: ignore[arg-type]
                                            f"messages[{index}]", extra)
            method = record.get("method")
            findings = record.get("findings")
            out.append(TraceMessage(
                record["seq"], shared(record["operation_id"], record["operation_id"]), record["round"],
                shared(record["direction"], record["direction"]), shared(record["kind"], record["kind"]),  # type: ignore[arg-type]
                pack(record["message"]), record["timestamp"], None if method is None else shared(method, method),
                record.get("jsonrpc_id"), record.get("transport"),
                [self._finding(f, index, at) for at, f in enumerate(findings)]
                if findings else None, extra))
        for start in range(0, len(out), BLOCK_MESSAGES):  # sealed now, while each message's own text is
            seal(out[start:start + BLOCK_MESSAGES])  # the latest thing freed: the next chunk reuses its memory
        return out

    def _finding(self, record: "FindingRecord", message: int, at: int) -> Finding:
        extra = None if self._finding_keys.issuperset(record) else \
            self._unknown(record, self._finding_keys, f"messages[{message}].findings[{at}]")  # type: ignore[arg-type]
        if record["severity"] not in _SEVERITIES:
            extra = self._unknown_value(record, "severity", _SEVERITY_CHOICES, "info",  # type: ignore[arg-type]
                                        f"messages[{message}].findings[{at}]", extra)
        return Finding(record["rule"], record["severity"], record["message"], extra)  # type: ignore[arg-type]


_KIND_CHOICES: tuple[str, ...] = get_args(MessageKind)
_OUTCOME_CHOICES: tuple[str, ...] = get_args(Outcome)
_SEVERITY_CHOICES: tuple[str, ...] = get_args(Severity)
_KINDS, _OUTCOMES, _SEVERITIES = frozenset(_KIND_CHOICES), frozenset(_OUTCOME_CHOICES), frozenset(_SEVERITY_CHOICES)


def _levels(where: str) -> str:
    """`messages[3].findings[0]` -> `[].findings[]`: the level of a place, for counting."""
    return re.sub(r"\[\d+\]", "[]", where[where.index("["):]) if "[" in where else ""


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


def _records_error(exc: "ValidationError", source: str, prefix: str, offset: int) -> Exception:
    error = exc.errors(include_url=False, include_context=False)[0]
    if error["type"] == "json_invalid" and "recursion limit" not in error["msg"]:
        return NotOneRecordPerLine()  # nesting is the same in any layout; syntax is not
    return TraceFileError(source, *first_problem(exc, prefix, offset))


def operations_from(lines: list[bytes], source: str, builder: Builder, offset: int = 0) -> list[Operation]:
    """Operation records, one JSON text per line, validated together."""
    from pydantic import ValidationError  # loaded with the records' models (adapter)

    try:
        valid = adapter("OPERATIONS").validate_json(records_text(lines))
    except ValidationError as exc:
        raise _records_error(exc, source, "operations", offset) from None
    return [builder.operation(record, index) for index, record in enumerate(valid, offset)]


def messages_from(lines: list[bytes], source: str, builder: Builder, offset: int = 0) -> list[TraceMessage]:
    """Message records, one JSON text per line, validated together."""
    from pydantic import ValidationError  # loaded with the records' models (adapter)

    try:
        valid = adapter("MESSAGES").validate_json(records_text(lines))
    except ValidationError as exc:
        raise _records_error(exc, source, "messages", offset) from None
    return builder.messages(valid, offset)


@dataclass
class Contents:
    """What a trace file holds, as model objects; `newer` when a newer studio wrote it."""

    operations: list[Operation]
    messages: list[TraceMessage]
    newer: Newer | None = None




def head_from(head: Mapping[str, Any], source: str) -> Newer | None:
    """A validated head (format and version, and any other top-level fields): None for a file of
    this version, `Newer` for a newer minor one (its unknown fields kept); ValueError otherwise."""
    from .file_records import DOCUMENT_KEYS

    version = format_version.parse(head["version"], source)
    newer = Newer(version) if format_version.is_newer(version) else None
    unknown = {key: value for key, value in head.items() if key not in DOCUMENT_KEYS}
    if unknown and newer is None:
        raise TraceFileError(source, next(iter(unknown)), "Extra inputs are not permitted")
    if newer is not None:
        newer.document = unknown
        newer.fields.update(f"the file's {key}" for key in unknown)
    return newer


def document_from(text: bytes, source: str) -> Contents:
    """A whole document in any layout, checked and built (the format and version named first)."""
    from pydantic import ValidationError  # loaded with the records' models (adapter)

    try:
        document = adapter("DOCUMENT").validate_json(text)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=False)
        fields = {error["loc"][0] if error["loc"] else "": error for error in errors}
        if errors[0]["type"] != "json_invalid" and ("" in fields or "format" in fields):
            raise ValueError(f"{source} is not an MRTR Studio trace (no \"format\": \"{FORMAT}\")") from None
        if errors[0]["type"] != "json_invalid" and "version" not in fields:
            # Another major version's records may differ in any way: name the versions, not a record.
            format_version.parse(adapter("_VERSION").validate_json(text)["version"], source)
        raise TraceFileError(source, *first_problem(exc)) from None
    newer = head_from({key: value for key, value in document.items() if key not in ("operations", "messages")},
                      source)
    build = Builder(source, newer)
    operations = [build.operation(record, index) for index, record in enumerate(document["operations"])]
    messages = build.messages(document["messages"])
    references = References(source)
    references.operations(operations)
    references.messages(messages)
    return Contents(operations, messages, newer)


def operation_json(op: Operation) -> bytes:
    """One operation record as compact JSON."""
    return encode(op.to_json())


def message_json(entry: TraceMessage) -> bytes:
    """One message record as compact JSON, splicing in a packed message without decoding it."""
    findings = [f.to_json() for f in entry.findings] if entry.findings else []
    fields = {"seq": entry.seq, "operation_id": entry.operation_id, "round": entry.round,
              "direction": entry.direction, "kind": entry.kind, "timestamp": entry.timestamp,
              "method": entry.method, "jsonrpc_id": entry.jsonrpc_id, "transport": entry.transport,
              "findings": findings}
    head = encode({**fields, **entry.extra} if entry.extra else fields)
    return head[:-1] + b',"message":' + entry.message_json() + b"}"
