"""Eras side by side: the same call as a modern client (left) and a legacy client (right).

Each diagram has its own Selection pinned to its era's operation, so both stay put whatever the
rest of the window selects; a click on an arrow is passed on to the window's selection, so the JSON
inspector shows that message. The line under each says how that era ended (the modern-only
`delete_file` completes for one and is -32603 for the other; a dual-era tool completes for both,
in different shapes).
"""

import asyncio
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QPushButton, QSplitter, QVBoxLayout, QWidget

from ...client.auto_answers import auto_respond
from ...client.session import RunResult
from ...studio.connection import close_all
from ...studio.controller import Studio, StudioEvent, describe_error
from ...teaching.eras import SideBySide, run_side_by_side
from ...trace import StoreEvent, TraceStore
from ...trace.diagram_layout import natural_width
from ..builders import subscribe_while_alive
from ..diagram import SequenceDiagramView
from ..diagram.zoom import forward_zoom_keys
from ..selection import Selection
from ..store_bridge import StoreBridge
from .common import OperationPicker, PickedRun, symbol
from .connections import TargetPicker

ERAS = ("modern", "legacy")
#: Below this width (px) the two diagrams are stacked: side by side each would drop under a readable scale.
SIDE_BY_SIDE_MIN = int(2 * natural_width(3) + 40)
#: Pins a diagram to nothing before the first run (an id no store holds).
NOTHING = "(not run yet)"


def verdict_line(era: str, result: RunResult) -> str:
    """One line: how this era's run ended, with the symbol and the word."""
    drive = result.drive
    rounds = f"{len(drive.rounds)} round{'s' if len(drive.rounds) != 1 else ''}"
    if drive.outcome == "complete":
        texts = [c.get("text", "") for c in (drive.result or {}).get("content") or [] if isinstance(c, dict)]
        said = f" — {texts[0]}" if texts and texts[0] else ""
        return f"{symbol('complete')} {era}: complete in {rounds}{said}"
    return f"{symbol('error')} {era}: {drive.outcome} {describe_error(drive.error)}".rstrip()


class ErasView(PickedRun[SideBySide], QWidget):
    task_name = "eras side by side"
    #: "Show wide" was clicked: the window shows this view in the mode that gives it the whole window.
    wideWanted = Signal()

    def __init__(self, studio: Studio, store: TraceStore | None = None, parent: QWidget | None = None,
                 shared: Selection | None = None) -> None:
        super().__init__(parent)
        self.studio = studio
        self.store = store if store is not None else studio.store
        #: The window's selection: a message clicked in either diagram is selected there too.
        self.shared = shared
        self.selections = {era: Selection(self) for era in ERAS}
        self.diagrams = {era: SequenceDiagramView(self.store, self.selections[era]) for era in ERAS}
        self.verdicts = {era: QLabel("") for era in ERAS}
        for era in ERAS:
            self.selections[era].messageChanged.connect(lambda seq, era=era: self._pass_on(era, seq))
        self.last: SideBySide | None = None
        self.task: asyncio.Task[SideBySide | None] | None = None
        self._pinning = False
        self.whole_window = False
        self._build()
        self._bridge = StoreBridge(self.store, self)
        self._bridge.storeEvent.connect(self._on_store)
        subscribe_while_alive(self, studio, self._on_studio)

    def _build(self) -> None:
        self.picker = OperationPicker("Tool, prompt or resource")
        self.tool, self.arguments = self.picker.combo, self.picker.arguments
        self.target = TargetPicker(self.studio)
        self.target.currentIndexChanged.connect(lambda _i: self.picker.fill(self.target.targets()))
        self.run_button = QPushButton("▶ Run in both eras")
        self.run_button.clicked.connect(self.start)
        self.status = QLabel("The same call, as a 2026-07-28 client and as a 2025-11-25 client.")
        self.wide_button = QPushButton("⤢ Show wide")
        self.wide_button.setToolTip("Both diagrams side by side, each whole: Eras in the Learn mode, which gives it "
                                    "the whole window")
        self.wide_button.setAccessibleName("Show Eras wide, in the Learn mode")
        self.wide_button.clicked.connect(self.wideWanted.emit)
        self.controls = QGridLayout()
        self._labels = (QLabel("Server"), QLabel("Call"), QLabel("Arguments"))
        self._place_controls(one_row=False)
        self.columns = QSplitter(Qt.Orientation.Horizontal)
        self.columns.setChildrenCollapsible(False)
        for era in ERAS:
            title = QLabel(f"<b>{era.capitalize()} client</b> ({'2026-07-28' if era == 'modern' else '2025-11-25'})")
            self.verdicts[era].setObjectName(f"verdict:{era}")
            self.verdicts[era].setWordWrap(True)
            self.verdicts[era].setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.selections[era].select_operation(NOTHING)
            pane = QWidget()
            column_box = QVBoxLayout(pane)
            column_box.setContentsMargins(0, 0, 0, 0)
            heading = QHBoxLayout()  # the era and how it ended on one line: the lines saved are the diagram's
            heading.addWidget(title)
            heading.addWidget(self.verdicts[era], 1)
            column_box.addLayout(heading)
            column_box.addWidget(self.diagrams[era], 1)
            self.columns.addWidget(pane)
        box = QVBoxLayout(self)
        box.addLayout(self.controls)
        box.addWidget(self.status)
        box.addWidget(self.columns, 1)
        self.columns.installEventFilter(self)  # side by side when both fit, else one above the other
        self.picker.fill(self.target.targets())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.columns and event.type() == QEvent.Type.Resize:
            self._arrange()
        return False

    def _arrange(self) -> None:
        """Side by side when each diagram keeps its readable width; stacked (modern on top) when not."""
        wide = self.columns.width() >= SIDE_BY_SIDE_MIN
        wanted = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if self.columns.orientation() != wanted:
            self.columns.setOrientation(wanted)
            extent = self.columns.width() if wide else self.columns.height()
            self.columns.setSizes([extent // 2, extent // 2])

    def _place_controls(self, one_row: bool) -> None:
        """Server, call, arguments and Run: in one row across the whole window (a row more for the
        diagrams), in two in a column (the arguments under the call, beside "Show wide")."""
        grid = self.controls
        server, call, arguments = self._labels
        placed: tuple[QWidget, ...] = (server, self.target, call, self.tool, arguments, self.arguments,
                                       self.run_button, self.wide_button)
        for widget in placed:
            grid.removeWidget(widget)
        for column in range(grid.columnCount()):
            grid.setColumnStretch(column, 0)
        for column, widget in enumerate(placed[:4]):
            grid.addWidget(widget, 0, column)
        if one_row:
            grid.addWidget(arguments, 0, 4)
            grid.addWidget(self.arguments, 0, 5)
            grid.addWidget(self.run_button, 0, 6)
            grid.setColumnStretch(3, 1)
            grid.setColumnStretch(5, 2)  # JSON arguments are rarely short
        else:
            grid.addWidget(self.run_button, 0, 4)
            grid.addWidget(arguments, 1, 0)
            grid.addWidget(self.arguments, 1, 1, 1, 3)  # the width of the row: JSON arguments are rarely short
            grid.addWidget(self.wide_button, 1, 4)
            grid.setColumnStretch(3, 1)

    def set_whole_window(self, on: bool) -> None:
        """The window gives this view all its room (Learn) or a column of it (Debug, where it is a tab
        and "Show wide" takes it to Learn)."""
        if on != self.whole_window:
            self.whole_window = on
            self._place_controls(one_row=on)
            self.wide_button.setVisible(not on)  # (not while building: a parentless widget shown is a window)
        self._arrange()

    def _pass_on(self, era: str, seq: int) -> None:
        if self.shared is not None and seq >= 0:
            self.shared.select_message(seq, self.selections[era].operation_id)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The zoom keys pressed on the view's buttons and fields zoom its diagram."""
        if not forward_zoom_keys(event, *(d.canvas for d in self.diagrams.values())):
            super().keyPressEvent(event)

    def set_presentation(self, on: bool) -> None:
        """Presentation mode: both diagrams at the larger reading scale."""
        for diagram in self.diagrams.values():
            diagram.set_presentation(on)

    def _on_studio(self, event: StudioEvent) -> None:
        if event.kind == "catalog":
            self.target.refresh()
            self.picker.fill(self.target.targets())

    def pick(self, method: str, target: str, arguments: dict[str, Any] | None = None) -> None:
        self.picker.pick(self.target.targets(), method, target, arguments)

    # --- running -----------------------------------------------------------------------------

    def _refused(self, text: str) -> None:
        self.status.setText(text)

    async def _run(self, method: str, target: str, arguments: dict[str, Any]) -> SideBySide | None:
        self.run_button.setEnabled(False)
        for label in self.verdicts.values():
            label.setText("… running")
        entry = self.target.entry()
        opened: list[Any] = []
        self._pinning = True
        try:
            identity = self.studio.identity  # one fresh connection per era: a legacy handshake must not colour
            for era in ERAS:                 # the modern run
                transports = await self.studio.connection.open_transports(entry, [replace(identity, name=era)])
                opened += transports.values()
            pool = list(opened)
            both = await run_side_by_side(method, target, arguments, lambda: pool.pop(0), auto_respond,
                                          self.store, self.studio.client_settings(), self.target.label())
        except Exception as exc:
            self.status.setText(f"✖ Could not run: {type(exc).__name__}: {exc}")
            for label in self.verdicts.values():
                label.setText("")
            return None
        finally:
            self._pinning = False
            await close_all(opened)
            self.run_button.setEnabled(True)
        self.last = both
        for era, result in (("modern", both.modern), ("legacy", both.legacy)):
            self.selections[era].select_operation(result.operation.id)
            self.verdicts[era].setText(verdict_line(era, result))
        self.status.setText(f"{method} {target} on {self.target.label()}: the modern client first, then the legacy "
                            "one.")
        return both

    def _on_store(self, event: StoreEvent) -> None:
        """Pin each diagram to its era's operation as soon as it exists, so the run is drawn live."""
        op = event.operation
        if self._pinning and event.kind == "operation_added" and op is not None:
            era = op.era
            if era in self.selections:
                self.selections[era].select_operation(op.id)
