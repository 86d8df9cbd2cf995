"""The sequence diagram dock: the selected operation (or the newest one) drawn lane by lane.

Live messages are appended to the layout and only their items are added to the scene; the scene
is rebuilt only when the shown operation changes, and store bursts (opening a file) are coalesced
into one rebuild on the next turn of the event loop.
"""

from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QAction, QColor, QFont, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import (
    QFileDialog,
    QGraphicsLineItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QMessageBox,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from ...trace import Operation, StoreEvent, TraceStore
from ...trace.diagram_layout import LANE_X, LANES, Activation, Arrow, Change, DiagramLayout, Separator
from ..selection import Selection
from ..store_bridge import StoreBridge
from . import export
from .items import ACTIVATION_W, ArrowItem

_WIDTH = LANE_X["Server"] + 170


class DiagramCanvas(QGraphicsView):
    """The QGraphicsView; a click on an arrow selects its message everywhere."""

    def __init__(self, owner: "SequenceDiagramView") -> None:
        super().__init__()
        self.owner = owner
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        for item in self.items(event.position().toPoint()):
            if isinstance(item, ArrowItem) and item.arrow.seq is not None:
                self.owner.arrow_clicked(item.arrow)
                event.accept()
                return
        super().mousePressEvent(event)


class SequenceDiagramView(QWidget):
    def __init__(self, store: TraceStore, selection: Selection, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.selection = selection
        self.scene = QGraphicsScene(self)
        self.canvas = DiagramCanvas(self)
        self.canvas.setScene(self.scene)
        self.layout_model: DiagramLayout | None = None
        self.operation_id = ""
        self.arrow_items: dict[int, ArrowItem] = {}  # seq -> item
        self._items: dict[int, Any] = {}  # id(layout object) -> graphics item
        self._lifelines: list[QGraphicsLineItem] = []
        self._title: QGraphicsSimpleTextItem | None = None
        self._rebuild_pending = False
        self._build_toolbar()
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.toolbar)
        box.addWidget(self.canvas)
        self._bridge = StoreBridge(store, self)
        self._bridge.storeEvent.connect(self._on_event)
        selection.operationChanged.connect(lambda _op: self.rebuild())
        selection.messageChanged.connect(self._highlight)
        self.rebuild()

    def _build_toolbar(self) -> None:
        self.toolbar = QToolBar()
        self.png_action = QAction("Export PNG…", self)
        self.png_action.triggered.connect(lambda: self._export("PNG image (*.png)", "png"))
        self.svg_action = QAction("Export SVG…", self)
        self.svg_action.triggered.connect(lambda: self._export("SVG image (*.svg)", "svg"))
        self.mermaid_action = QAction("Export as Mermaid…", self)
        self.mermaid_action.triggered.connect(lambda: self._export("Mermaid (*.mmd *.md)", "mmd"))
        for action in (self.png_action, self.svg_action, self.mermaid_action):
            self.toolbar.addAction(action)

    # --- what to show -----------------------------------------------------------------------

    def shown_operation(self) -> Operation | None:
        """The selected operation, else the newest one (so a live run is visible at once)."""
        wanted = self.selection.operation_id
        if wanted:
            try:
                return self.store.operation(wanted)
            except KeyError:
                return None
        return self.store.operations[-1] if self.store.operations else None

    def _on_event(self, event: StoreEvent) -> None:
        if event.kind == "cleared" or (event.kind == "operation_added" and not self.selection.operation_id):
            self._schedule_rebuild()
        elif self._rebuild_pending or self.layout_model is None:
            return
        elif event.kind == "message_added" and event.message and event.message.operation_id == self.operation_id:
            self._draw(self.layout_model.add(event.message))
        elif event.kind == "operation_updated" and event.operation and event.operation.id == self.operation_id:
            for arrow in self.layout_model.refresh_answers():
                item = self._items.get(id(arrow))
                if isinstance(item, ArrowItem):
                    item.relabel(arrow.label)
            self._update_title()

    def _schedule_rebuild(self) -> None:
        if not self._rebuild_pending:
            self._rebuild_pending = True
            QTimer.singleShot(0, self.rebuild)

    def rebuild(self) -> None:
        """Draw the shown operation from scratch (a new operation was selected, or a file opened)."""
        self._rebuild_pending = False
        self.scene.clear()
        self.arrow_items.clear()
        self._items.clear()
        self._lifelines = []
        operation = self.shown_operation()
        self.operation_id = operation.id if operation else ""
        self.layout_model = DiagramLayout(operation)
        self._draw_lanes()
        if operation is None:
            self._title.setText("No operation yet: run a tool, prompt or resource.")
            self._fit_scene()
            return
        self._draw(Change(added=list(self.layout_model.arrows)))
        for entry in self.store.messages_of(operation.id):
            self._draw(self.layout_model.add(entry))
        self._update_title()
        self._highlight(self.selection.message_seq)

    # --- drawing ----------------------------------------------------------------------------

    def _draw_lanes(self) -> None:
        self._title = self.scene.addSimpleText("")
        self._title.setPos(10, 4)
        bold = QFont()
        bold.setBold(True)
        for lane in LANES:
            x = LANE_X[lane]
            box = self.scene.addRect(QRectF(x - 50, 24, 100, 26), QPen(QColor("#555555")), QColor("#eef2f7"))
            box.setZValue(2)
            text = self.scene.addSimpleText(lane, bold)
            text.setPos(x - text.boundingRect().width() / 2, 29)
            text.setZValue(3)
            line = self.scene.addLine(x, 50, x, 60, QPen(QColor("#aaaaaa"), 1, Qt.PenStyle.DashLine))
            line.setZValue(-2)
            self._lifelines.append(line)

    def _draw(self, change: Change) -> None:
        for obj in change.added:
            if isinstance(obj, Arrow):
                item = ArrowItem(obj)
                item.setZValue(1)
                self.scene.addItem(item)
                self._items[id(obj)] = item
                if obj.seq is not None:
                    self.arrow_items[obj.seq] = item
            elif isinstance(obj, Activation):
                rect = self.scene.addRect(QRectF(), QPen(QColor("#555555")), QColor("#fdfdfd"))
                rect.setZValue(0.5 + obj.depth)
                self._items[id(obj)] = rect
                self._place_activation(obj, rect)
            elif isinstance(obj, Separator):
                pen = QPen(QColor("#bbbbbb"), 1, Qt.PenStyle.DashLine)
                line = self.scene.addLine(10, obj.y, _WIDTH - 10, obj.y, pen)
                line.setZValue(-1)
                label = self.scene.addSimpleText(obj.label)
                label.setBrush(QColor("#555555"))
                label.setPos(12, obj.y - 16)
        for obj in change.updated:
            bar = self._items.get(id(obj))
            if isinstance(obj, Activation) and isinstance(bar, QGraphicsRectItem):
                self._place_activation(obj, bar)
        self._fit_scene()

    def _place_activation(self, activation: Activation, rect: QGraphicsRectItem) -> None:
        assert self.layout_model is not None
        x = LANE_X[activation.lane] + activation.depth * ACTIVATION_W * 0.6 - ACTIVATION_W / 2
        end = activation.y1 if activation.y1 is not None else self.layout_model.height
        rect.setRect(QRectF(x, activation.y0, ACTIVATION_W, max(end - activation.y0, 4)))

    def _fit_scene(self) -> None:
        height = self.layout_model.height if self.layout_model else 120
        for line in self._lifelines:
            x = line.line().x1()
            line.setLine(x, 50, x, height)
        for activation in self.layout_model.activations if self.layout_model else []:
            item = self._items.get(id(activation))
            if activation.y1 is None and isinstance(item, QGraphicsRectItem):
                self._place_activation(activation, item)
        self.scene.setSceneRect(QRectF(0, 0, _WIDTH, height + 10))

    def _update_title(self) -> None:
        op = self.shown_operation()
        if op is None or self._title is None:
            return
        rounds = f"{op.rounds} round{'s' if op.rounds != 1 else ''}"
        self._title.setText(f"{op.method} {op.target} — {op.outcome}, {rounds} ({op.era}, {op.server})")

    # --- selection --------------------------------------------------------------------------

    def arrow_clicked(self, arrow: Arrow) -> None:
        if arrow.seq is not None:
            self.selection.select_message(arrow.seq, self.operation_id)

    def _highlight(self, seq: int) -> None:
        for item_seq, item in self.arrow_items.items():
            item.set_highlighted(item_seq == seq)
        if seq in self.arrow_items:
            self.canvas.ensureVisible(self.arrow_items[seq])

    def arrow_position(self, seq: int) -> QPointF:
        """Where the arrow of message `seq` is on the viewport (for tests and tooltips)."""
        item = self.arrow_items[seq]
        return QPointF(self.canvas.mapFromScene(item.line_midpoint()))

    # --- export -----------------------------------------------------------------------------

    def _export(self, filter_text: str, suffix: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export diagram", f"operation-{self.operation_id}.{suffix}",
                                              filter_text)
        if not path:
            return
        try:
            self.export_to(path)
        except (OSError, ValueError) as exc:
            QMessageBox.warning(self, "Export diagram", f"Could not export: {exc}")

    def export_to(self, path: str) -> None:
        """Write the diagram as .png, .svg or Mermaid (.mmd/.md), chosen by the file's suffix."""
        if not self.operation_id:
            raise ValueError("no operation is shown")
        if path.endswith(".png"):
            export.to_png(self.scene, path)
        elif path.endswith(".svg"):
            export.to_svg(self.scene, path, title=self._title.text() if self._title else "")
        else:
            export.to_mermaid(self.store, self.operation_id, path)
