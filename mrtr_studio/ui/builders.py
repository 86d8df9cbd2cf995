"""Small builders the window's panels share: a named button, a wrapping plain-text label, a row of buttons,
a field with its button beside it, a named line edit, a pair of panes in a splitter, a panel's column
of parts, a panel's subscription for as long as it lives.

Each is the few lines every panel would otherwise write again, so the panels read as what they hold
(and every field gets its object and accessible names the same way).
"""

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLayout, QLineEdit, QPushButton, QSplitter, QVBoxLayout, QWidget

from .theme import status_colours

_W = TypeVar("_W", bound=QWidget)


def named(widget: _W, object_name: str, accessible: str = "") -> _W:
    """`widget` named for tests and style sheets (`object_name`) and for screen readers (`accessible`)."""
    widget.setObjectName(object_name)
    if accessible:
        widget.setAccessibleName(accessible)
    return widget


def push_button(object_name: str, text: str, clicked: Callable[[], object], *, tooltip: str = "",
                enabled: bool = True) -> QPushButton:
    """A button named for tests and style sheets, calling `clicked` (without Qt's `checked` argument)."""
    button = QPushButton(text)
    button.setObjectName(object_name)
    if tooltip:
        button.setToolTip(tooltip)
    button.setEnabled(enabled)
    button.clicked.connect(lambda _checked=False: clicked())
    return button


def text_label(object_name: str, text: str = "", *, error: bool = False) -> QLabel:
    """A wrapping label that shows its text as plain text (a peer's words are never read as rich text);
    `error` colours it as the theme colours errors."""
    label = QLabel(text)
    label.setObjectName(object_name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    if error:
        label.setStyleSheet(f"color: {status_colours()['error']}")
    return label


def button_row(*buttons: QWidget) -> QHBoxLayout:
    """`buttons` side by side from the left; the rest of the row stays empty."""
    row = QHBoxLayout()
    for button in buttons:
        row.addWidget(button)
    row.addStretch(1)
    return row


def wide_row(wide: QWidget, *beside: QWidget) -> QHBoxLayout:
    """`wide` taking the row's room, `beside` (a Choose… button, say) after it at their own width."""
    row = QHBoxLayout()
    row.addWidget(wide, 1)
    for widget in beside:
        row.addWidget(widget)
    return row


def line_edit(object_name: str, accessible: str, placeholder: str, tooltip: str = "") -> QLineEdit:
    """A line edit named for tests and style sheets (`object_name`) and for screen readers (`accessible`)."""
    edit = QLineEdit()
    edit.setObjectName(object_name)
    edit.setAccessibleName(accessible)
    edit.setPlaceholderText(placeholder)
    if tooltip:
        edit.setToolTip(tooltip)
    return edit


def splitter(object_name: str, orientation: Qt.Orientation, first: QWidget, second: QWidget, *,
             sizes: Sequence[int] = (), grow: int = 0) -> QSplitter:
    """Two panes that never collapse, pane `grow` (the first by default) taking what the splitter grows
    by; `sizes`, the panes' first sizes (their proportions until the person drags the handle)."""
    panes = QSplitter(orientation)
    panes.setObjectName(object_name)
    panes.setChildrenCollapsible(False)
    panes.addWidget(first)
    panes.addWidget(second)
    panes.setStretchFactor(grow, 1)
    if sizes:
        panes.setSizes(list(sizes))
    return panes


def column_layout(owner: QWidget, *parts: QWidget | QLayout, margins: int | None = None) -> QVBoxLayout:
    """`owner`'s layout: `parts` (widgets or rows) top to bottom, the last taking the room the others
    leave (a panel's controls over its table or panes); `margins`, the room around them (else Qt's)."""
    box = QVBoxLayout(owner)
    if margins is not None:
        box.setContentsMargins(margins, margins, margins, margins)
    for index, part in enumerate(parts):
        stretch = 1 if index == len(parts) - 1 else 0
        if isinstance(part, QLayout):
            box.addLayout(part, stretch)
        else:
            box.addWidget(part, stretch)
    return box


def subscribe_while_alive(widget: QObject, source: Any, listener: Callable[[Any], None]) -> None:
    """`listener` hears `source`'s events (the studio's, a model's) while `widget` lives: a closed window's
    panel hears no more."""
    unsubscribe = source.subscribe(listener)
    widget.destroyed.connect(lambda *_: unsubscribe())
