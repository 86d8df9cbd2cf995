"""The Qt bridge of the shared selection (`studio/selection.py`): the same object, with Qt signals.

Views connect to `operationChanged` / `messageChanged` as Qt widgets do; the state and the rules (a
change announced only when something changed) are the plain model's, so the window's selection can be
the studio's own (`Studio.selection`) and Qt-free code reads and sets it too.
"""

from PySide6.QtCore import QObject, Signal

from ..studio.selection import Selection as SelectionModel
from ..studio.selection import SelectionChanged
from ..trace import TraceMessage
from .builders import subscribe_while_alive


class Selection(QObject):
    operationChanged = Signal(str)  # operation id, "" for none
    messageChanged = Signal(int)  # message seq, -1 for none

    def __init__(self, parent: QObject | None = None, model: SelectionModel | None = None) -> None:
        super().__init__(parent)
        self.model = model if model is not None else SelectionModel()
        subscribe_while_alive(self, self.model, self._changed)

    def _changed(self, change: SelectionChanged) -> None:
        if change.what == "operation":
            self.operationChanged.emit(change.operation_id)
        else:
            self.messageChanged.emit(change.message_seq)

    @property
    def operation_id(self) -> str:
        return self.model.operation_id

    @property
    def message_seq(self) -> int:
        return self.model.message_seq

    def select_operation(self, operation_id: str) -> None:
        self.model.select_operation(operation_id)

    def select_message(self, seq: int, operation_id: str | None = None) -> None:
        self.model.select_message(seq, operation_id)

    def select(self, entry: TraceMessage) -> None:
        self.model.select(entry)

    def clear(self) -> None:
        self.model.clear()
