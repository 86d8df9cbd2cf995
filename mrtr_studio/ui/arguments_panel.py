"""The window's arguments panel: an ArgumentsForm for whichever target the server explorer picked.

The editor itself (a form generated from the input schema, JSON when asked or when the schema has
no form) lives in ui/forms; this panel follows the server explorer's selection and applies the
debugger's rule: arguments that are not a JSON object block the run, arguments that merely break
the schema only warn, because sending them is sometimes the point.

The verdict on the arguments is a fixed two-line line above the form's scroll box, not under the
form: below the fields it sat under the fold at 1366x768, and a line that appeared or grew above
them would move the field being typed in.
"""

from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from ..client.forms.validation import validate_content
from .forms.arguments_form import ArgumentsForm
from .lines_label import LinesLabel
from .server_explorer import Target
from .tones import ERROR, MUTED, WARNING, color_style

NO_TARGET = "Pick a tool, prompt or resource in the server explorer."


class SteadyScrollArea(QScrollArea):
    """A scroll area whose size hints are the same whatever it holds (STEADY_LINES lines tall)."""

    STEADY_LINES = 9

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        return QSize(24 * metrics.averageCharWidth(), self.STEADY_LINES * metrics.lineSpacing())

    def minimumSizeHint(self) -> QSize:
        return QSize(self.fontMetrics().averageCharWidth() * 12, 4 * self.fontMetrics().lineSpacing())


class ArgumentsPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.target: Target | None = None
        self.editor = ArgumentsForm({"type": "object"}, self)
        self.title = QLabel(NO_TARGET)
        self.title.setWordWrap(True)
        self.message = LinesLabel(2)
        self.message.setObjectName("argumentsMessage")
        self.message.setAccessibleName("Arguments check")
        self.message.setContentsMargins(4, 2, 4, 0)
        self._problem = ""
        body = QWidget()
        self.box = QVBoxLayout(body)
        self.box.setContentsMargins(4, 4, 4, 4)
        self.box.addWidget(self.title)
        self.box.addWidget(self.editor, 1)
        # The form scrolls inside a box of its own, whose size never depends on the target: a tool
        # with many fields would otherwise shrink (or grow) the target list above between two clicks.
        self.body = SteadyScrollArea()
        self.body.setObjectName("argumentsBody")
        self.body.setWidget(body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addWidget(self.message)
        outer.addWidget(self.body)
        self._wire()

    # --- the target ------------------------------------------------------------------------------

    @property
    def schema(self) -> dict[str, Any]:
        return self.target.schema if self.target is not None else {"type": "object"}

    def set_target(self, target: Target | None, arguments: dict[str, Any] | None = None) -> None:
        self.target = target
        self.title.setText(NO_TARGET if target is None else f"<b>{target.method}</b> {target.name}"
                           + (f"<br>{target.description}" if target.description else ""))
        replacement = ArgumentsForm(self.schema, self)
        self.box.replaceWidget(self.editor, replacement)
        replacement.show()  # now, not on a later turn of a busy loop (the form's fields came ~1 s late)
        self.editor.deleteLater()
        self.editor = replacement
        self._wire()
        if arguments is not None:
            self.set_arguments(arguments)
        else:
            self._check()

    def _wire(self) -> None:
        self.editor.changed.connect(self._check)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "message"):  # light <-> dark: its tone
            self._check()

    # --- values ----------------------------------------------------------------------------------

    def set_arguments(self, arguments: dict[str, Any]) -> None:
        self.editor.set_arguments(arguments)
        self._check()

    def arguments(self) -> dict[str, Any] | None:
        """The arguments to send, or None (with the reason shown) when they cannot be sent."""
        try:
            return self.editor.arguments()
        except ValueError as exc:
            self._show(str(exc), "✖ ", color_style(ERROR, self))
            return None

    #: Verdicts wait while held (`hold_checks`): the launch's, so jsonschema is not imported before the
    #: window is complete.
    _held = False

    def hold_checks(self) -> None:
        """The verdict line waits until `release_checks`: at launch, the first verdict's jsonschema import
        (about 50 ms) comes after the window is complete instead of before it."""
        self._held = True

    def release_checks(self) -> None:
        """Checks run again, starting with the arguments as they are now."""
        if self._held:
            self._held = False
            self._check()

    def _check(self) -> None:
        if self._held:
            return
        try:
            value = self.editor.arguments()
        except ValueError as exc:
            self._show(str(exc), "✖ ", color_style(ERROR, self))
            return
        if self.target is None:
            self._show("", "", "")
            return
        errors = validate_content(self.schema, value)
        text = "; ".join(f"{k}: {' '.join(v)}" if k else " ".join(v) for k, v in errors.items())
        if errors:
            self._show(f"Does not match the input schema (it can still be sent): {text}", "⚠ ",
                       color_style(WARNING, self))
        else:  # said in words too, so the line's colour is never the only cue
            self._problem = ""
            self.message.setText("✔ Matches the input schema")
            self.message.setStyleSheet(color_style(MUTED, self))

    def _show(self, problem: str, mark: str, style: str) -> None:
        self._problem = problem
        self.message.setText(mark + problem if problem else "")
        self.message.setStyleSheet(style)

    def problem(self) -> str:
        """Why the arguments cannot be sent, or how they break the schema; "" when they match it."""
        return self._problem
