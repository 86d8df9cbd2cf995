"""Editors that can show nothing: a required number or date without a default starts EMPTY.

Why: a spin box always holds a number, and the form used to start a required "Age *" (minimum 18)
at 18, which was then sent unless the person changed it: an answer nobody gave. A blank spin box
reads as "no value" until the person types or steps; the validator then asks for the field, and
what the person sees stays what is sent. The first arrow step from blank shows `start` (the
schema's minimum, or 0) rather than stepping past it. A date editor shows a blank special value
(its minimum date stands for "none") until the person clicks it or types, which starts it at now.
"""

from typing import Any

from PySide6.QtCore import QDate, QDateTime, QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QValidator
from PySide6.QtWidgets import QDateEdit, QDateTimeEdit, QDoubleSpinBox, QSpinBox, QWidget


class _Blankable:
    """The whole behaviour, mixed in before QSpinBox / QDoubleSpinBox (so its overrides are the ones Qt
    calls, and `super()` reaches the Qt class, which mypy cannot see: hence the ignores); the two spin
    boxes differ only in their number type."""

    blank: bool

    def _init_blank(self, start: float) -> None:
        self.blank = False
        self._start = start
        self.lineEdit().textEdited.connect(self._typed)

    def set_blank(self, blank: bool) -> None:
        self.blank = blank
        self.lineEdit().setText("" if blank else self.textFromValue(self.value()))

    def _typed(self, text: str) -> None:
        if text.strip() and self.blank:
            self.blank = False
            self.valueChanged.emit(self.value())  # the editor hears "touched"

    def textFromValue(self, value: Any) -> str:
        return "" if self.blank else super().textFromValue(value)  # type: ignore[misc]

    def validate(self, text: str, pos: int) -> Any:
        if self.blank and not text.strip():
            return QValidator.State.Intermediate, text, pos
        return super().validate(text, pos)  # type: ignore[misc]

    def stepBy(self, steps: int) -> None:
        """The first step from blank shows `start` rather than stepping past it."""
        if self.blank:
            self.blank = False
            self.setValue(self._start)
            self.lineEdit().setText(super().textFromValue(self.value()))  # type: ignore[misc]
            self.valueChanged.emit(self.value())
            return
        super().stepBy(steps)  # type: ignore[misc]


class BlankSpinBox(_Blankable, QSpinBox):
    def __init__(self, start: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._init_blank(int(start))


class BlankDoubleSpinBox(_Blankable, QDoubleSpinBox):
    def __init__(self, start: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._init_blank(float(start))


class BlankDate(QObject):
    """Makes a QDateEdit/QDateTimeEdit able to be blank: its minimum shown as " " means no date."""

    def __init__(self, edit: QDateTimeEdit) -> None:
        super().__init__(edit)
        self.edit = edit
        edit.setSpecialValueText(" ")  # shown, as Qt does, when the value is the minimum
        edit.installEventFilter(self)

    @property
    def blank(self) -> bool:
        return self.edit.dateTime() == self.edit.minimumDateTime()

    def set_blank(self) -> None:
        self.edit.blockSignals(True)
        self.edit.setDateTime(self.edit.minimumDateTime())
        self.edit.blockSignals(False)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The person's first click or keystroke (not Tab) starts a blank field at now, visibly."""
        if watched is self.edit and self.blank:
            kind = event.type()
            typed = kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) and \
                event.key() not in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab, Qt.Key.Key_Escape)
            if kind == QEvent.Type.MouseButtonPress or typed:
                if isinstance(self.edit, QDateEdit):
                    self.edit.setDate(QDate.currentDate())
                else:
                    self.edit.setDateTime(QDateTime.currentDateTimeUtc())
        return False
