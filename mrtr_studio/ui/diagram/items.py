"""Graphics items that paint what trace.diagram_layout computed; no layout decisions here."""

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ...trace.diagram_layout import LANE_X, Arrow

_LINES = {
    "solid": Qt.PenStyle.SolidLine,
    "dash": Qt.PenStyle.DashLine,
    "dot": Qt.PenStyle.DotLine,
    "dashdot": Qt.PenStyle.DashDotLine,
}
LABEL_FONT = QFont("Sans Serif", 9)
SUB_FONT = QFont("Sans Serif", 8)
ACTIVATION_W = 10.0


def lane_edge(lane: str, toward: str, depth: int) -> float:
    """Where an arrow starts or ends on a lane: at the edge of its activation bar."""
    x = LANE_X[lane] + depth * ACTIVATION_W * 0.6
    return x + ACTIVATION_W / 2 if LANE_X[toward] > LANE_X[lane] else x - ACTIVATION_W / 2


class ArrowItem(QGraphicsItem):
    """One message (or interaction) arrow with its label above and summary below."""

    def __init__(self, arrow: Arrow) -> None:
        super().__init__()
        self.arrow = arrow
        self.highlighted = False
        self.setAcceptedMouseButtons(Qt.MouseButton.LeftButton)
        self.setCursor(Qt.CursorShape.PointingHandCursor if arrow.seq is not None else Qt.CursorShape.ArrowCursor)
        self.setToolTip(arrow.sublabel or arrow.label)
        self._geometry()

    def _geometry(self) -> None:
        a = self.arrow
        self.x1 = lane_edge(a.src, a.dst, a.depth)
        self.x2 = lane_edge(a.dst, a.src, a.depth)
        left, right = min(self.x1, self.x2), max(self.x1, self.x2)
        label_w = QFontMetricsF(LABEL_FONT).horizontalAdvance(a.label) + 8
        sub_w = QFontMetricsF(SUB_FONT).horizontalAdvance(a.sublabel[:70]) + 8 if a.sublabel else 0
        mid = (left + right) / 2
        half = max(label_w, sub_w, right - left) / 2
        self._rect = QRectF(mid - half, a.y - 19, 2 * half, 36)

    def relabel(self, label: str) -> None:
        self.prepareGeometryChange()
        self.arrow.label = label
        self._geometry()
        self.update()

    def set_highlighted(self, on: bool) -> None:
        if on != self.highlighted:
            self.highlighted = on
            self.update()

    def line_midpoint(self) -> QPointF:
        return QPointF((self.x1 + self.x2) / 2, self.arrow.y)

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self._rect)
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        a, style = self.arrow, self.arrow.style
        if self.highlighted:
            painter.fillRect(self._rect, QColor("#fff3b0"))
        colour = QColor(style.colour)
        pen = QPen(colour, style.width * (1.6 if self.highlighted else 1.0), _LINES[style.line])
        painter.setPen(pen)
        painter.drawLine(QPointF(self.x1, a.y), QPointF(self.x2, a.y))
        direction = 1.0 if self.x2 > self.x1 else -1.0
        head = QPolygonF([QPointF(self.x2, a.y), QPointF(self.x2 - 9 * direction, a.y - 4.5),
                          QPointF(self.x2 - 9 * direction, a.y + 4.5)])
        painter.setPen(QPen(colour, 1))
        hollow = a.kind in ("input_required", "client_response")  # open heads: a second non-colour cue
        painter.setBrush(Qt.BrushStyle.NoBrush if hollow else QBrush(colour))
        painter.drawPolygon(head)
        label_font = QFont(LABEL_FONT)
        label_font.setBold(a.kind == "error")
        painter.setFont(label_font)
        painter.setPen(colour if a.kind != "request" else QColor("#222222"))
        painter.drawText(QRectF(self._rect.left(), a.y - 19, self._rect.width(), 16),
                         Qt.AlignmentFlag.AlignCenter, a.label)
        if a.sublabel:
            painter.setFont(SUB_FONT)
            painter.setPen(QColor("#666666"))
            painter.drawText(QRectF(self._rect.left(), a.y + 2, self._rect.width(), 14),
                             Qt.AlignmentFlag.AlignCenter, a.sublabel[:70])

