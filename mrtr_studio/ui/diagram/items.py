"""Graphics items that paint what trace.diagram_layout computed; no layout decisions here.

Positions come from a `LaneGeometry` (lanes spread over the view's width); `relayout` moves an item
to a new geometry without recreating it. Text is fitted to the room an arrow's row offers: the label
is elided to one line, the summary wrapped to two; the whole text is always in the tooltip (and the
message itself in the JSON inspector).
"""

from functools import cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ...trace.diagram_layout import HEADER, Arrow, LaneGeometry
from .palette import DiagramColours

_LINES = {
    "solid": Qt.PenStyle.SolidLine,
    "dash": Qt.PenStyle.DashLine,
    "dot": Qt.PenStyle.DotLine,
    "dashdot": Qt.PenStyle.DashDotLine,
}
LABEL_FONT = QFont("Sans Serif", 9)
SUB_FONT = QFont("Sans Serif", 8)
ACTIVATION_W = 10.0
PAD = 6.0  # room left and right of a text, so a rendering a pixel wider than measured is never cut
SUB_LINES = 2


@cache
def _metrics(bold: bool = False, sub: bool = False) -> QFontMetricsF:
    """Metrics of the label (bold for errors) or summary font, made once (a QApplication must exist)."""
    font = QFont(SUB_FONT if sub else LABEL_FONT)
    font.setBold(bold)
    return QFontMetricsF(font)


def lane_edge(geometry: LaneGeometry, lane: str, toward: str, depth: int) -> float:
    """Where an arrow starts or ends on a lane: at the edge of its activation bar."""
    x = geometry.x[lane] + depth * ACTIVATION_W * 0.6
    return x + ACTIVATION_W / 2 if geometry.x[toward] > geometry.x[lane] else x - ACTIVATION_W / 2


def wrap(text: str, metrics: QFontMetricsF, width: float, max_lines: int) -> list[str]:
    """Greedy word wrap into at most `max_lines` lines of `width`; what does not fit ends in "…"."""
    lines: list[str] = []
    current = ""
    words = text.split()  # a peer's newlines and tabs are spaces here: one line is one line
    for index, word in enumerate(words):
        candidate = f"{current} {word}" if current else word
        if metrics.horizontalAdvance(candidate) <= width or not current:
            current = candidate
            continue
        lines.append(current)
        current = word
        if len(lines) >= max_lines - 1:
            current = " ".join(words[index:])
            break
    if current:
        lines.append(current)
    if len(lines) > max_lines:  # the rest joins the last line, whose elision then shows the cut
        lines = [*lines[: max_lines - 1], " ".join(lines[max_lines - 1 :])]
    return [metrics.elidedText(line, Qt.TextElideMode.ElideRight, width) for line in lines]


class DiagramItem(QGraphicsItem):
    """What every item of the diagram starts from: the view's colours (one DiagramColours that the view
    updates in place when the palette changes, so items repaint in the new theme without being made
    again), the item's place in the stack, and whether it takes clicks (only arrows: a click anywhere
    else reaches the view)."""

    def __init__(self, colours: DiagramColours, *, z: float = 0.0, clickable: bool = False) -> None:
        super().__init__()
        self.colours = colours
        self.setZValue(z)
        self.setAcceptedMouseButtons(Qt.MouseButton.LeftButton if clickable else Qt.MouseButton.NoButton)


class ArrowItem(DiagramItem):
    """One message (or interaction) arrow with its label above and summary below."""

    def __init__(self, arrow: Arrow, geometry: LaneGeometry, colours: DiagramColours) -> None:
        super().__init__(colours, clickable=True)
        self.arrow = arrow
        self.highlighted = False
        #: A colouring rule's tint behind the label (ui/colour_links.py), None: the diagram's background.
        self.tint: QColor | None = None
        self.label_text = arrow.label
        self.sub_lines: list[str] = []
        self._measured: tuple[str, str] | None = None
        self._label_w = self._sub_w = 0.0
        self.setCursor(Qt.CursorShape.PointingHandCursor if arrow.seq is not None else Qt.CursorShape.ArrowCursor)
        self.relayout(geometry)

    # --- geometry ----------------------------------------------------------------------------

    def relayout(self, geometry: LaneGeometry) -> None:
        """Move to a new lane geometry: endpoints, the text's room, and the fitted text.

        The full texts' widths are measured once; eliding and wrapping run only for what does not fit,
        so spreading the lanes of a long diagram moves items without re-measuring most of them.
        """
        self.prepareGeometryChange()
        self.geometry = geometry
        a = self.arrow
        self.x1 = lane_edge(geometry, a.src, a.dst, a.depth)
        self.x2 = lane_edge(geometry, a.dst, a.src, a.depth)
        self.slot = geometry.slot(a.src, a.dst)
        room = self.slot[1] - self.slot[0] - 2 * PAD
        if self._measured != (a.label, a.sublabel):
            self._measured = (a.label, a.sublabel)
            self._label_w = _metrics(a.kind == "error").horizontalAdvance(a.label)
            self._sub_w = _metrics(sub=True).horizontalAdvance(a.sublabel) if a.sublabel else 0.0
            self.setToolTip("\n".join(t for t in (a.label, a.sublabel) if t))
        label_w, sub_w = self._label_w, self._sub_w
        if label_w <= room:
            self.label_text = a.label
        else:
            self.label_text = _metrics(a.kind == "error").elidedText(a.label, Qt.TextElideMode.ElideRight, room)
            label_w = _metrics(a.kind == "error").horizontalAdvance(self.label_text)
        if not a.sublabel:
            self.sub_lines = []
        elif sub_w <= room:
            self.sub_lines = [a.sublabel]
        else:
            self.sub_lines = wrap(a.sublabel, _metrics(sub=True), room, SUB_LINES)
            sub_w = max(_metrics(sub=True).horizontalAdvance(line) for line in self.sub_lines)
        text_w = min(max(label_w, sub_w) + 2 * PAD, self.slot[1] - self.slot[0])
        mid = (self.x1 + self.x2) / 2
        left = min(max(mid - text_w / 2, self.slot[0]), self.slot[1] - text_w)
        line_h = _metrics(sub=True).height()
        self._text_rect = QRectF(left, a.y - 19, text_w, 21 + max(len(self.sub_lines), 1) * line_h)
        span = QRectF(min(self.x1, self.x2), a.y - 5, abs(self.x2 - self.x1), 10)
        self._rect = self._text_rect.united(span)

    def relabel(self, label: str) -> None:
        self.arrow.label = label
        self.relayout(self.geometry)
        self.update()

    @property
    def clipped(self) -> bool:
        """Some of the text did not fit its room and shows elided (the tooltip holds all of it)."""
        return self.label_text != self.arrow.label or " ".join(self.sub_lines) != self.arrow.sublabel

    def text_rect(self) -> QRectF:
        return QRectF(self._text_rect)

    def _label_font(self) -> QFont:
        font = QFont(LABEL_FONT)
        font.setBold(self.arrow.kind == "error")
        return font

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

    # --- painting ----------------------------------------------------------------------------

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        a, style, colours = self.arrow, self.arrow.style, self.colours
        if self.highlighted:
            painter.fillRect(self._rect, colours.highlight)
        colour = colours.arrow(style)
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
        flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextDontClip | Qt.TextFlag.TextSingleLine
        rect = self._text_rect
        behind = QColor(colours.highlight if self.highlighted else self.tint or colours.background)
        behind.setAlpha(215)  # lifelines under a label fade instead of striking through the words
        label_font = self._label_font()
        painter.setFont(label_font)
        self._backdrop(painter, QFontMetricsF(label_font), self.label_text, a.y - 19, 16, behind)
        painter.setPen(colour if a.kind != "request" else colours.text)
        painter.drawText(QRectF(rect.left(), a.y - 19, rect.width(), 16), flags, self.label_text)
        if self.sub_lines:
            painter.setFont(SUB_FONT)
            metrics = QFontMetricsF(SUB_FONT)
            line_h = metrics.height()
            for index, line in enumerate(self.sub_lines):
                top = a.y + 2 + index * line_h
                self._backdrop(painter, metrics, line, top, line_h, behind)
                painter.setPen(colours.muted)
                painter.drawText(QRectF(rect.left(), top, rect.width(), line_h), flags, line)

    def _backdrop(self, painter: QPainter, metrics: QFontMetricsF, text: str, top: float, height: float,
                  colour: QColor) -> None:
        width = metrics.horizontalAdvance(text) + 4
        centre = self._text_rect.center().x()
        painter.fillRect(QRectF(centre - width / 2, top + 1, width, height - 1), colour)


class LaneHeaderItem(DiagramItem):
    """The title and the lane boxes, drawn over the rows: the view keeps it at the top while scrolling."""

    BOX_W, BOX_H, BOX_Y = 110.0, 26.0, 26.0

    def __init__(self, geometry: LaneGeometry, colours: DiagramColours) -> None:
        super().__init__(colours, z=10)
        self.geometry = geometry
        self.title = ""

    def set_geometry(self, geometry: LaneGeometry) -> None:
        self.prepareGeometryChange()
        self.geometry = geometry

    def set_title(self, title: str) -> None:
        self.title = title
        self.setToolTip(title)
        self.update()

    def box_width(self) -> float:
        return min(self.BOX_W, self.geometry.gap - 12)

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, self.geometry.width, HEADER)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        colours = self.colours
        painter.fillRect(self.boundingRect(), colours.header)
        painter.setPen(QPen(colours.separator, 1))
        painter.drawLine(QPointF(0, HEADER - 0.5), QPointF(self.geometry.width, HEADER - 0.5))
        painter.setPen(colours.text)
        painter.setFont(LABEL_FONT)
        metrics = QFontMetricsF(LABEL_FONT)
        room = self.geometry.width - 2 * 8
        painter.drawText(QRectF(8, 4, room, 18), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(self.title, Qt.TextElideMode.ElideRight, room))
        bold = QFont(LABEL_FONT)
        bold.setBold(True)
        painter.setFont(bold)
        bold_metrics = QFontMetricsF(bold)
        width = self.box_width()
        for lane, x in self.geometry.x.items():
            box = QRectF(x - width / 2, self.BOX_Y, width, self.BOX_H)
            painter.setPen(QPen(colours.border, 1))
            painter.setBrush(colours.lane_box)
            painter.drawRect(box)
            painter.setPen(colours.text)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter,
                             bold_metrics.elidedText(lane, Qt.TextElideMode.ElideRight, width - 8))
