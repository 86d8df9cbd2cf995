"""A status text that always takes the same number of lines: wrapped, cut with "…" when longer.

Why: the arguments panel's validation line sat at the bottom of the form's scroll box, below the
fold at 1366x768, so the person never saw why the schema disagreed. Above the form it must not move
the fields when it appears, grows or goes: its height is fixed at LINES lines whatever it says, and
the whole text is in the tooltip when it does not fit (as ElidedLabel does for one line).
"""

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from .elided_label import TOOLTIP_CHARS

WRAP = int(Qt.TextFlag.TextWordWrap)


def fit_lines(text: str, metrics: QFontMetrics, width: int, lines: int) -> str:
    """`text` cut (at a word, ending in "…") so that, wrapped to `width`, it takes at most `lines` lines."""
    room = lines * metrics.lineSpacing()
    if width <= 0 or metrics.boundingRect(0, 0, width, 10**6, WRAP, text).height() <= room:
        return text
    low, high = 0, len(text)  # the longest prefix that fits with its ellipsis
    while low < high:
        middle = (low + high + 1) // 2
        if metrics.boundingRect(0, 0, width, 10**6, WRAP, text[:middle].rstrip() + "…").height() <= room:
            low = middle
        else:
            high = middle - 1
    cut = text[:low]
    if " " in cut.strip() and low < len(text) and not text[low].isspace():
        cut = cut[: cut.rstrip().rfind(" ")]  # at a word
    return cut.rstrip() + "…"


class LinesLabel(QLabel):
    """`text()` is the whole text; what is shown is wrapped into exactly LINES lines of room."""

    def __init__(self, lines: int = 2, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lines = lines
        self._full = ""
        self.setTextFormat(Qt.TextFormat.PlainText)  # a schema's or a peer's text is never markup
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._fix_height()

    def setText(self, text: str) -> None:  # the same call; the whole text is kept
        self._full = " ".join(str(text).split())
        self._refit()

    def text(self) -> str:
        return self._full

    def shown_text(self) -> str:
        return super().text()

    def _fix_height(self) -> None:
        margins = self.contentsMargins()
        self.setFixedHeight(self.lines * self.fontMetrics().lineSpacing() + margins.top() + margins.bottom() + 2)

    def _refit(self) -> None:
        shown = fit_lines(self._full, self.fontMetrics(), self.contentsRect().width(), self.lines)
        super().setText(shown)
        self.setToolTip(self._full[:TOOLTIP_CHARS] if shown != self._full else "")

    def sizeHint(self) -> QSize:
        return QSize(self.fontMetrics().averageCharWidth() * 30, self.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._refit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # presentation mode, a new application font
            self._fix_height()
            self._refit()
