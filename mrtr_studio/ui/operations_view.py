"""The operations list: a thin Qt table over `studio.operations.OperationsIndex`, with Run again and Compare.

Store events reach the index through the StoreBridge; each becomes one insert or one dataChanged.
Opening a file (`cleared`, then thousands of adds) is applied with a single model reset on the next
turn of the event loop, like the message log, so a 100,000-message trace costs one reset here.
"""

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..studio.colour_rules import BoundRules
from ..studio.operations import OperationRow, OperationsIndex, format_duration
from ..trace import Operation, StoreEvent, TraceStore
from . import colouring
from .selection import Selection
from .store_bridge import StoreBridge
from .tables import ColumnsModel, fixed_row_table
from .theme import status_colours

COLUMNS = ("started", "target", "era", "identity", "rounds", "outcome", "duration", "source")
_WIDTHS = {"started": 84, "target": 170, "era": 70, "identity": 80, "rounds": 56, "outcome": 120, "duration": 72}
_Index = QModelIndex | QPersistentModelIndex
RowRole = Qt.ItemDataRole.UserRole + 1


class OperationsModel(ColumnsModel):
    columns = COLUMNS

    def __init__(self, store: TraceStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.index_ = OperationsIndex()
        self._loading = False
        #: The filter bar's operations test (ui/filter_links.py): the rows it rejects are dimmed.
        self.matches: Callable[[Operation], bool] | None = None
        #: The colouring rules (ui/colour_links.py): the first rule some message of the operation matches.
        self.colouring: BoundRules | None = None
        self.index_.rebuild(store.operations, store.messages)
        self._bridge = StoreBridge(store, self)
        self._bridge.storeEvent.connect(self._on_event)

    def _on_event(self, event: StoreEvent) -> None:
        if event.kind == "cleared":
            self.beginResetModel()
            self.index_.apply(event)
            if not self._loading:
                QTimer.singleShot(0, self.flush)
            self._loading = True  # gather the adds that follow (a file opening), reset once
            self.endResetModel()
            return
        if event.kind == "loaded":
            self.index_.rebuild(self._bridge.store.operations, self._bridge.store.messages)
            return
        if self._loading:
            self.index_.apply(event)
            return
        if event.kind == "operation_added":
            row = len(self.index_.rows)
            self.beginInsertRows(QModelIndex(), row, row)
            self.index_.apply(event)
            self.endInsertRows()
            return
        change = self.index_.apply(event)
        if change.kind == "changed":
            self.dataChanged.emit(self.index(change.row, 0), self.index(change.row, len(COLUMNS) - 1))

    def flush(self) -> None:
        if self._loading:
            self.beginResetModel()
            self._loading = False
            self.endResetModel()

    def mark_recovered(self, operation_ids: list[str]) -> None:
        for row in self.index_.mark_recovered(operation_ids):
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def row(self, row: int) -> OperationRow:
        return self.index_.rows[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() or self._loading else len(self.index_.rows)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.index_.rows[index.row()]
        if role == RowRole:
            return row
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, COLUMNS[index.column()])
        if role == Qt.ItemDataRole.ForegroundRole and self.matches is not None and not self.matches(row.operation):
            return QBrush(QColor(128, 128, 128, 150))  # not matching the filter: dimmed, still there
        if role == Qt.ItemDataRole.ForegroundRole and COLUMNS[index.column()] == "outcome":
            kind = {"complete": "success", "running": "info"}.get(row.outcome, "error")
            colour = status_colours().get(kind)
            return QBrush(QColor(colour)) if colour else None
        if role == Qt.ItemDataRole.BackgroundRole and self.colouring is not None:
            return colouring.background(self.colouring.rule_for_operation(row.operation))
        if role == Qt.ItemDataRole.ToolTipRole:
            op = row.operation
            text = (f"{op.method} {op.target} · {row.origin} · {row.source}\n"
                    f"arguments: {op.arguments}" + (f"\n{op.problem}" if op.problem else ""))
            return colouring.tooltip(self.colouring.rule_for_operation(op), text) if self.colouring else text
        return None

    @staticmethod
    def _display(row: OperationRow, column: str) -> Any:
        op = row.operation
        if column == "started":
            return time.strftime("%H:%M:%S", time.localtime(op.started))
        if column == "target":
            return op.target
        if column == "era":
            return op.era
        if column == "identity":
            return row.identity
        if column == "rounds":
            return op.rounds
        if column == "outcome":
            marks = {"complete": "✓ ", "running": "… "}
            task = f" (task {op.task_status})" if op.task_status and row.outcome == "running" else \
                " (task)" if op.task_id else ""
            return marks.get(row.outcome, "✗ ") + row.outcome + task
        if column == "duration":
            return format_duration(row.duration)
        return row.source + ("" if row.origin == "live" else f" ({row.origin})")


class OperationsView(QWidget):
    """One row per operation; picking one shows it everywhere, two can be compared."""

    runAgainRequested = Signal(str)  # operation id
    #: The person picked one operation (not the list following a selection made elsewhere).
    operationPicked = Signal(str)
    compareRequested = Signal(str, str)

    def __init__(self, store: TraceStore, selection: Selection, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.selection = selection
        self.model = OperationsModel(store, self)
        self._syncing = False
        self._can_run = True
        self.table = fixed_row_table(self.model, COLUMNS, _WIDTHS, 160,
                                     QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setObjectName("operationsTable")
        self.table.setAccessibleName("Operations")
        self.run_again = QPushButton("Run again")
        self.run_again.setToolTip("Repeat the selected operation with the same arguments and client settings")
        self.compare = QPushButton("Compare")
        self.compare.setToolTip("Select two operations, then show their flows side by side with the differences marked")
        self.hint = QLabel("")
        self.hint.setObjectName("operationsHint")
        self.run_again.clicked.connect(self._run_again)
        self.compare.clicked.connect(self._compare)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        selection.operationChanged.connect(self._show_operation)
        self.model.modelReset.connect(lambda: self._show_operation(self.selection.operation_id))
        self.model.modelReset.connect(self._update_buttons)  # cleared: no row, so no Run again
        # The selection may name an operation before its row arrives (whoever heard the store first picked
        # it): the row is selected as it is inserted.
        self.model.rowsInserted.connect(lambda *_: self._show_operation(self.selection.operation_id))
        bar = QHBoxLayout()
        bar.addWidget(self.run_again)
        bar.addWidget(self.compare)
        bar.addWidget(self.hint, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(bar)
        layout.addWidget(self.table)
        self._update_buttons()

    def selected_ids(self) -> list[str]:
        rows = sorted(index.row() for index in self.table.selectionModel().selectedRows())
        return [self.model.row(row).id for row in rows]

    def select_ids(self, ids: list[str]) -> None:
        """Select these operations' rows (what a click or Ctrl+click does)."""
        model = self.table.selectionModel()
        model.clearSelection()
        flags = model.SelectionFlag.Select | model.SelectionFlag.Rows
        for operation_id in ids:
            row = self.model.index_.row_of(operation_id)
            if row is not None:
                model.select(self.model.index(row, 0), flags)

    def _selection_changed(self) -> None:
        self._update_buttons()
        ids = self.selected_ids()
        if len(ids) == 1 and not self._syncing:
            self._syncing = True
            try:
                self.selection.select_operation(ids[0])
            finally:
                self._syncing = False
            self.operationPicked.emit(ids[0])

    def _show_operation(self, operation_id: str) -> None:
        if self._syncing or not operation_id:
            return
        row = self.model.index_.row_of(operation_id)
        if row is None or (self.selected_ids() == [operation_id]):
            return
        self._syncing = True
        try:
            index = self.model.index(row, 0)
            model = self.table.selectionModel()
            model.setCurrentIndex(index, model.SelectionFlag.ClearAndSelect | model.SelectionFlag.Rows)
            self.table.scrollTo(index)
        finally:
            self._syncing = False

    def set_can_run(self, can_run: bool) -> None:
        """Run again is offered only while nothing else runs."""
        self._can_run = can_run
        self._update_buttons()

    def _update_buttons(self) -> None:
        count = len(self.selected_ids())
        self.run_again.setEnabled(count == 1 and self._can_run)
        self.compare.setEnabled(count == 2)
        self.hint.setText({0: "Select an operation to show its flow; Ctrl+click a second one to compare.",
                           1: "Ctrl+click a second operation to compare the two."}.get(count, ""))

    def _run_again(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.runAgainRequested.emit(ids[0])

    def _compare(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 2:
            self.compareRequested.emit(ids[0], ids[1])
