"""One form-mode elicitation: who asks, the message, the generated form, Accept / Decline / Cancel.

Accept is blocked (not greyed out) until the answer validates: pressing it shows every problem
next to its field and moves focus to the first one, which tells a keyboard or screen-reader user
what to fix, where a disabled button would only say "no". Ctrl+Enter accepts, Escape cancels.
"""

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from mrtr_studio.client.forms.elicit import accept

from .answer_page import ElicitAnswerPage
from .schema_form import SchemaForm


def header_label(server_name: str, message: str, parent: QWidget) -> QLabel:
    """"<server> asks:" plus the message, escaped: a server's text is never trusted as markup."""
    who = html.escape(server_name or "The server")
    label = QLabel(f"<b>{who}</b> asks:<br>{html.escape(message).replace(chr(10), '<br>')}", parent)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setAccessibleName(f"{server_name or 'The server'} asks: {message}")
    return label


def action_buttons(parent: QWidget, *names: str) -> tuple[QHBoxLayout, list[QPushButton]]:
    row = QHBoxLayout()
    row.addStretch(1)
    buttons = []
    for name in names:
        button = QPushButton(name, parent)
        button.setAutoDefault(True)
        row.addWidget(button)
        buttons.append(button)
    return row, buttons


class ElicitationPage(ElicitAnswerPage):
    """Emits `answered(ElicitResult dict)`; `result` keeps the last answer."""

    def __init__(self, params: dict[str, Any], server_name: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.params = params
        layout = QVBoxLayout(self)
        layout.addWidget(header_label(server_name, str(params.get("message", "")), self))
        self.form = SchemaForm(params.get("requestedSchema", {}), self)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes from the last field to the buttons
        scroll.setWidget(self.form)
        layout.addWidget(scroll, 1)
        row, (self.accept_button, self.decline_button, self.cancel_button) = action_buttons(
            self, "&Accept", "&Decline", "&Cancel")
        self.accept_button.setDefault(True)
        self.accept_button.setToolTip("Send the answer (Ctrl+Enter)")
        self.decline_button.setToolTip("Refuse explicitly")
        self.cancel_button.setToolTip("Dismiss without choosing (Esc)")
        layout.addLayout(row)
        self.accept_button.clicked.connect(self.accept)
        self.decline_button.clicked.connect(self.decline)
        self.cancel_button.clicked.connect(self.cancel)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self, self.accept, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence("Escape"), self, self.cancel, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)

    def first_field(self) -> QWidget | None:
        editors = list(self.form.editors.values())
        return editors[0].focus_widget if editors else None

    def accept(self) -> dict[str, Any] | None:
        """Validate, then answer; on errors show them, focus the first and return None."""
        errors = self.form.validate()
        if errors:
            target = self.form.first_error_widget(errors)
            if target is not None:
                target.setFocus(Qt.FocusReason.OtherFocusReason)
            return None
        return self._answer(accept(self.form.content()))
