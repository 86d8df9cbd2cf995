"""A status line that keeps its height: one line, elided at the right, the whole text in its tooltip.

Why: a word-wrapped status line ("Connected: … (modern) — 2 problem(s), see Problems") went from one
line to two and back, moving everything below it between two clicks, so a click meant for one tool
landed on another. An elided line never changes the column's geometry.
"""

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

#: A peer's text is shown whole in the tooltip, but never unbounded.
TOOLTIP_CHARS = 2000


class ElidedLabel(QLabel):
    """`text()` is the whole text (on one line); what fits is painted, the rest goes to the tooltip."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)  # a peer's text is never markup
        self.setWordWrap(False)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setText(text)

    def setText(self, text: str) -> None:  # the same call, on one line
        super().setText(" ".join(str(text).split()))  # a peer's newlines do not add rows
        self._update_tooltip()
        self.update()

    def shown_text(self) -> str:
        """What is painted: the text, elided to the label's width."""
        room = max(0, self.contentsRect().width() - 2 * self.margin())
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, room)

    def sizeHint(self) -> QSize:
        return QSize(self.fontMetrics().horizontalAdvance(self.text()[:80]),
                     self.fontMetrics().height() + 2 * self.margin())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._update_tooltip()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        rect = self.contentsRect().adjusted(self.margin(), self.margin(), -self.margin(), -self.margin())
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), self.shown_text())
        painter.end()

    def _update_tooltip(self) -> None:
        self.setToolTip(self.text()[:TOOLTIP_CHARS] if self.shown_text() != self.text() else "")
