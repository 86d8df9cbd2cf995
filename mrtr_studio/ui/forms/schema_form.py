"""A form generated from a requestedSchema or a tool inputSchema.

Each field is a row: a label (with a keyboard mnemonic, an asterisk when required, set as the
editor's buddy), the editor, the description, and an error line that validation fills in. The
editors' accessible name/description carry the same information for screen readers, including the
current error. Unsupported constructs become raw JSON editors with a visible note. Validation is
the jsonschema check of `client.forms.validation`, so what the form lets through is what a
conforming server accepts.
"""

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QLabel, QVBoxLayout, QWidget

from mrtr_studio.client.forms.schema_fields import FieldSpec, FormSpec, parse_schema
from mrtr_studio.client.forms.validation import FORM_KEY, validate_content

from ..tones import ERROR, color_style
from .editors import UNSET, FieldEditor, RawEditor, make_editor

NOTE_STYLE = "color: #8a5a00; background: #fff4d6; padding: 4px; border-radius: 3px;"  # dark on light in both


def error_style() -> str:
    """Inline error text for the palette in use when the form is built (light or dark)."""
    return color_style(ERROR)


def error_line(parent: QWidget) -> QLabel:
    """The line where a form or page says what is wrong with its input: in the error colour, wrapping
    (a long validation message stays inside the dialog), empty until there is something to say."""
    label = QLabel("", parent)
    label.setStyleSheet(error_style())
    label.setWordWrap(True)
    return label


def with_mnemonic(text: str, used: set[str]) -> str:
    """Escape `&` and mark the first letter not yet taken as the Alt+letter mnemonic."""
    escaped = text.replace("&", "&&")
    for i, char in enumerate(escaped):
        if char.isalnum() and char.isascii() and char.lower() not in used and escaped[i - 1:i] != "&":
            used.add(char.lower())
            return escaped[:i] + "&" + escaped[i:]
    return escaped


class SchemaForm(QWidget):
    """`content()` -> the answer dict, `set_content()`, `validate()` -> errors (also shown inline)."""

    changed = Signal()

    def __init__(self, schema: Any, parent: QWidget | None = None, *, reserved_mnemonics: str = "adcubr",
                 prefill_defaults: bool = True) -> None:
        super().__init__(parent)
        self.spec: FormSpec = parse_schema(schema)
        self.schema = schema if isinstance(schema, dict) else {}
        self.editors: dict[str, FieldEditor] = {}
        self.error_labels: dict[str, QLabel] = {}
        self.labels: dict[str, QLabel] = {}
        self._live = False
        outer = QVBoxLayout(self)
        self.form_error = self._error_label(FORM_KEY)
        outer.addWidget(self.form_error)
        self.note = QLabel(self)
        self.note.setObjectName("rawNote")
        self.note.setWordWrap(True)
        self.note.setStyleSheet(NOTE_STYLE)
        self.note.setVisible(bool(self.spec.notes))
        if self.spec.notes:
            prefix = "Shown as raw JSON: " if self.spec.raw else "Some fields are shown as raw JSON. "
            self.note.setText(prefix + "; ".join(self.spec.notes))
        outer.addWidget(self.note)
        layout = QFormLayout()
        layout.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        outer.addLayout(layout)
        outer.addStretch(1)
        used = set(reserved_mnemonics.lower())
        if self.spec.raw:
            whole = FieldSpec(FORM_KEY, "raw", "Answer (JSON object)", self.schema, required=True)
            self._add_row(layout, whole, used)
        for field in self.spec.fields:
            self._add_row(layout, field, used)
        if prefill_defaults:
            self.set_content({f.key: f.default for f in self.spec.fields if f.has_default})

    # --- building -------------------------------------------------------------------------

    def _error_label(self, key: str, reserve: bool = False) -> QLabel:
        """The line under a field that validation fills in; `reserve` keeps its line even when empty,
        so an error appearing never pushes the fields (or buttons) below it from under the mouse."""
        label = error_line(self)
        label.setObjectName(f"error:{key}")
        if reserve:
            label.setMinimumHeight(label.fontMetrics().lineSpacing())
        else:
            label.setVisible(False)
        self.error_labels[key] = label
        return label

    def _add_row(self, layout: QFormLayout, field: FieldSpec, used: set[str]) -> None:
        editor = make_editor(field, self)
        editor.changed.connect(self._on_changed)
        self.editors[field.key] = editor
        box = QWidget(self)
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(editor)
        if field.description:
            help_text = QLabel(field.description, box)
            help_text.setWordWrap(True)
            help_text.setStyleSheet("color: palette(mid);")
            column.addWidget(help_text)
        if field.kind == "raw" and field.key != FORM_KEY:
            note = QLabel("Raw JSON: " + "; ".join(field.notes), box)
            note.setObjectName(f"note:{field.key}")
            note.setWordWrap(True)
            note.setStyleSheet(NOTE_STYLE)
            column.addWidget(note)
        error = self._error_label(field.key, reserve=True) if field.key != FORM_KEY else self.form_error
        column.addWidget(error)
        title = field.title + (" *" if field.required else "")
        label = QLabel(with_mnemonic(title, used), self)
        label.setBuddy(editor.focus_widget)
        if field.required:
            label.setToolTip("Required")
        self.labels[field.key] = label
        layout.addRow(label, box)
        self._describe(field.key)

    def _describe(self, key: str) -> None:
        """Accessible name/description: title, required, description, limits and the current error."""
        editor = self.editors[key]
        field = editor.spec
        editor.focus_widget.setAccessibleName(field.title + (" (required)" if field.required else ""))
        parts = [field.description, field.constraint_hint()]
        if self.error_text(key):
            parts.append("Error: " + self.error_text(key))
        description = ". ".join(p for p in parts if p)
        editor.focus_widget.setAccessibleDescription(description)
        editor.focus_widget.setToolTip(description)

    def _on_changed(self) -> None:
        if self._live:
            self.validate()
        self.changed.emit()

    # --- the answer -----------------------------------------------------------------------

    def read(self) -> tuple[dict[str, Any], dict[str, list[str]]]:
        """The content as far as it parses, and the fields whose text does not parse."""
        content: dict[str, Any] = {}
        bad: dict[str, list[str]] = {}
        for key, editor in self.editors.items():
            value, problem = editor.read()
            if problem:
                bad[key] = [problem]
            elif key == FORM_KEY:
                if value is not UNSET and not isinstance(value, dict):
                    bad[key] = ["The answer must be a JSON object."]
                elif value is not UNSET:
                    content.update(value)
            elif value is not UNSET:
                content[key] = value
        return content, bad

    def content(self) -> dict[str, Any]:
        return self.read()[0]

    def set_content(self, content: dict[str, Any]) -> None:
        """Show `content` in the editors; keys absent from it are left unset."""
        if FORM_KEY in self.editors:
            self.editors[FORM_KEY].write(content)
            return
        for key, editor in self.editors.items():
            editor.write(content.get(key, UNSET))

    def validate(self) -> dict[str, list[str]]:
        """Check the current answer, show every error next to its field, and return them."""
        self._live = True
        content, bad = self.read()
        errors = {k: v for k, v in validate_content(self.schema, content).items() if k not in bad}
        errors.update(bad)
        self.show_errors(errors)
        return errors

    def show_errors(self, errors: dict[str, list[str]]) -> None:
        for key, label in self.error_labels.items():
            messages = errors.get(key, [])
            label.setText(("\u2716 " if messages else "") + " ".join(messages))  # a symbol, not colour alone
            if key == FORM_KEY:
                label.setVisible(bool(messages))
        stray = [f"{k}: {' '.join(v)}" for k, v in errors.items() if k not in self.error_labels]
        if stray:
            self.form_error.setText(" ".join([self.form_error.text() or "\u2716", *stray]).strip())
            self.form_error.setVisible(True)
        for key in self.editors:
            self._describe(key)

    def first_error_widget(self, errors: dict[str, list[str]]) -> QWidget | None:
        for key, editor in self.editors.items():
            if key in errors:
                return editor.focus_widget
        return None

    # --- for callers and tests ------------------------------------------------------------

    def editor(self, key: str) -> FieldEditor:
        return self.editors[key]

    def error_text(self, key: str) -> str:
        label = self.error_labels.get(key)
        text = label.text() if label is not None and label.isVisibleTo(self) else ""
        return text.removeprefix("\u2716 ")

    @property
    def is_raw(self) -> bool:
        return self.spec.raw

    def raw_editor(self, key: str = FORM_KEY) -> RawEditor:
        editor = self.editors[key]
        assert isinstance(editor, RawEditor)
        return editor
