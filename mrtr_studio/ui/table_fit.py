"""Tables sized to their rows, for tables that sit inside a scrolling panel, and bringing a part
of a widget into view through every scroll area around it.

Why: a table that scrolls inside a panel that also scrolls has two scroll bars for one column of
text, and the wheel moves whichever is under the pointer. Sized to its rows, the table never
scrolls; the panel does. The rows are measured here with the wrapping the item delegate paints
with (at word boundaries, anywhere in a long token), so a wrapped value is never cut off.
"""

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics, QTextLayout, QTextOption
from PySide6.QtWidgets import QScrollArea, QTableWidget, QWidget

#: The padding the delegate adds around a cell's text (px, both sides together).
CELL_PADDING = 10
ROW_PADDING = 8


def wrapped_height(text: str, font: QFont, width: int) -> int:
    """The height `text` takes wrapped into `width` px as a wrapping item view paints it."""
    metrics = QFontMetrics(font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    height = 0
    for paragraph in text.split("\n"):
        layout = QTextLayout(paragraph, font)
        layout.setTextOption(option)
        layout.beginLayout()
        lines = 0
        while True:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(max(width, 20))
            lines += 1
        layout.endLayout()
        height += max(lines, 1) * metrics.lineSpacing()
    return height


def fit_rows(table: QTableWidget) -> int:
    """Each row as tall as its wrapped cells (when the table wraps), the table as tall as its rows;
    returns the table's height. Its vertical scroll bar is turned off: it has nothing to scroll."""
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    base = table.verticalHeader().defaultSectionSize()
    if table.wordWrap():
        for row in range(table.rowCount()):
            needed = base
            for column in range(table.columnCount()):
                item = table.item(row, column)
                if item is None or not item.text():
                    continue
                room = table.columnWidth(column) - CELL_PADDING
                needed = max(needed, wrapped_height(item.text(), item.font(), room) + ROW_PADDING)
            table.setRowHeight(row, needed)
    height = table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth()
    height += sum(table.rowHeight(row) for row in range(table.rowCount()))
    bar = table.horizontalScrollBar()
    if bar.maximum() > bar.minimum():
        height += bar.sizeHint().height()
    if table.height() != height or table.minimumHeight() != height:
        table.setFixedHeight(height)
    return height


def scroll_into_view(widget: QWidget, rect: QRect, margin: int = 24) -> None:
    """Scroll every scroll area around `widget` so that `rect` (in `widget`'s coordinates) shows."""
    parent = widget.parentWidget()
    while parent is not None:
        area = parent.parentWidget()
        if isinstance(area, QScrollArea) and area.widget() is not None and parent is area.viewport():
            inner = area.widget()
            assert inner is not None
            corner = widget.mapTo(inner, rect.topLeft())
            centre = corner + QPoint(rect.width() // 2, rect.height() // 2)
            area.ensureVisible(centre.x(), centre.y(), max(rect.width() // 2, 0), rect.height() // 2 + margin)
        parent = parent.parentWidget()

