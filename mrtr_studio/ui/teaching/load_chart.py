"""A small bar chart of a load report's latencies, drawn with QPainter (QtCharts is not part of the
PySide6 the studio needs): per round and for the whole flow, three bars, p50, p90 and p99, in
milliseconds, each with its value written above it so the figure reads without the axis.

The bars are kept as data (`bars`), the same numbers the report holds, so what is drawn can be
checked against the report.
"""

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

from .. import theme

PERCENTILES = ("p50", "p90", "p99")
#: One colour per percentile, light then dark palette; the legend names them too.
COLOURS = {"p50": ("#4e79a7", "#7aa6d6"), "p90": ("#f28e2b", "#f5a95c"), "p99": ("#e15759", "#ef8a8c")}


@dataclass(frozen=True)
class Bar:
    group: str  # "round 1", "round 2", "flow"
    percentile: str
    value: float


def bars_of(document: dict[str, Any]) -> list[Bar]:
    """The bars of a report's JSON (`LoadReport.to_json()` or one node's tally): rounds first, then the flow."""
    groups = [(f"round {number}", stats) for number, stats in document.get("rounds", {}).items()]
    groups.append(("flow", document.get("flow", {})))
    return [Bar(name, p, float(stats[p])) for name, stats in groups if stats.get("count")
            for p in PERCENTILES]


class LatencyChart(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("loadChart")
        self.setAccessibleName("Latency per round and per flow, p50 p90 p99 in milliseconds")
        self.bars: list[Bar] = []
        self.title = ""
        self.setMinimumHeight(160)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:
        return QSize(520, 220)

    def show_report(self, document: dict[str, Any], title: str = "") -> None:
        self.bars = bars_of(document)
        self.title = title
        self.update()

    def clear(self) -> None:
        self.bars, self.title = [], ""
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text = self.palette().color(QPalette.ColorRole.WindowText)
        painter.setPen(text)
        metrics = painter.fontMetrics()
        line = metrics.height()
        area = QRectF(self.rect()).adjusted(8, 4, -8, -4)
        if not self.bars:
            painter.drawText(area, Qt.AlignmentFlag.AlignCenter, "No figures yet: run the load.")
            painter.end()
            return
        dark = theme.is_dark()
        legend_x = area.left()
        for percentile in PERCENTILES:
            painter.fillRect(QRectF(legend_x, area.top() + 3, 10, 10), QColor(COLOURS[percentile][dark]))
            painter.drawText(QRectF(legend_x + 14, area.top(), 60, line), Qt.AlignmentFlag.AlignLeft, percentile)
            legend_x += 14 + metrics.horizontalAdvance(percentile) + 12
        painter.drawText(QRectF(legend_x, area.top(), area.right() - legend_x, line),
                         Qt.AlignmentFlag.AlignLeft, self.title or "latency, ms")
        plot = area.adjusted(0, line + 4 + line, 0, -line - 4)  # room for the values above, the groups below
        top = max(bar.value for bar in self.bars) or 1.0
        groups = list(dict.fromkeys(bar.group for bar in self.bars))
        slot = plot.width() / len(groups)
        width = min(48.0, slot * 0.8 / len(PERCENTILES))
        painter.drawLine(plot.bottomLeft(), plot.bottomRight())
        for index, group in enumerate(groups):
            left = plot.left() + index * slot + (slot - width * len(PERCENTILES)) / 2
            for bar in (b for b in self.bars if b.group == group):
                height = plot.height() * bar.value / top
                rect = QRectF(left, plot.bottom() - height, width - 2, height)
                painter.fillRect(rect, QColor(COLOURS[bar.percentile][dark]))
                painter.drawText(QRectF(left - 12, rect.top() - line, width + 24, line),
                                 Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom, f"{bar.value:.1f}")
                left += width
            painter.drawText(QRectF(plot.left() + index * slot, plot.bottom() + 2, slot, line),
                             Qt.AlignmentFlag.AlignHCenter, group)
        painter.end()
