"""The sequence diagram dock: the selected operation (or the newest one) drawn lane by lane.

Live messages are appended to the layout and only their items are added to the scene; the scene
is rebuilt only when the shown operation changes, and store bursts (opening a file) are coalesced
into one rebuild on the next turn of the event loop.
"""

from typing import Any

import shiboken6
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QAction, QKeyEvent, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import (
    QFileDialog,
    QGraphicsLineItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QLabel,
    QMenu,
    QMessageBox,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...trace import Operation, StoreEvent, TraceStore
from ...trace.diagram_layout import (
    HEADER,
    LANES,
    Activation,
    Arrow,
    Change,
    DiagramLayout,
    LaneGeometry,
    LaneOf,
    Separator,
    flow_title,
    natural_width,
    spread_lanes,
)
from ...trace.waterfall import Waterfall, to_time_scale
from ..selection import Selection
from ..store_bridge import StoreBridge
from . import export
from .items import ACTIVATION_W, ArrowItem, LaneHeaderItem
from .palette import PALETTE_EVENTS, DiagramColours
from .separator_item import SeparatorItem
from .waterfall_items import WaterfallItems
from .zoom import ZoomableCanvas, forward_zoom_keys

PRESENTATION_ZOOM = 1.5


class DiagramCanvas(ZoomableCanvas):
    """The QGraphicsView; a click on an arrow selects its message everywhere."""

    def __init__(self, owner: "SequenceDiagramView") -> None:
        super().__init__()
        self.owner = owner
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the zoom keys work once the diagram is clicked

    def mousePressEvent(self, event: QMouseEvent) -> None:
        for item in self.items(event.position().toPoint()):
            if isinstance(item, LaneHeaderItem):
                break  # the sticky header covers the rows under it
            if isinstance(item, ArrowItem) and item.arrow.seq is not None:
                self.owner.arrow_clicked(item.arrow)
                event.accept()
                self.setFocus()
                return
        super().mousePressEvent(event)

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self.owner.place_header()


class SequenceDiagramView(QWidget):
    """One operation's sequence diagram: zoomable, lanes over the view's width, a header that stays.

    `lane_of` names the server-side lane of each message (the Cluster diagram: one lane per node);
    `lanes` are the lanes drawn before any message (more appear as `lane_of` names them).
    """

    def __init__(self, store: TraceStore, selection: Selection, parent: QWidget | None = None,
                 lane_of: LaneOf | None = None, lanes: tuple[str, ...] = LANES) -> None:
        super().__init__(parent)
        self.store = store
        self.selection = selection
        self.lane_of = lane_of
        self.initial_lanes = lanes
        self.colours = DiagramColours()
        self.colours.update_from(self.palette())
        self.scene = QGraphicsScene(self)
        self.canvas = DiagramCanvas(self)
        self.canvas.setScene(self.scene)
        self.canvas.natural_width = self.natural_width
        self.layout_model: DiagramLayout | None = None
        self.geometry_now: LaneGeometry = spread_lanes(lanes, 0)
        self.operation_id = ""
        self.arrow_items: dict[int, ArrowItem] = {}  # seq -> item
        self._items: dict[int, Any] = {}  # id(layout object) -> graphics item
        self._arrows: list[ArrowItem] = []  # every arrow item, interactions too
        self._separators: list[SeparatorItem] = []
        self._lifelines: dict[str, QGraphicsLineItem] = {}
        self.header: LaneHeaderItem | None = None
        self._title_text = ""
        self._rebuild_pending = False
        self._relayout_pending = False
        self.presenting = False
        self.waterfall: WaterfallItems | None = None
        self._build_toolbar()
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addWidget(self.toolbar)
        box.addWidget(self.canvas)
        self.canvas.zoomChanged.connect(self._zoom_changed)
        self.canvas.visibleWidthChanged.connect(lambda _w: self._schedule_relayout())
        self._bridge = StoreBridge(store, self)
        self._bridge.storeEvent.connect(self._on_event)
        selection.operationChanged.connect(lambda _op: self.rebuild())
        selection.messageChanged.connect(self._highlight)
        self.rebuild()

    def _build_toolbar(self) -> None:
        self.toolbar = QToolBar()
        self.zoom_out_action = self._action("−", "Zoom out (Ctrl+-, Ctrl+wheel)", self.zoom_out)  # noqa: RUF001
        self.zoom_label = QLabel("100%")
        self.zoom_label.setMinimumWidth(self.zoom_label.fontMetrics().horizontalAdvance("1000%") + 8)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.zoom_label.setAccessibleName("Zoom")
        self.zoom_in_action = self._action("+", "Zoom in (Ctrl+=, Ctrl++, Ctrl+wheel)", self.zoom_in)
        self.reset_zoom_action = self._action("Reset", "Back to the readable default size (Ctrl+0)",
                                              self.reset_zoom)
        self.fit_action = self._action("Fit width", "Scale the diagram to the width of the view", self.fit_width)
        self.toolbar.addAction(self.zoom_out_action)
        self.toolbar.addWidget(self.zoom_label)
        for action in (self.zoom_in_action, self.reset_zoom_action, self.fit_action):
            self.toolbar.addAction(action)
        self.waterfall_action = self._action("Time to scale", "Waterfall: the vertical axis in ms; user, network "
                                             "and server time told apart (exports too)", self.rebuild)
        self.waterfall_action.setCheckable(True)
        self.toolbar.addAction(self.waterfall_action)
        self.toolbar.addSeparator()
        self.png_action = QAction("Export as PNG…", self)
        self.png_action.triggered.connect(lambda: self._export("PNG image (*.png)", "png"))
        self.svg_action = QAction("Export as SVG…", self)
        self.svg_action.triggered.connect(lambda: self._export("SVG image (*.svg)", "svg"))
        self.mermaid_action = QAction("Export as Mermaid…", self)
        self.mermaid_action.triggered.connect(lambda: self._export("Mermaid (*.mmd *.md)", "mmd"))
        menu = QMenu(self)
        for action in (self.png_action, self.svg_action, self.mermaid_action):
            menu.addAction(action)
        self.export_button = QToolButton()
        self.export_button.setText("Export")
        self.export_button.setToolTip("Export the diagram as PNG, SVG or Mermaid")
        self.export_button.setMenu(menu)
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_widget = self.toolbar.addWidget(self.export_button)  # one button: the zoom stays in view

    def _action(self, text: str, tip: str, slot: Any) -> QAction:
        """A toolbar action; its keys are said in the tooltip and handled by the canvas and the views
        (not bound as shortcuts, so they never clash with a window's or with the other diagrams')."""
        action = QAction(text, self)
        action.setToolTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        return action

    # --- zoom --------------------------------------------------------------------------------

    @property
    def zoom(self) -> float:
        return self.canvas.zoom

    def zoom_in(self) -> None:
        self.canvas.zoom_in()

    def zoom_out(self) -> None:
        self.canvas.zoom_out()

    def reset_zoom(self) -> None:
        """Back to the readable default size (Ctrl+0)."""
        self.canvas.reset_zoom()
        self._schedule_relayout()

    def fit_width(self) -> None:
        """Scale the diagram's natural width to the view's width, and keep it fitted on resize."""
        self.canvas.fit_width()
        self._schedule_relayout()

    def set_presentation(self, on: bool) -> None:
        """Presentation mode: a larger default scale, the export actions out of the way."""
        self.presenting = on
        self.canvas.default_zoom = PRESENTATION_ZOOM if on else 1.0
        self.export_widget.setVisible(not on)
        self.reset_zoom()

    def natural_width(self) -> float:
        """The narrowest width at which every lane keeps its minimum gap (what Fit width fits)."""
        lanes = self.layout_model.lanes if self.layout_model else list(self.initial_lanes)
        return natural_width(len(lanes))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The zoom keys pressed on the toolbar zoom the diagram too."""
        if not forward_zoom_keys(event, self.canvas):
            super().keyPressEvent(event)

    def _zoom_changed(self, zoom: float) -> None:
        self.zoom_label.setText(f"{zoom * 100:.0f}%")
        self.place_header()

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
        if event.kind in ("cleared", "loaded") or (event.kind == "operation_added" and not self.selection.operation_id):
            self._schedule_rebuild()
        elif self._rebuild_pending or self.layout_model is None:
            return
        elif event.kind == "message_added" and event.message and event.message.operation_id == self.operation_id:
            if self.waterfall is not None:  # rows move with time: drawn again, not appended
                self._schedule_rebuild()
                return
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
            QTimer.singleShot(0, self, self.rebuild)

    def rebuild(self) -> None:
        """Draw the shown operation from scratch (a new operation was selected, or a file opened)."""
        self._rebuild_pending = False
        operation = self.shown_operation()
        layout = DiagramLayout(operation, self.lane_of, self.initial_lanes)
        self._start_scene(operation, layout)
        if operation is None:
            self._set_title("No operation yet: run a tool, prompt or resource.")
            self._fit_scene()
            return
        if self.waterfall_action.isChecked():
            self._draw_to_scale(layout, self.store.messages_of(operation.id))
        else:
            self._draw(Change(added=list(layout.arrows)))
            for entry in self.store.messages_of(operation.id):
                self._draw(layout.add(entry))
        self._update_title()
        self._highlight(self.selection.message_seq)
        self.canvas.refit()

    def _start_scene(self, operation: Operation | None, layout: DiagramLayout,
                     geometry: LaneGeometry | None = None) -> None:
        """An empty scene for `layout`: its lane header and lifelines, at `geometry` (else the view's width)."""
        self.scene.clear()
        self.waterfall = None
        self.arrow_items.clear()
        self._items.clear()
        self._arrows, self._separators, self._lifelines = [], [], {}
        self.operation_id = operation.id if operation else ""
        self.layout_model = layout
        self.geometry_now = geometry or self._target_geometry()
        self.header = LaneHeaderItem(self.geometry_now, self.colours)
        self.scene.addItem(self.header)
        self._draw_lifelines()

    def show_laid_out(self, operation: Operation, layout: DiagramLayout, waterfall: Waterfall | None,
                      width: float) -> None:
        """Draw a diagram laid out elsewhere, `width` wide, nothing selected: the redacted copy a picture
        export draws offscreen (laid out off the GUI thread by studio/picture_export.py)."""
        self._start_scene(operation, layout, spread_lanes(layout.lanes, width))
        self._draw(Change(added=[*layout.arrows, *layout.activations, *layout.separators]))
        if waterfall is not None:
            self.waterfall = WaterfallItems(self.scene, waterfall, self.geometry_now, self.colours)
        self._set_title(flow_title(operation))
        self._fit_scene()

    def _draw_to_scale(self, layout: DiagramLayout, messages: list[Any]) -> None:
        """The waterfall (trace/waterfall.py): the whole layout first, moved to its times, then drawn."""
        for entry in messages:
            layout.add(entry)
        timed = to_time_scale(layout, messages)
        self._draw(Change(added=[*layout.arrows, *layout.activations, *layout.separators]))
        self.waterfall = WaterfallItems(self.scene, timed, self.geometry_now, self.colours)
        self._fit_scene()

    def set_lanes(self, lanes: tuple[str, ...]) -> None:
        """The lanes drawn before any message (the Cluster view: one per node); redraws at once."""
        if lanes != self.initial_lanes:
            self.initial_lanes = lanes
            self.rebuild()

    # --- lanes over the width ----------------------------------------------------------------

    def _target_geometry(self) -> LaneGeometry:
        lanes = self.layout_model.lanes if self.layout_model else list(self.initial_lanes)
        return spread_lanes(lanes, self.canvas.visible_width())

    def _schedule_relayout(self) -> None:
        if not self._relayout_pending:
            self._relayout_pending = True
            QTimer.singleShot(0, self, self.relayout)  # dropped if the view is deleted first

    def relayout(self) -> None:
        """Spread the lanes over the width the view now shows: items move, none is created."""
        self._relayout_pending = False
        geometry = self._target_geometry()
        if geometry == self.geometry_now:
            return
        self.geometry_now = geometry
        if self.header is not None:
            self.header.set_geometry(geometry)
        self._draw_lifelines()
        for item in self._arrows:
            item.relayout(geometry)
        for activation in self.layout_model.activations if self.layout_model else []:
            bar = self._items.get(id(activation))
            if isinstance(bar, QGraphicsRectItem):
                self._place_activation(activation, bar)
        for separator in self._separators:
            separator.set_width(geometry.width)
        self._fit_scene()

    def place_header(self) -> None:
        """Keep the lane header at the top of what the view shows, however far it is scrolled."""
        if self.header is None or not shiboken6.isValid(self.header):
            return  # nothing drawn yet, or the scene is being torn down with the widget
        top = max(0.0, self.canvas.mapToScene(0, 0).y())
        if abs(self.header.y() - top) > 0.01:
            self.header.setY(top)

    # --- drawing ----------------------------------------------------------------------------

    def _draw_lifelines(self) -> None:
        """One dashed line per lane (new lanes get theirs), at the current geometry's x."""
        pen = QPen(self.colours.lifeline, 1, Qt.PenStyle.DashLine)
        height = self.layout_model.height if self.layout_model else 120
        for lane, x in self.geometry_now.x.items():
            line = self._lifelines.get(lane)
            if line is None:
                line = self.scene.addLine(0, 0, 0, 0, pen)
                line.setZValue(-2)
                self._lifelines[lane] = line
            line.setLine(x, HEADER, x, height)

    def _draw(self, change: Change) -> None:
        if change.lanes:  # a new lane (a cluster node): every lane moves, the new arrows land on the new x
            self.relayout()
        colours = self.colours
        for obj in change.added:
            if isinstance(obj, Arrow):
                item = ArrowItem(obj, self.geometry_now, colours)
                item.setZValue(1)
                self.scene.addItem(item)
                self._items[id(obj)] = item
                self._arrows.append(item)
                if obj.seq is not None:
                    self.arrow_items[obj.seq] = item
            elif isinstance(obj, Activation):
                rect = self.scene.addRect(QRectF(), QPen(colours.border), colours.activation)
                rect.setZValue(0.5 + min(obj.depth, 40) / 100)  # nested ones above, every label above them all
                self._items[id(obj)] = rect
                self._place_activation(obj, rect)
            elif isinstance(obj, Separator):
                separator = SeparatorItem(obj, self.geometry_now.width, colours)
                self.scene.addItem(separator)
                self._separators.append(separator)
        for obj in change.updated:
            if isinstance(obj, Arrow):  # a task's run of polls grew: "polled N times"
                drawn = self._items.get(id(obj))
                if isinstance(drawn, ArrowItem):
                    drawn.relabel(obj.label)
                continue
            bar = self._items.get(id(obj))
            if isinstance(obj, Activation) and isinstance(bar, QGraphicsRectItem):
                self._place_activation(obj, bar)
        self._fit_scene()

    def _place_activation(self, activation: Activation, rect: QGraphicsRectItem) -> None:
        assert self.layout_model is not None
        x = self.geometry_now.x[activation.lane] + activation.depth * ACTIVATION_W * 0.6 - ACTIVATION_W / 2
        end = activation.y1 if activation.y1 is not None else self.layout_model.height
        rect.setRect(QRectF(x, activation.y0, ACTIVATION_W, max(end - activation.y0, 4)))

    def _fit_scene(self) -> None:
        height = self.layout_model.height if self.layout_model else 120
        for line in self._lifelines.values():
            x = line.line().x1()
            line.setLine(x, HEADER, x, height)
        for activation in self.layout_model.open_activations if self.layout_model else []:
            item = self._items.get(id(activation))
            if isinstance(item, QGraphicsRectItem):
                self._place_activation(activation, item)
        if self.waterfall is not None:
            height += 24  # the legend's line
            self.waterfall.place(self.geometry_now, height)
        self.scene.setSceneRect(QRectF(0, 0, self.geometry_now.width, height + 10))
        self.place_header()

    def _apply_colours(self) -> None:
        """The palette changed (light/dark): repaint everything in colours derived from it."""
        self.colours.update_from(self.palette())
        colours = self.colours
        for line in self._lifelines.values():
            line.setPen(QPen(colours.lifeline, 1, Qt.PenStyle.DashLine))
        for item in self._items.values():
            if isinstance(item, QGraphicsRectItem):
                item.setPen(QPen(colours.border))
                item.setBrush(colours.activation)
        self.scene.update()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in PALETTE_EVENTS:
            self._apply_colours()
        super().changeEvent(event)

    def _set_title(self, text: str) -> None:
        self._title_text = text
        if self.header is not None:
            self.header.set_title(text)

    def title_text(self) -> str:
        """The diagram's whole title (the header shows it elided when the view is narrow)."""
        return self._title_text

    def _update_title(self) -> None:
        op = self.shown_operation()
        if op is not None:
            self._set_title(flow_title(op))

    # --- selection --------------------------------------------------------------------------

    def scroll_to_top(self) -> None:
        """Show the flow from its start (a live flow scrolls along with its newest arrow)."""
        self.canvas.verticalScrollBar().setValue(self.canvas.verticalScrollBar().minimum())

    def arrow_clicked(self, arrow: Arrow) -> None:
        if arrow.seq is not None:
            self.selection.select_message(arrow.seq, self.operation_id)

    def _highlight(self, seq: int) -> None:
        if self.layout_model is not None:  # a poll folded into its run highlights the run's arrow
            seq = self.layout_model.drawn_as.get(seq, seq)
        for item_seq, item in self.arrow_items.items():
            item.set_highlighted(item_seq == seq)
        if seq in self.arrow_items:  # below the sticky header, not under it
            self.canvas.ensureVisible(self.arrow_items[seq], 20, int(HEADER * self.zoom) + 12)

    def arrow_position(self, seq: int) -> QPointF:
        """Where the arrow of message `seq` is on the viewport (for tests and tooltips)."""
        item = self.arrow_items[seq]
        return QPointF(self.canvas.mapFromScene(item.line_midpoint()))

    # --- export -----------------------------------------------------------------------------

    def _export(self, filter_text: str, suffix: str) -> None:
        from ..picture_preview import preview_in_window  # lazily: that module draws with this view
        if preview_in_window(self, suffix):
            return  # in the window, the export is shown with its redaction first
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
        if path.endswith((".png", ".svg")):
            if self.header is not None:
                self.header.setY(0)  # the whole diagram, headed as on screen before scrolling
            try:
                export.to_picture(self.scene, path, self._title_text, self.colours.background)
            finally:
                self.place_header()
        else:
            export.to_mermaid(self.store, self.operation_id, path)
