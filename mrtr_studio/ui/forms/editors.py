"""One editor per field kind, each able to say "no value" so optional fields can be left out.

Spin boxes and date editors always hold some value, so optional ones get a "Provide a value"
check box: editing the value ticks it, unticking it leaves the field out of the answer. A required
one has no such box: the value it shows is the value sent (what the person sees is what the
validator checks, never "This field is required" next to a visible date); a required number
without a default starts blank, so no number is sent that the person did not give. Number
ranges are deliberately not clamped to the schema: a server's out-of-range default stays visible
and the validator explains the limit next to the field instead of keystrokes being swallowed.
"""

import json
from typing import Any

from PySide6.QtCore import QDate, QDateTime, Qt, QTimeZone, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QDateTimeEdit,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QWidget,
)

from mrtr_studio.client.forms.schema_fields import FieldSpec
from mrtr_studio.protocol.wire_json import MAX_DEPTH, depth_of

from .blank_editors import BlankDate, BlankDoubleSpinBox, BlankSpinBox

UNSET: Any = type("Unset", (), {"__repr__": lambda self: "UNSET"})()
_PLACEHOLDERS = {"email": "name@example.com", "uri": "https://example.com/", "date": "YYYY-MM-DD",
                 "date-time": "2026-07-28T09:30:00Z"}
INT_LIMIT = 2**31 - 1
DOUBLE_LIMIT = 1e15


class FieldEditor(QWidget):
    """Base: `read()` -> (value or UNSET, parse error or None); `write(value or UNSET)`."""

    changed = Signal()

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.focus_widget: QWidget = self

    def read(self) -> tuple[Any, str | None]:
        raise NotImplementedError

    def write(self, value: Any) -> None:
        raise NotImplementedError

    def _emit(self, *_: Any) -> None:
        self.changed.emit()


class StringEditor(FieldEditor):
    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.line = QLineEdit(self)
        self.line.setPlaceholderText(_PLACEHOLDERS.get(spec.format or "", ""))
        if spec.format == "email":
            self.line.setInputMethodHints(Qt.InputMethodHint.ImhEmailCharactersOnly)
        elif spec.format == "uri":
            self.line.setInputMethodHints(Qt.InputMethodHint.ImhUrlCharactersOnly)
        self.line.textChanged.connect(self._emit)
        self.row.addWidget(self.line)
        self.focus_widget = self.line

    def read(self) -> tuple[Any, str | None]:
        text = self.line.text()
        return (text if text else UNSET), None

    def write(self, value: Any) -> None:
        self.line.setText("" if value is UNSET or value is None else str(value))


class _Optional(FieldEditor):
    """An editor with a "Provide a value" box when optional; editing the value ticks it."""

    def _add_value_widget(self, widget: QWidget) -> None:
        self.provided = QCheckBox("Provide a value", self)
        self.provided.setAccessibleName(f"Provide {self.spec.title}")
        self.provided.toggled.connect(self._emit)
        self.row.addWidget(widget, 1)
        if self.spec.required:
            self.provided.setChecked(True)
            self.provided.setVisible(False)  # not in the layout, not a Tab stop: always provided
        else:
            self.row.addWidget(self.provided)
        self.focus_widget = widget

    def is_provided(self) -> bool:
        return self.spec.required or self.provided.isChecked()

    def _set_provided(self, value: bool) -> None:
        self.provided.setChecked(value or self.spec.required)

    def _touched(self, *_: Any) -> None:
        self.provided.setChecked(True)
        self.changed.emit()


class NumberEditor(_Optional):
    """A spin box; a required one without a default starts blank (nothing sent until the person answers)."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        start = spec.minimum if spec.minimum is not None else 0
        self.spin: BlankSpinBox | BlankDoubleSpinBox
        if spec.kind == "integer":
            self.spin = BlankSpinBox(int(start), self)
            self.spin.setRange(-INT_LIMIT, INT_LIMIT)
        else:
            self.spin = BlankDoubleSpinBox(float(start), self)
            self.spin.setRange(-DOUBLE_LIMIT, DOUBLE_LIMIT)
            self.spin.setDecimals(_decimals(spec))
        self.spin.setValue(start)  # type: ignore[arg-type]
        # Sized for its range (-1e15…) the box widened the side column's form past its scroll box,
        # cutting the text beside it at the right edge; a dozen digits' room is plenty to start with.
        self.spin.setMinimumWidth(self.spin.fontMetrics().horizontalAdvance("0") * 12)
        self.spin.valueChanged.connect(self._touched)
        self._add_value_widget(self.spin)
        self.spin.set_blank(spec.required)  # a default, when there is one, is written over it

    def read(self) -> tuple[Any, str | None]:
        if not self.is_provided() or self.spin.blank:
            return UNSET, None
        value = self.spin.value()
        if isinstance(value, float) and value.is_integer():
            return int(value), None
        return value, None

    def write(self, value: Any) -> None:
        given = isinstance(value, int | float) and not isinstance(value, bool)
        if given:
            self.spin.blockSignals(True)
            self.spin.setValue(value)
            self.spin.blockSignals(False)
        self.spin.set_blank(self.spec.required and not given)
        self._set_provided(value is not UNSET and value is not None)


def _decimals(spec: FieldSpec) -> int:
    places = [len(repr(float(v)).split(".")[1].rstrip("0")) for v in (spec.minimum, spec.maximum, spec.default)
              if isinstance(v, int | float) and not isinstance(v, bool)]
    return max([2, *places])


class DateEditor(_Optional):
    """QDateEdit for `date`, QDateTimeEdit (sent in UTC with a Z) for `date-time`."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.with_time = spec.format == "date-time"
        self.edit: QDateEdit | QDateTimeEdit
        if self.with_time:
            self.edit = QDateTimeEdit(self)
            self.edit.setTimeZone(QTimeZone.utc())
            self.edit.setDisplayFormat("yyyy-MM-dd HH:mm:ss 'UTC'")
            self.edit.setDateTime(QDateTime.currentDateTimeUtc())
        else:
            self.edit = QDateEdit(self)
            self.edit.setDisplayFormat("yyyy-MM-dd")
            self.edit.setDate(QDate.currentDate())
        self.edit.setCalendarPopup(True)
        self.blank = BlankDate(self.edit) if spec.required else None  # no date the person did not give
        if self.blank is not None:
            self.blank.set_blank()
        self.edit.dateTimeChanged.connect(self._touched)
        self._add_value_widget(self.edit)

    def read(self) -> tuple[Any, str | None]:
        if not self.is_provided() or (self.blank is not None and self.blank.blank):
            return UNSET, None
        if self.with_time:
            return self.edit.dateTime().toUTC().toString("yyyy-MM-ddTHH:mm:ssZ"), None
        return self.edit.date().toString("yyyy-MM-dd"), None

    def write(self, value: Any) -> None:
        parsed = None
        if isinstance(value, str) and self.with_time:
            parsed = QDateTime.fromString(value, Qt.DateFormat.ISODate)
        elif isinstance(value, str):
            parsed = QDateTime(QDate.fromString(value, "yyyy-MM-dd").startOfDay())
        self.edit.blockSignals(True)
        if parsed is not None and parsed.isValid():
            self.edit.setDateTime(parsed.toUTC() if self.with_time else parsed)
        elif self.blank is not None:
            self.blank.set_blank()
        self.edit.blockSignals(False)
        self._set_provided(parsed is not None and parsed.isValid())


class BoolEditor(FieldEditor):
    """A check box; tri-state (partially checked = not set) when the field may be left out."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.box = QCheckBox(self)  # the row label already names it
        self.box.setTristate(not spec.required)
        if not spec.required:
            self.box.setToolTip("Partially checked: leave this field out of the answer")
        self.box.checkStateChanged.connect(self._emit)
        self.row.addWidget(self.box)
        self.focus_widget = self.box

    def read(self) -> tuple[Any, str | None]:
        state = self.box.checkState()
        if state == Qt.CheckState.PartiallyChecked:
            return UNSET, None
        return state == Qt.CheckState.Checked, None

    def write(self, value: Any) -> None:
        if value is True:
            self.box.setCheckState(Qt.CheckState.Checked)
        elif value is False or self.spec.required:
            self.box.setCheckState(Qt.CheckState.Unchecked)
        else:
            self.box.setCheckState(Qt.CheckState.PartiallyChecked)


class EnumEditor(FieldEditor):
    """A combo box of option titles; a leading "not set" entry unless a required default exists."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.combo = QComboBox(self)
        self.combo.addItem("— choose —" if spec.required else "(not set)", UNSET)
        for option in spec.options:
            self.combo.addItem(option.title, option.value)
            if option.title != str(option.value):
                self.combo.setItemData(self.combo.count() - 1, f"value: {option.value}",
                                       Qt.ItemDataRole.ToolTipRole)
        self.combo.currentIndexChanged.connect(self._emit)
        self.row.addWidget(self.combo)
        self.focus_widget = self.combo

    def read(self) -> tuple[Any, str | None]:
        index = self.combo.currentIndex()
        return (UNSET if index <= 0 else self.spec.options[index - 1].value), None

    def write(self, value: Any) -> None:
        values = [o.value for o in self.spec.options]
        self.combo.setCurrentIndex(values.index(value) + 1 if value in values else 0)


class MultiEditor(FieldEditor):
    """A list of check boxes (Space toggles); values are sent in the schema's option order."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.list = QListWidget(self)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        for option in spec.options:
            item = QListWidgetItem(option.title, self.list)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable
                          | Qt.ItemFlag.ItemIsSelectable)
            item.setCheckState(Qt.CheckState.Unchecked)
        rows = max(1, min(len(spec.options), 6))
        self.list.setFixedHeight(self.list.sizeHintForRow(0) * rows + 2 * self.list.frameWidth() + 4)
        self.list.itemChanged.connect(self._emit)
        self.row.addWidget(self.list)
        self.focus_widget = self.list

    def read(self) -> tuple[Any, str | None]:
        chosen = [o.value for i, o in enumerate(self.spec.options)
                  if self.list.item(i).checkState() == Qt.CheckState.Checked]
        return (chosen if chosen or self.spec.required else UNSET), None

    def write(self, value: Any) -> None:
        wanted = value if isinstance(value, list) else []
        for i, option in enumerate(self.spec.options):
            state = Qt.CheckState.Checked if option.value in wanted else Qt.CheckState.Unchecked
            self.list.item(i).setCheckState(state)


class RawEditor(FieldEditor):
    """JSON text for a field (or a whole form) the generator cannot render; empty = not set."""

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.text = QPlainTextEdit(self)
        self.text.setTabChangesFocus(True)
        self.text.setPlaceholderText("JSON value")
        self.text.setMaximumHeight(160)
        self.text.textChanged.connect(self._emit)
        self.row.addWidget(self.text)
        self.focus_widget = self.text

    def read(self) -> tuple[Any, str | None]:
        source = self.text.toPlainText().strip()
        if not source:
            return UNSET, None
        return parse_json_text(source)

    def write(self, value: Any) -> None:
        self.text.setPlainText("" if value is UNSET else json.dumps(value, indent=2, ensure_ascii=False))


def parse_json_text(source: str) -> tuple[Any, str | None]:
    """Typed JSON as (value, None), or (UNSET, a sentence saying what is wrong and where)."""
    try:
        value = json.loads(source)
    except json.JSONDecodeError as exc:
        return UNSET, f"Not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})."
    except RecursionError:
        value = None
    if (value is None and source.strip() != "null") or depth_of(value, MAX_DEPTH) > MAX_DEPTH:
        return UNSET, f"Nested more than {MAX_DEPTH} levels deep."
    return value, None


def make_editor(spec: FieldSpec, parent: QWidget | None = None) -> FieldEditor:
    """The fitting editor for a field spec."""
    if spec.kind == "string" and spec.format in ("date", "date-time"):
        return DateEditor(spec, parent)
    editor_type: type[FieldEditor] = {
        "string": StringEditor, "number": NumberEditor, "integer": NumberEditor, "boolean": BoolEditor,
        "enum": EnumEditor, "multi_enum": MultiEditor,
    }.get(spec.kind, RawEditor)
    return editor_type(spec, parent)
