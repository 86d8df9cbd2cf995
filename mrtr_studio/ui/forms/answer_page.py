"""What every page answering one input request shares: the last answer, and the signals that carry it."""

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from ...client.forms import cancel, decline


class AnswerPage(QWidget):
    """`answered(result)` when the person answers; `skipped()` when they leave the input out of the retry."""

    answered = Signal(dict)
    skipped = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: dict[str, Any] | None = None

    def _answer(self, result: dict[str, Any]) -> dict[str, Any]:
        self.result = result
        self.answered.emit(result)
        return result

    def skip(self) -> None:
        self.result = None
        self.skipped.emit()


class ElicitAnswerPage(AnswerPage):
    """Elicitations are declined or cancelled the same way whatever their mode."""

    def decline(self) -> dict[str, Any]:
        return self._answer(decline())

    def cancel(self) -> dict[str, Any]:
        return self._answer(cancel())
