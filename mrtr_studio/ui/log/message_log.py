"""The message log dock: a filter bar over a table of every message, synced with the Selection."""

from PySide6.QtCore import QItemSelectionModel, QModelIndex
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ...trace import TraceStore
from ..filter_bar import FilterBar
from ..selection import Selection
from ..tables import fixed_row_table
from .filter_proxy import TraceFilterProxy
from .message_model import COLUMNS, TraceMessageModel

_WIDTHS = {"#": 56, "time": 96, "direction": 76, "round": 48, "method": 130, "id": 48, "kind": 110,
           "summary": 320}
_FINDINGS = (("All findings", ""), ("With findings", "any"), ("Errors", "error"), ("Warnings", "warning"),
             ("Info", "info"))


class MessageLogView(QWidget):
    def __init__(self, store: TraceStore, selection: Selection, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.selection = selection
        self.model = TraceMessageModel(store, self)
        self.proxy = TraceFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.filtered.connect(lambda: self._show_message(self.selection.message_seq))
        self._syncing = False
        self._build()
        self.model.rowsInserted.connect(self._on_rows_inserted)
        self.model.modelReset.connect(self._refresh_choices)
        selection.messageChanged.connect(self._show_message)
        selection.operationChanged.connect(self._on_operation)
        self._refresh_choices()

    def _build(self) -> None:
        self.method_box = QComboBox()
        self.method_box.addItem("All methods", "")
        self.direction_box = QComboBox()
        for text, value in (("Both directions", ""), ("client → server", "client->server"),
                            ("server → client", "server->client")):
            self.direction_box.addItem(text, value)
        self.only_operation = QCheckBox("Selected operation only")
        self.finding_box = QComboBox()
        for text, value in _FINDINGS:
            self.finding_box.addItem(text, value)
        self.text_edit = QLineEdit()
        self.text_edit.setPlaceholderText("Filter text (method, id, summary, operation)…")
        self.text_edit.setClearButtonEnabled(True)
        for box in (self.method_box, self.direction_box, self.finding_box):
            box.currentIndexChanged.connect(self._apply_filters)
        self.only_operation.toggled.connect(self._apply_filters)
        self.text_edit.textChanged.connect(self._apply_filters)

        self.filter_bar = FilterBar(self.store)  # the filter language; the boxes below narrow further
        self.filter_bar.changed.connect(self._apply_filters)
        self.table = fixed_row_table(self.proxy, COLUMNS, _WIDTHS, 120, QAbstractItemView.SelectionMode.SingleSelection)
        self.table.selectionModel().currentRowChanged.connect(self._on_current)

        bar = QHBoxLayout()
        for widget in (self.method_box, self.direction_box, self.finding_box, self.only_operation):
            bar.addWidget(widget)
        bar.addWidget(self.text_edit, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.filter_bar)
        layout.addLayout(bar)
        layout.addWidget(self.table)

    # --- filters ----------------------------------------------------------------------------

    def _apply_filters(self) -> None:
        self.proxy.set_filter(
            method=self.method_box.currentData() or "",
            direction=self.direction_box.currentData() or "",
            finding=self.finding_box.currentData() or "",
            operation=self.selection.operation_id if self.only_operation.isChecked() else "",
            text=self.text_edit.text(),
            bound=self.filter_bar.bound(),
        )  # the selection is shown again once the matching rows are in (`filtered`)

    def _on_operation(self, _operation_id: str) -> None:
        if self.only_operation.isChecked():
            self._apply_filters()

    def _refresh_choices(self, first: int = 0) -> None:
        """Offer every method and lint rule seen so far (only rows from `first` on are new)."""
        methods = {self.method_box.itemData(i) for i in range(self.method_box.count())}
        rules = {self.finding_box.itemData(i) for i in range(self.finding_box.count())}
        for entry in self.model.rows[first:]:
            method = self.model.method_of(entry)
            if method and method not in methods:
                methods.add(method)
                self.method_box.addItem(method, method)
            for finding in entry.findings:
                if "rule:" + finding.rule not in rules:
                    rules.add("rule:" + finding.rule)
                    self.finding_box.addItem("rule " + finding.rule, "rule:" + finding.rule)

    def _on_rows_inserted(self, _parent: QModelIndex, first: int, _last: int) -> None:
        self._refresh_choices(first)
        bar = self.table.verticalScrollBar()
        if bar.value() >= bar.maximum() - 2:  # following the tail: keep the newest row in view
            self.table.scrollToBottom()

    # --- selection --------------------------------------------------------------------------

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        entry = self.model.message_at(self.proxy.mapToSource(current).row())
        self.selection.select(entry)

    def _show_message(self, seq: int) -> None:
        row = self.model.row_of(seq) if seq >= 0 else None
        index = self.proxy.mapFromSource(self.model.index(row, 0)) if row is not None else QModelIndex()
        self._syncing = True
        try:
            if index.isValid():
                flags = (QItemSelectionModel.SelectionFlag.ClearAndSelect
                         | QItemSelectionModel.SelectionFlag.Rows)
                self.table.selectionModel().setCurrentIndex(index, flags)
                self.table.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
            else:
                self.table.selectionModel().clearSelection()
        finally:
            self._syncing = False

    def current_message_seq(self) -> int:
        index = self.table.currentIndex()
        if not index.isValid():
            return -1
        return self.model.message_at(self.proxy.mapToSource(index).row()).seq

