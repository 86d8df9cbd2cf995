"""The operations list, without Qt: one row per operation the trace holds, kept up to date from
store events, and what "Run again" needs to repeat one.

A trace can hold 100,000 messages, so the index never walks messages to answer a question: each
store event updates one row in O(1) (a message only matters when it is an error, whose code the
row shows), and a view reads plain row fields. `apply(event)` says what changed, so a Qt adapter
turns it into one insert, one dataChanged or one reset.
"""

from dataclasses import dataclass, field
from typing import Any, Literal

from ..protocol.call import Call
from ..trace import StoreEvent
from ..trace.model import Operation, TraceMessage
from .served_engine import LABEL as SERVED_LABEL

Origin = Literal["live", "loaded", "recovered"]
ChangeKind = Literal["none", "reset", "added", "changed"]


@dataclass(frozen=True)
class RunSettings(Call):
    """What a live run was started with (the call, who made it), so "Run again" can start the same one."""

    identity: str
    #: The client settings as the client panel saves them (era choice, capabilities, identity).
    client: dict[str, Any] = field(default_factory=dict)
    entry: Any = None  # the ServerEntry it ran against


@dataclass
class OperationRow:
    operation: Operation
    origin: Origin
    settings: RunSettings | None = None
    error_code: int | str | None = None
    messages: int = 0

    @property
    def id(self) -> str:
        return self.operation.id

    @property
    def outcome(self) -> str:
        """complete, running, aborted, or the JSON-RPC error code the flow ended with."""
        op = self.operation
        if op.outcome == "error":
            code = op.error_code if op.error_code is not None else self.error_code
            return f"error {code}" if code is not None else "error"
        return op.outcome.replace("_", " ")

    @property
    def identity(self) -> str:
        return self.settings.identity if self.settings is not None else "—"

    @property
    def duration(self) -> float | None:
        op = self.operation
        return None if op.ended is None else max(0.0, op.ended - op.started)

    @property
    def source(self) -> str:
        """embedded, HTTP <url>, stdio <command>, or a flow an outside client ran against the served engine."""
        op = self.operation
        if op.label == SERVED_LABEL:
            return "served to an outside client"
        if op.server.startswith(("proxy ", "wrap: ")):
            return op.server if not op.label.startswith("wrapped session") else f"{op.label}: {op.server[6:]}"
        if op.server == "embedded":
            return "embedded"
        _, sep, where = op.server.partition(": ")  # a named connection: "NAME: URL"
        if op.server.startswith(("http://", "https://")) or (sep and where.startswith(("http://", "https://"))):
            return f"HTTP {op.server}"
        return f"stdio {op.server}"


@dataclass
class Change:
    kind: ChangeKind
    row: int = -1


@dataclass
class OperationsIndex:
    rows: list[OperationRow] = field(default_factory=list)
    _row_of: dict[str, int] = field(default_factory=dict)
    _pending_settings: dict[str, RunSettings] = field(default_factory=dict)
    #: What rows knew beyond the operation (live or recovered, how it was started), kept past a
    #: clear: Undo loads the same operations back, and they must come back as they were, not "(loaded)".
    _kept: dict[str, tuple[Origin, RunSettings | None]] = field(default_factory=dict)

    def note_settings(self, operation_id: str, settings: RunSettings) -> None:
        """Remember how a live operation was started (before or after its row exists)."""
        row = self._row_of.get(operation_id)
        if row is None:
            self._pending_settings[operation_id] = settings
        else:
            self.rows[row].settings = settings

    def apply(self, event: StoreEvent) -> Change:
        if event.kind == "cleared":
            self._keep_rows()
            self.rows, self._row_of = [], {}
            return Change("reset")
        if event.kind == "operation_added" and event.operation is not None:
            op = event.operation
            self._row_of[op.id] = len(self.rows)
            origin, settings = self._kept.get(op.id, ("loaded" if event.loaded else "live", None))
            self.rows.append(OperationRow(op, origin, self._pending_settings.pop(op.id, None) or settings))
            return Change("added", len(self.rows) - 1)
        if event.kind == "operation_updated" and event.operation is not None:
            row = self._row_of.get(event.operation.id)
            return Change("changed", row) if row is not None else Change("none")
        if event.kind == "message_added" and event.message is not None:
            entry = event.message
            row = self._row_of.get(entry.operation_id)
            if row is None:
                return Change("none")
            self.rows[row].messages += 1
            if entry.kind == "error" and isinstance(entry.message, dict):
                error = entry.message.get("error")
                code = error.get("code") if isinstance(error, dict) else None
                if isinstance(code, int | str):
                    self.rows[row].error_code = code
                    return Change("changed", row)
        return Change("none")

    def rebuild(self, operations: list[Operation], messages: list[TraceMessage]) -> None:
        """All rows at once from a loaded store: what the adds one by one would give, in one pass."""
        self._keep_rows()
        self.rows, self._row_of = [], {}
        for op in operations:
            self.apply(StoreEvent("operation_added", operation=op, loaded=True))
        rows, row_of = self.rows, self._row_of
        for entry in messages:
            row = row_of.get(entry.operation_id)
            if row is None:
                continue
            rows[row].messages += 1
            if entry.kind == "error" and isinstance(entry.message, dict):
                error = entry.message.get("error")
                code = error.get("code") if isinstance(error, dict) else None
                if isinstance(code, int | str):
                    rows[row].error_code = code

    def _keep_rows(self) -> None:
        self._kept.update({row.id: (row.origin, row.settings) for row in self.rows
                           if row.origin != "loaded" or row.settings is not None})

    def mark_recovered(self, operation_ids: list[str]) -> list[int]:
        """These operations came back from the autosave of a run that did not close cleanly; their rows."""
        rows = [row for row in (self._row_of.get(op_id) for op_id in operation_ids) if row is not None]
        for row in rows:
            self.rows[row].origin = "recovered"
        return rows

    def row_of(self, operation_id: str) -> int | None:
        return self._row_of.get(operation_id)

    def get(self, operation_id: str) -> OperationRow | None:
        row = self._row_of.get(operation_id)
        return None if row is None else self.rows[row]


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return "…"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"
