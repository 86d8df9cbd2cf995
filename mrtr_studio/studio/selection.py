"""What the person is looking at, shared by every view: one operation and one message.

A plain evented object (no Qt): clicking an arrow, a log row or anything else calls `select_message`,
and every listener hears the change. Changes are announced only when something changed, which keeps
views that both set and follow the selection from looping. `ui/selection.py` bridges it to Qt signals.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..trace import TraceMessage


@dataclass(frozen=True)
class SelectionChanged:
    """`what` changed: the operation (id, "" for none) or the message (seq, -1 for none)."""

    what: Literal["operation", "message"]
    operation_id: str
    message_seq: int


class Selection:
    def __init__(self) -> None:
        self._operation = ""
        self._message = -1
        self._listeners: list[Callable[[SelectionChanged], None]] = []

    def subscribe(self, listener: Callable[[SelectionChanged], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _tell(self, what: Literal["operation", "message"]) -> None:
        change = SelectionChanged(what, self._operation, self._message)
        for listener in list(self._listeners):
            listener(change)

    @property
    def operation_id(self) -> str:
        return self._operation

    @property
    def message_seq(self) -> int:
        return self._message

    def select_operation(self, operation_id: str) -> None:
        """Show another operation; the message selection is dropped when it belonged elsewhere."""
        if operation_id == self._operation:
            return
        self._operation = operation_id
        self._tell("operation")
        if self._message != -1:
            self._message = -1
            self._tell("message")

    def select_message(self, seq: int, operation_id: str | None = None) -> None:
        """Select one message (and its operation, when given, before the message is announced)."""
        if operation_id is not None and operation_id != self._operation:
            self._operation = operation_id
            self._tell("operation")
        if seq != self._message:
            self._message = seq
            self._tell("message")

    def select(self, entry: TraceMessage) -> None:
        self.select_message(entry.seq, entry.operation_id)

    def clear(self) -> None:
        self.select_operation("")
        self.select_message(-1)
