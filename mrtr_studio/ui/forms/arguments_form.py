"""A tool's arguments as a form: the elicitation form where the inputSchema fits, JSON always.

Tool inputSchemas are full JSON Schema, often richer than the elicitation subset; the generated
form shows what it can (the rest as raw JSON fields) and a "JSON" toggle lets the person edit the
whole arguments object as text. Switching carries the current arguments across both ways.
"""

import json
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QPlainTextEdit, QStackedWidget, QVBoxLayout, QWidget

from mrtr_studio.client.forms.validation import FORM_KEY, validate_content

from .editors import parse_json_text
from .schema_form import SchemaForm, error_line


class ArgumentsForm(QWidget):
    """`arguments()` -> dict (raises ValueError with a readable message); `validate()` -> errors."""

    changed = Signal()

    def __init__(self, input_schema: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.schema = input_schema if isinstance(input_schema, dict) else {"type": "object"}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.as_json = QCheckBox("Edit as &JSON", self)
        layout.addWidget(self.as_json)
        self.stack = QStackedWidget(self)
        self.form = SchemaForm(self.schema, self, reserved_mnemonics="j")
        self.text = QPlainTextEdit(self)
        self.text.setTabChangesFocus(True)
        self.text.setAccessibleName("Arguments (JSON object)")
        self.stack.addWidget(self.form)
        self.stack.addWidget(self.text)
        layout.addWidget(self.stack, 1)
        self.error = error_line(self)
        layout.addWidget(self.error)
        self.form.changed.connect(self.changed)
        self.text.textChanged.connect(self.changed)
        self.as_json.toggled.connect(self._switch)
        if self.form.is_raw:
            self.as_json.setChecked(True)
            self.as_json.setEnabled(False)
            self.as_json.setToolTip("This inputSchema has no form: " + "; ".join(self.form.spec.notes))

    def _parse_text(self) -> dict[str, Any]:
        value, problem = parse_json_text(self.text.toPlainText().strip() or "{}")
        if problem:
            raise ValueError(problem.rstrip("."))
        if not isinstance(value, dict):
            raise ValueError("The arguments must be a JSON object.")
        return value

    def _switch(self, to_json: bool) -> None:
        if to_json:
            self.text.setPlainText(json.dumps(self.form.content(), indent=2, ensure_ascii=False))
            self.stack.setCurrentWidget(self.text)
            return
        try:
            self.form.set_content(self._parse_text())
        except ValueError as exc:
            self.error.setText(str(exc))
            self.as_json.blockSignals(True)
            self.as_json.setChecked(True)
            self.as_json.blockSignals(False)
            return
        self.stack.setCurrentWidget(self.form)

    def arguments(self) -> dict[str, Any]:
        """The arguments as they stand (not validated against the schema)."""
        return self._parse_text() if self.as_json.isChecked() else self.form.content()

    def set_arguments(self, arguments: dict[str, Any]) -> None:
        self.form.set_content(arguments)
        self.text.setPlainText(json.dumps(arguments, indent=2, ensure_ascii=False))

    def validate(self) -> dict[str, list[str]]:
        """Errors by argument name ("" for the whole object), shown inline; empty when callable."""
        if not self.as_json.isChecked():
            errors = self.form.validate()
        else:
            try:
                errors = validate_content(self.schema, self._parse_text())
            except ValueError as exc:
                errors = {FORM_KEY: [str(exc)]}
        self.error.setText(" ".join(f"{k or 'arguments'}: {' '.join(v)}" for k, v in errors.items())
                           if self.as_json.isChecked() else "")
        return errors
