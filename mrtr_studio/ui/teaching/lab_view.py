"""The tamper-and-replay lab: every attack on a captured round, what the server said, and the spec's verdict.

Each attack is its own operation in the shared trace (teaching.lab does that), so a click on a row
selects that operation's attacked retry in the window's Selection: the diagram beside the grid,
the JSON view and the requestState inspector then all show that attack's flow and failed check.
"""

import asyncio
from typing import Any

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...client.settings import ClientSettings
from ...studio.connection import close_all
from ...studio.controller import Studio, StudioEvent
from ...studio.identities import IDENTITY_PRESETS, Identity
from ...teaching.lab import ATTACKS, Lab, LabRun, LabTarget
from ...teaching.task_lab import TaskLab
from ...trace import StoreEvent, TraceStore
from ..builders import subscribe_while_alive
from ..diagram import SequenceDiagramView
from ..diagram.palette import PALETTE_EVENTS
from ..diagram.zoom import forward_zoom_keys
from ..selection import Selection
from ..store_bridge import StoreBridge
from ..trace_panel import TracePanel
from .common import OperationPicker, PickedRun, mark, mark_colour, mark_icon, narrow_combo
from .connections import TargetPicker

COLUMNS = ("Attack", "Requirement", "Level", "Server's answer", "Status", "Verdict", "Detail")
ATTACK, REQUIREMENT, LEVEL, ANSWER, STATUS, VERDICT, DETAIL = range(len(COLUMNS))


class LabView(PickedRun[LabRun], TracePanel):
    task_name = "lab"

    def __init__(self, studio: Studio, store: TraceStore, selection: Selection,
                 parent: QWidget | None = None) -> None:
        super().__init__(store, selection, parent)
        self.studio = studio
        self.last: LabRun | None = None
        self.task: asyncio.Task[LabRun | None] | None = None
        self._operations: dict[str, int] = {}  # operation id -> row
        self._running = False
        self._build()
        self._bridge = StoreBridge(store, self)
        self._bridge.storeEvent.connect(self._on_store)
        subscribe_while_alive(self, studio, self._on_studio)

    def _build(self) -> None:
        self.target = TargetPicker(self.studio)
        self.target.currentIndexChanged.connect(lambda _i: self._target_changed())
        self.picker = OperationPicker("Operation to attack")
        self.operation, self.arguments = self.picker.combo, self.picker.arguments
        self.second = QComboBox()
        narrow_combo(self.second)
        self.second.setAccessibleName("Second identity")
        self.second.addItem("none (skip that attack)", None)
        for name in ("alice", "bob"):
            self.second.addItem(f"{name} (bearer {IDENTITY_PRESETS[name].bearer})", name)
        self.run_button = QPushButton("▶ Run the attacks")
        self.run_button.clicked.connect(self.start)
        form = QGridLayout()  # two rows, so the grid and the diagram keep the height
        for column, widget in enumerate((QLabel("Server"), self.target, QLabel("Operation"), self.operation)):
            form.addWidget(widget, 0, column)
        for column, widget in enumerate((QLabel("Arguments"), self.arguments, QLabel("Second identity"),
                                         self.second)):
            form.addWidget(widget, 1, column)
        form.setColumnStretch(1, 3)
        form.setColumnStretch(3, 2)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        self.summary = QLabel("Pick a server and an operation that asks for input, then run.")
        self.summary.setObjectName("labSummary")
        buttons.addWidget(self.summary, 1)
        self.grid = QTableWidget(0, len(COLUMNS))
        self.grid.setAccessibleName("Attacks and verdicts")
        self.grid.setHorizontalHeaderLabels(list(COLUMNS))
        self.grid.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.grid.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.grid.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.grid.setWordWrap(True)
        header = self.grid.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.grid.currentCellChanged.connect(lambda row, *_: self.show_row(row))
        self.grid.cellClicked.connect(lambda row, _col: self.show_row(row))
        self.diagram = SequenceDiagramView(self.store, self.selection)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.grid)
        split.addWidget(self.diagram)
        split.setSizes([340, 460])
        box = QVBoxLayout(self)
        box.addLayout(form)
        box.addLayout(buttons)
        box.addWidget(split, 1)
        self._target_changed()
        self._fill_rows()

    # --- the form ----------------------------------------------------------------------------

    def _on_studio(self, event: StudioEvent) -> None:
        if event.kind == "catalog":
            self.target.refresh()
            self._target_changed()

    def _target_changed(self) -> None:
        self.second.setEnabled(not self.target.embedded)
        self.picker.fill(self.target.targets())

    def pick(self, method: str, target: str, arguments: dict[str, Any] | None = None) -> None:
        self.picker.pick(self.target.targets(), method, target, arguments)

    def identities(self) -> tuple[Identity, Identity | None]:
        """Embedded: alice then bob (the engine takes the user as it is); remote: the studio's and the pick."""
        if self.target.embedded:
            return IDENTITY_PRESETS["alice"], IDENTITY_PRESETS["bob"]
        second = self.second.currentData()
        return self.studio.identity, IDENTITY_PRESETS[second] if second else None

    # --- running -----------------------------------------------------------------------------

    def _refused(self, text: str) -> None:
        self.summary.setText(text)

    async def _run(self, method: str, target: str, arguments: dict[str, Any]) -> LabRun | None:
        self.run_button.setEnabled(False)
        self._fill_rows()
        self.summary.setText(f"Attacking {target} on {self.target.label()}…")
        first, second = self.identities()
        transports: dict[str, Any] = {}
        try:
            transports = await self.studio.connection.open_transports(self.target.entry(),
                                               [first] + ([second] if second else []))
            self._running = True
            run = await Lab(self._lab_target(transports, first, second), self.store,
                            ClientSettings(era="modern")).run(method, target, arguments)
            if method == "tools/call" and all(r.status in ("broken", "skipped") for r in run.results):
                # No MRTR round to attack: a tool that becomes a task gets the task attacks instead.
                await close_all(transports.values())
                transports = await self.studio.connection.open_transports(self.target.entry(),
                                                   [first] + ([second] if second else []))
                tasks = await TaskLab(self._lab_target(transports, first, second), self.store,
                                      ClientSettings(era="modern")).run_tasks(target, arguments)
                if any(r.status != "broken" for r in tasks.results):
                    run = tasks
        except Exception as exc:
            self.summary.setText(f"✖ The lab could not run: {type(exc).__name__}: {exc}")
            return None
        finally:
            self._running = False
            await close_all(transports.values())
            self.run_button.setEnabled(True)
        self.last = run
        self._show(run)
        return run

    def _lab_target(self, transports: dict[str, Any], first: Identity, second: Identity | None) -> LabTarget:
        names = (first.name, second.name if second else None)
        if not self.target.embedded:
            return LabTarget(transports.__getitem__, names, label=self.target.label())
        moved = [0.0]

        def advance(seconds: float) -> None:
            moved[0] += seconds
            self.studio.advance_clock(seconds)

        def reset() -> None:  # back to where the person had the clock, not to zero
            self.studio.advance_clock(-moved[0])
            moved[0] = 0.0

        return LabTarget(transports.__getitem__, names, advance, reset, label="embedded")

    # --- the grid ----------------------------------------------------------------------------

    def _fill_rows(self) -> None:
        self._operations.clear()
        self.grid.setRowCount(len(ATTACKS))
        for row, attack in enumerate(ATTACKS):
            cells = (attack.title, attack.requirement, attack.level, "", "… waiting", "", "")
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == REQUIREMENT:
                    item.setToolTip(f"{attack.requirement}\n{attack.spec}")
                self.grid.setItem(row, column, item)
        self._fit_columns()  # the attacks read whole before the run, not squeezed beside an empty Detail

    def _on_store(self, event: StoreEvent) -> None:
        """Live progress: the row of the attack being run says so."""
        op = event.operation
        if not self._running or event.kind != "operation_added" or op is None or not op.label.startswith("lab: "):
            return
        title = op.label.removeprefix("lab: ")
        row = next((i for i, a in enumerate(ATTACKS) if a.title == title), None)
        if row is not None:
            self._operations[op.id] = row
            self.grid.item(row, STATUS).setText("▶ running")

    def _show(self, run: LabRun) -> None:
        self._operations.clear()
        self.grid.setRowCount(len(run.results))
        counts: dict[str, int] = {}
        for row, result in enumerate(run.results):
            attack = result.attack
            cells = (attack.title, attack.requirement, attack.level, result.answer, result.status,
                     mark(result.verdict), result.detail)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text if column != REQUIREMENT else f"{text}\n{attack.spec}")
                if column == VERDICT:
                    item.setIcon(mark_icon(result.verdict, self))
                    item.setForeground(mark_colour(result.verdict, self.palette()))
                elif column == STATUS and result.status in ("accepted", "broken"):
                    item.setForeground(mark_colour("fail", self.palette()))
                item.setData(Qt.ItemDataRole.UserRole, result.operation_id)
                self.grid.setItem(row, column, item)
            if result.operation_id:
                self._operations[result.operation_id] = row
            counts[result.verdict] = counts.get(result.verdict, 0) + 1
        self._fit_columns()
        words = ", ".join(f"{mark(v)} {counts[v]}" for v in ("pass", "warn", "fail", "skipped") if v in counts)
        self.summary.setText(f"{len(run.results)} attacks on {run.target} ({self.target.label()}): {words}")

    def _fit_columns(self) -> None:
        """Every column as wide as its text, the long ones capped (they wrap, whole in the tooltip)."""
        self.grid.resizeColumnsToContents()
        self.grid.setColumnWidth(REQUIREMENT, min(self.grid.columnWidth(REQUIREMENT), 320))
        self.grid.setColumnWidth(DETAIL, min(self.grid.columnWidth(DETAIL), 360))

    def show_row(self, row: int) -> None:
        """Select the attack's operation (its attacked retry) in the shared Selection."""
        item = self.grid.item(row, ATTACK) if row >= 0 else None
        op_id = item.data(Qt.ItemDataRole.UserRole) if item else None
        if not op_id:
            return
        messages = self.store.messages_of(op_id)
        retries = [m for m in messages if m.kind == "request" and m.round >= 2]
        focus = retries[-1] if retries else (messages[-1] if messages else None)
        if focus is None:
            self.selection.select_operation(op_id)
        else:
            self.selection.select(focus)

    def changeEvent(self, event: QEvent) -> None:
        """Light/dark switch: the verdict colours are re-picked for the new background."""
        super().changeEvent(event)
        if event.type() in PALETTE_EVENTS and self.last:
            self._show(self.last)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The zoom keys pressed on the view's buttons and fields zoom its diagram."""
        if not forward_zoom_keys(event, self.diagram.canvas):
            super().keyPressEvent(event)

    def set_presentation(self, on: bool) -> None:
        self.diagram.set_presentation(on)

    def row_texts(self, row: int) -> dict[str, str]:
        return {name: self.grid.item(row, column).text() for column, name in enumerate(COLUMNS)}
