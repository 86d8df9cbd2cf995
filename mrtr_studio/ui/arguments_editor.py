"""The arguments editor: a form generated from the target's input schema, with a raw-JSON fallback.

The form is the forms engineer's SchemaForm when it can render the schema; otherwise (or when the
person ticks "Raw JSON") the arguments are typed as JSON. JSON that does not parse, or is not an
object, blocks the run; schema violations are only a warning, since a debugger may want to send them.
"""

import json
from typing import Any

from PySide6.QtWidgets import QCheckBox, QLabel, QPlainTextEdit, QStackedWidget, QVBoxLayout, QWidget

from ..client.forms.validation import validate_content
from .server_explorer import Target

try:  # the forms engineer's widget; the JSON editor alone still works without it
    from .forms.schema_form import SchemaForm
except ImportError:  # pragma: no cover
    SchemaForm = None  # type: ignore[assignment,misc]

ERROR_STYLE = "color: #b00020;"
WARNING_STYLE = "color: #8a5a00;"


class ArgumentsEditor(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.target: Target | None = None
        self.form: Any = None
        self.title = QLabel("Pick a tool, prompt or resource in the server explorer.")
        self.title.setWordWrap(True)
        self.raw_toggle = QCheckBox("Raw &JSON")
        self.raw_toggle.toggled.connect(self._toggle_raw)
        self.stack = QStackedWidget()
        self.form_holder = QWidget()
        self.form_layout = QVBoxLayout(self.form_holder)
        self.form_layout.setContentsMargins(0, 0, 0, 0)
        self.json_edit = QPlainTextEdit()
        self.json_edit.setAccessibleName("Arguments as JSON")
        self.json_edit.textChanged.connect(self._json_changed)
        self.stack.addWidget(self.form_holder)
        self.stack.addWidget(self.json_edit)
        self.message = QLabel("")
        self.message.setObjectName("argumentsMessage")
        self.message.setWordWrap(True)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.title)
        box.addWidget(self.raw_toggle)
        box.addWidget(self.stack, 1)
        box.addWidget(self.message)
        self.set_target(None)

    # --- target ----------------------------------------------------------------------------------

    @property
    def schema(self) -> dict[str, Any]:
        return self.target.schema if self.target is not None else {"type": "object"}

    def set_target(self, target: Target | None, arguments: dict[str, Any] | None = None) -> None:
        self.target = target
        if self.form is not None:
            self.form.setParent(None)
            self.form.deleteLater()
            self.form = None
        if target is None:
            self.title.setText("Pick a tool, prompt or resource in the server explorer.")
        else:
            self.title.setText(f"<b>{target.method}</b> {target.name}" +
                               (f"<br>{target.description}" if target.description else ""))
        form_ok = SchemaForm is not None and target is not None
        if form_ok:
            self.form = SchemaForm(self.schema, self.form_holder)
            if self.form.is_raw:  # the forms engineer's own fallback: use ours, one JSON box is enough
                self.form.deleteLater()
                self.form, form_ok = None, False
            else:
                self.form_layout.addWidget(self.form)
                self.form.changed.connect(self._form_changed)
        self.raw_toggle.blockSignals(True)
        self.raw_toggle.setChecked(not form_ok)
        self.raw_toggle.setEnabled(form_ok)
        self.raw_toggle.blockSignals(False)
        self.stack.setCurrentIndex(0 if form_ok else 1)
        self.set_arguments(arguments if arguments is not None else self._form_content())

    def _form_content(self) -> dict[str, Any]:
        return dict(self.form.content()) if self.form is not None else {}

    @property
    def raw_mode(self) -> bool:
        return self.stack.currentIndex() == 1

    def _toggle_raw(self, raw: bool) -> None:
        if raw:
            self.json_edit.setPlainText(json.dumps(self._form_content(), indent=2))
            self.stack.setCurrentIndex(1)
        else:
            parsed, problem = self._parse()
            if problem is None and self.form is not None:
                self.form.set_content(parsed)
            self.stack.setCurrentIndex(0)
        self._check()

    # --- values ----------------------------------------------------------------------------------

    def set_arguments(self, arguments: dict[str, Any]) -> None:
        if self.form is not None:
            self.form.set_content(arguments)
        self.json_edit.setPlainText(json.dumps(arguments, indent=2))
        self._check()

    def _parse(self) -> tuple[dict[str, Any], str | None]:
        text = self.json_edit.toPlainText().strip() or "{}"
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            return {}, f"Not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        if not isinstance(value, dict):
            return {}, "The arguments must be a JSON object."
        return value, None

    def arguments(self) -> dict[str, Any] | None:
        """The arguments to send, or None (with the reason shown) when they cannot be sent."""
        if not self.raw_mode:
            return self._form_content()
        value, problem = self._parse()
        return None if problem else value

    def _json_changed(self) -> None:
        if self.raw_mode:
            self._check()

    def _form_changed(self) -> None:
        if not self.raw_mode:
            self._check()

    def _check(self) -> None:
        if self.raw_mode:
            value, problem = self._parse()
            if problem:
                self.message.setText(problem)
                self.message.setStyleSheet(ERROR_STYLE)
                return
        else:
            value = self._form_content()
        errors = validate_content(self.schema, value) if self.target is not None else {}
        if errors:
            text = "; ".join(f"{k}: {' '.join(v)}" if k else " ".join(v) for k, v in errors.items())
            self.message.setText(f"Does not match the input schema (it can still be sent): {text}")
            self.message.setStyleSheet(WARNING_STYLE)
        else:
            self.message.setText("")
            self.message.setStyleSheet("")

    def problem(self) -> str:
        return self.message.text()
