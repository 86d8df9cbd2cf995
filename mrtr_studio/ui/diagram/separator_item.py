"""A round's separator: a dashed line across the diagram, broken where its label ("Round 2") sits.

Why an item of its own: the label used to be a QGraphicsSimpleTextItem in the application's font,
so in presentation mode (which enlarges the application's font, while the view's zoom enlarges the
drawing) it came out larger than every other label, and the line ran through its words. Here the
label is in the arrows' label font, so everything in the scene scales together with the zoom, and
the line is drawn as two segments that stop GAP short of the label's ink on either side.
"""

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QStyleOptionGraphicsItem, QWidget

from ...trace.diagram_layout import Separator
from .items import LABEL_FONT, DiagramItem
from .palette import DiagramColours

MARGIN = 10.0  # the line starts and ends this far from the diagram's edges
LEAD = 14.0  # the stretch of line before the label, so the label reads as the line's title
GAP = 6.0  # clear room between the line and the label's text, left and right


class SeparatorItem(DiagramItem):
    """One separator at `separator.y`, as wide as the diagram (`set_width` when the lanes spread)."""

    def __init__(self, separator: Separator, width: float, colours: DiagramColours) -> None:
        super().__init__(colours, z=-1)  # under the arrows and their labels
        self.separator = separator
        self.width = width
        self.font = QFont(LABEL_FONT)
        self.setToolTip(separator.label)

    @property
    def label(self) -> str:
        return self.separator.label

    def set_width(self, width: float) -> None:
        self.prepareGeometryChange()
        self.width = width

    def label_rect(self) -> QRectF:
        """Where the label is drawn (scene coordinates): its baseline box, centred on the line."""
        metrics = QFontMetricsF(self.font)
        y = self.separator.y
        return QRectF(MARGIN + LEAD + GAP, y - metrics.height() / 2, metrics.horizontalAdvance(self.label),
                      metrics.height())

    def ink_rect(self) -> QRectF:
        """The label's ink (tight glyph box), where painting puts it."""
        metrics = QFontMetricsF(self.font)
        box = self.label_rect()
        return metrics.tightBoundingRect(self.label).translated(box.left(), box.top() + metrics.ascent())

    def segments(self) -> list[QLineF]:
        """The line's pieces: left of the label and right of it, each GAP away from it."""
        y = self.separator.y
        box = self.label_rect()
        left = QLineF(MARGIN, y, max(MARGIN, box.left() - GAP), y)
        right = QLineF(box.right() + GAP, y, self.width - MARGIN, y)
        return [line for line in (left, right) if line.x2() > line.x1()]

    def boundingRect(self) -> QRectF:
        y = self.separator.y
        line = QRectF(MARGIN, y - 1, max(0.0, self.width - 2 * MARGIN), 2)
        return line.united(self.label_rect()).adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setPen(QPen(self.colours.separator, 1, Qt.PenStyle.DashLine))
        for line in self.segments():
            painter.drawLine(line)
        painter.setFont(self.font)
        painter.setPen(self.colours.muted)
        box = self.label_rect()
        painter.drawText(QPointF(box.left(), box.top() + QFontMetricsF(self.font).ascent()), self.label)
