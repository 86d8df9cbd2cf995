"""The waterfall's extra items (trace/waterfall.py computes them): a time axis on the left, and beside
each lane a bar per span of time, coloured and labelled by kind (user answering, network, server,
network + server), so the kind is in text too and never colour alone. `place` moves them to a new
lane geometry without recreating them."""

from PySide6.QtCore import QRectF
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QGraphicsScene, QGraphicsSimpleTextItem

from ...trace.diagram_layout import LaneGeometry
from ...trace.waterfall import SPAN_COLOURS, SPAN_LABELS, Span, Waterfall
from .items import ACTIVATION_W, SUB_FONT
from .palette import DiagramColours

BAR_W = 7.0
AXIS_X = 4.0


class WaterfallItems:
    def __init__(self, scene: QGraphicsScene, waterfall: Waterfall, geometry: LaneGeometry,
                 colours: DiagramColours) -> None:
        self.waterfall = waterfall
        self.bars: list[tuple[Span, QGraphicsRectItem, QGraphicsSimpleTextItem | None]] = []
        self.items: list[QGraphicsItem] = []
        for span in waterfall.spans:
            colour = QColor(SPAN_COLOURS[span.kind])
            bar = scene.addRect(QRectF(), QPen(colour.darker(130)), QBrush(colour))
            bar.setToolTip(f"{span.label} (round {span.round})")
            bar.setZValue(0.4)
            label = None
            if span.y1 - span.y0 >= 14:
                label = scene.addSimpleText(span.label, SUB_FONT)
                label.setBrush(colours.muted)
                label.setZValue(0.4)
            self.bars.append((span, bar, label))
        pen = QPen(colours.separator)
        for tick in waterfall.ticks:
            line = scene.addLine(0, tick.y, AXIS_X + 6, tick.y, pen)
            text = scene.addSimpleText(tick.label, SUB_FONT)
            text.setBrush(colours.muted)
            text.setPos(AXIS_X + 8, tick.y - 7)
            self.items += [line, text]
        legend = "   ".join(f"■ {label}" for kind, label in SPAN_LABELS.items()
                            if any(s.kind == kind for s in waterfall.spans))
        self.legend = scene.addSimpleText(f"time to scale, {waterfall.total_ms:.1f} ms in all   {legend}", SUB_FONT)
        self.legend.setBrush(colours.muted)
        self.items.append(self.legend)
        self.place(geometry, 0.0)

    def place(self, geometry: LaneGeometry, bottom: float) -> None:
        for span, bar, label in self.bars:
            x = geometry.x.get(span.lane, geometry.x.get("Server", 0.0)) + ACTIVATION_W * 1.4
            bar.setRect(QRectF(x, span.y0, BAR_W, max(span.y1 - span.y0, 1.0)))
            if label is not None:
                label.setPos(x + BAR_W + 3, (span.y0 + span.y1) / 2 - 6)
        if bottom:
            self.legend.setPos(12, bottom - 18)
