"""The step editor: the exact message about to go out, as editable JSON.

Invalid JSON is named inline and blocks Step/Continue (`validityChanged`); `commit()` hands the
edited message to the studio just before it is released.
"""

import json
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from ..studio.controller import Studio, StudioEvent

ERROR_STYLE = "color: #b00020;"


class StepEditor(QWidget):
    validityChanged = Signal(bool)

    def __init__(self, studio: Studio, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.studio = studio
        self.header = QLabel("Nothing is held. Press F10 (Step) to run one send at a time.")
        self.header.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setAccessibleName("Message about to be sent")
        self.editor.setReadOnly(True)
        self.error = QLabel("")
        self.error.setObjectName("stepError")
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setWordWrap(True)
        self.reset_button = QPushButton("Undo edits")
        self.reset_button.clicked.connect(self.reset)
        self.reset_button.setEnabled(False)
        row = QHBoxLayout()
        row.addWidget(self.error, 1)
        row.addWidget(self.reset_button)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.header)
        box.addWidget(self.editor, 1)
        box.addLayout(row)
        self._valid = True
        self._own_edit = False
        self.editor.textChanged.connect(self._check)
        studio.subscribe(self._on_studio)

    def _on_studio(self, event: StudioEvent) -> None:
        if event.kind in ("paused", "pending_changed") and event.pending is not None and not self._own_edit:
            pending = event.pending
            kind = "first request" if pending.round == 1 else "retry"
            self.header.setText(f"<b>Round {pending.round}</b> — the {kind} about to be sent. Edit it, then "
                                "Step (F10) or Continue (F8); Stop (Shift+F5) drops it.")
            self.show_message(pending.message)
        elif event.kind in ("resumed", "run_finished"):
            self.editor.setReadOnly(True)
            self.reset_button.setEnabled(False)
            if event.kind == "run_finished":
                self.header.setText("Nothing is held. Press F10 (Step) to run one send at a time.")
                self.editor.setPlainText("")

    def show_message(self, message: Any) -> None:
        self.editor.setReadOnly(False)
        self.reset_button.setEnabled(True)
        self.editor.setPlainText(json.dumps(message, indent=2, ensure_ascii=False))

    def text(self) -> str:
        return self.editor.toPlainText()

    def set_text(self, text: str) -> None:
        self.editor.setPlainText(text)

    def parsed(self) -> tuple[dict[str, Any] | None, str]:
        try:
            value = json.loads(self.text())
        except json.JSONDecodeError as exc:
            return None, f"Invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}) — fix it to continue."
        if not isinstance(value, dict):
            return None, "The message must be a JSON object — fix it to continue."
        return value, ""

    @property
    def valid(self) -> bool:
        return self._valid

    def _check(self) -> None:
        if self.editor.isReadOnly():
            valid, problem = True, ""
        else:
            value, problem = self.parsed()
            valid = value is not None
        self.error.setText(problem)
        if valid != self._valid:
            self._valid = valid
            self.validityChanged.emit(valid)

    def commit(self) -> bool:
        """Give the edited message to the studio; False (and the reason inline) when it is not JSON."""
        if self.studio.pending is None:
            return True
        value, problem = self.parsed()
        if value is None:
            self.error.setText(problem)
            return False
        if value != self.studio.pending.message:
            self._own_edit = True
            try:
                self.studio.edit_pending(value)
            finally:
                self._own_edit = False
        return True

    def reset(self) -> None:
        if self.studio.pending is not None:
            self.show_message(self.studio.pending.original)
