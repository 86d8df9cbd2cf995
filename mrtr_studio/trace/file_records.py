"""The records of a `.mrtr.json` trace and an autosave journal as pydantic shapes: what file_format validates.

Apart from file_format (which reads and writes the files, and is imported with the window) so that
pydantic and these schemas load with the first file or journal read, not at every launch: a window
that reads no file never pays for them. Strict: no extra fields unless declared open (a newer
studio's fields ride along, the Builder decides), no "3" for 3, no list where an object belongs.
"""

from functools import cache
from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, Strict, TypeAdapter, with_config
from typing_extensions import TypedDict

from .model import Direction

_STRICT = ConfigDict(extra="forbid", strict=True)
#: Records keep fields they do not declare (a newer studio's); the Builder decides whether they may.
_OPEN = ConfigDict(extra="allow", strict=True)
#: Sequence and round numbers: whole, not negative, and exact in any JSON reader (at most 2**53).
Count = Annotated[int, Field(ge=0, le=2**53)]
#: JSON object keys are strings: the round numbers of `answer_seconds` are read from "2" (and only digits).
RoundKey = Annotated[int, Strict(False), Field(ge=0, le=2**53)]
#: Times and durations: `1e400` parses as infinity, which no view can place on a timeline.
Seconds = Annotated[float, Field(allow_inf_nan=False)]


@with_config(_OPEN)
class FindingRecord(TypedDict):
    rule: str
    severity: str  # a Severity; checked by the Builder (a newer studio may add one)
    message: str


@with_config(_OPEN)
class OperationRecord(TypedDict):
    id: str
    method: str
    target: str
    arguments: dict[str, Any]
    era: str
    server: str
    started: Seconds
    outcome: NotRequired[str]  # an Outcome; checked by the Builder (a newer studio may add one)
    ended: NotRequired[Seconds | None]
    rounds: NotRequired[Count]
    answer_seconds: NotRequired[dict[RoundKey, Seconds]]
    problem: NotRequired[str | None]
    label: NotRequired[str]
    #: A call that became a task (SEP-2663): kept so a reopened trace can resume polling it.
    task_id: NotRequired[str | None]
    task_status: NotRequired[str | None]
    task_round: NotRequired[Count | None]


@with_config(_OPEN)
class MessageRecord(TypedDict):
    seq: Count
    operation_id: str
    round: Count
    direction: Direction
    kind: str  # a MessageKind; checked by the Builder (a newer studio may add one)
    message: Any
    timestamp: Seconds
    method: NotRequired[str | None]
    jsonrpc_id: NotRequired[str | int | None]
    transport: NotRequired[dict[str, Any]]
    findings: NotRequired[list[FindingRecord]]


@with_config(_OPEN)
class TraceHead(TypedDict):
    """What comes before the records: checked first, so a newer or other file is named as such."""

    format: Literal["mrtr-studio-trace"]
    version: Any


@with_config(_OPEN)
class TraceDocument(TypedDict):
    format: Literal["mrtr-studio-trace"]
    version: Any
    operations: list[OperationRecord]
    messages: list[MessageRecord]


FINDING_KEYS = frozenset(FindingRecord.__annotations__)
OPERATION_KEYS = frozenset(OperationRecord.__annotations__)
MESSAGE_KEYS = frozenset(MessageRecord.__annotations__)
DOCUMENT_KEYS = frozenset(TraceDocument.__annotations__)


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


@with_config(_STRICT)
class SourceRecord(TypedDict):
    """The trace file a session opened: the journal names it (never copies it) so recovery can
    reopen it, and tell whether it is gone or changed since (size, modification time)."""

    path: str
    size: Annotated[int, Field(ge=0)]
    mtime_ns: Annotated[int, Field(ge=0)]
    #: The file's last message seq: the session's own messages are numbered after it.
    last_seq: Annotated[int, Field(ge=-1, le=2**53)]


@with_config(_STRICT)
class SourceEntry(TypedDict):
    type: Literal["source"]
    data: SourceRecord


JournalRecord = Annotated[OperationEntry | MessageEntry | ClearedEntry | SourceEntry, Field(discriminator="type")]


@with_config(ConfigDict(extra="ignore"))
class _Version(TypedDict):
    version: Any



#: The validators by name, each built the first time it is used (`adapter(name)`, or `file_format.HEAD` and
#: the others through file_format's __getattr__).
SHAPES: dict[str, Any] = {"DOCUMENT": TraceDocument, "HEAD": TraceHead, "OPERATIONS": list[OperationRecord],
                          "MESSAGES": list[MessageRecord], "JOURNAL_RECORD": JournalRecord, "_VERSION": _Version}


@cache
def adapter(name: str) -> TypeAdapter[Any]:
    return TypeAdapter(SHAPES[name])
