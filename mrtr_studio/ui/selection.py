"""What the person is looking at, shared by every view: one operation and one message.

Clicking an arrow, a log row or anything else calls `select_message`; every view listens to the
signals, so a message picked anywhere is the message shown everywhere. Signals fire only on change,
which keeps views that both set and follow the selection from looping.
"""

from PySide6.QtCore import QObject, Signal

from ..trace import TraceMessage


class Selection(QObject):
    operationChanged = Signal(str)  # operation id, "" for none
    messageChanged = Signal(int)  # message seq, -1 for none

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._operation = ""
        self._message = -1

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
        self.operationChanged.emit(operation_id)
        if self._message != -1:
            self._message = -1
            self.messageChanged.emit(-1)

    def select_message(self, seq: int, operation_id: str | None = None) -> None:
        """Select one message (and its operation, when given, before the message signal fires)."""
        if operation_id is not None and operation_id != self._operation:
            self._operation = operation_id
            self.operationChanged.emit(operation_id)
        if seq != self._message:
            self._message = seq
            self.messageChanged.emit(seq)

    def select(self, entry: TraceMessage) -> None:
        self.select_message(entry.seq, entry.operation_id)

    def clear(self) -> None:
        self.select_operation("")
        self.select_message(-1)
