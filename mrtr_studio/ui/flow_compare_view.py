"""Two flows side by side: their diagrams, then a table whose rows pair a message of each with the
rows that differ marked, and for the picked row the fields that differ (path, left value, right value).
Picking a row selects its two messages in the two diagrams.

The marks are a "≠" sign as well as a colour, so they read without colour too.
"""

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QLabel,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..studio.flow_compare import MessagePair, compare_flows
from ..trace import TraceMessage, TraceStore
from ..trace.diagram_layout import message_summary
from . import theme
from .diagram import SequenceDiagramView
from .selection import Selection

DIFFERS = "≠"


def _describe(entry: TraceMessage | None) -> str:
    if entry is None:
        return "(no message)"
    arrow = "→" if entry.direction == "client->server" else "←"
    return f"{arrow} {entry.kind}: {message_summary(entry)}"


def _short(value: Any) -> str:
    """At most 200 characters, cut in the middle: two requestStates share their start (version,
    header) and differ towards the end (payload, signature), so both ends must stay in view."""
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 200 else text[:99] + "…" + text[-100:]


class FlowCompareView(QDialog):
    def __init__(self, store: TraceStore, left_id: str, right_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("flowCompare")
        left, right = store.operation(left_id), store.operation(right_id)
        self.setWindowTitle(f"Compare {left.target} ({left_id}) with {right.target} ({right_id})")
        self.pairs: list[MessagePair] = compare_flows(store.messages_of(left_id), store.messages_of(right_id))
        differing = sum(pair.differs for pair in self.pairs)
        self.summary = QLabel(f"{differing} of {len(self.pairs)} message(s) differ ({DIFFERS} marks them); "
                              "pick a row to see the fields that differ. The JSON-RPC id is not compared; "
                              "a requestState differs in every run (it carries its own time and nonce).")
        self.summary.setWordWrap(True)
        self.flows = QTreeWidget()
        self.flows.setObjectName("compareFlows")
        self.flows.setRootIsDecorated(False)
        self.flows.setAlternatingRowColors(True)
        self.flows.setHeaderLabels(["", "round", f"{left.target} · {left_id}", f"{right.target} · {right_id}"])
        self.flows.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        mark = QBrush(QColor("#5a4a1a" if theme.is_dark() else "#fff3c4"))
        for pair in self.pairs:
            entry = pair.left or pair.right
            item = QTreeWidgetItem([DIFFERS if pair.differs else "", str(entry.round if entry else ""),
                                    _describe(pair.left), _describe(pair.right)])
            item.setToolTip(2, item.text(2))
            item.setToolTip(3, item.text(3))
            if pair.differs:
                for column in range(4):
                    item.setBackground(column, mark)
                item.setToolTip(0, f"{len(pair.differences)} field(s) differ" if pair.differences
                                else "only one flow has this message")
            self.flows.addTopLevelItem(item)
        header = self.flows.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.fields = QTreeWidget()
        self.fields.setObjectName("compareFields")
        self.fields.setRootIsDecorated(False)
        self.fields.setHeaderLabels(["field", "change", "left", "right"])
        fields = self.fields.header()
        fields.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        fields.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        fields.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        fields.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.fields.setColumnWidth(0, 260)
        self.fields.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # the differing ends stay visible
        self.selections = (Selection(self), Selection(self))
        self.diagrams = (SequenceDiagramView(store, self.selections[0]), SequenceDiagramView(store, self.selections[1]))
        side_by_side = QSplitter(Qt.Orientation.Horizontal)
        for selection, diagram, operation_id in zip(self.selections, self.diagrams, (left_id, right_id), strict=True):
            selection.select_operation(operation_id)
            side_by_side.addWidget(diagram)
        self.flows.currentItemChanged.connect(lambda *_: self._show_fields())
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(side_by_side)
        splitter.addWidget(self.flows)
        splitter.addWidget(self.fields)
        splitter.setSizes([380, 200, 140])
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(splitter, 1)
        first = next((i for i, pair in enumerate(self.pairs) if pair.differs), 0)
        first_item = self.flows.topLevelItem(first)
        if first_item is not None:
            self.flows.setCurrentItem(first_item)

    def marked_rows(self) -> list[int]:
        """Rows carrying the "differs" mark, as the person sees them."""
        items = (self.flows.topLevelItem(i) for i in range(self.flows.topLevelItemCount()))
        return [i for i, item in enumerate(items) if item is not None and item.text(0) == DIFFERS]

    def _show_fields(self) -> None:
        self.fields.clear()
        current = self.flows.currentItem()
        row = self.flows.indexOfTopLevelItem(current) if current is not None else -1
        if not 0 <= row < len(self.pairs):
            return
        pair = self.pairs[row]
        for selection, entry in zip(self.selections, (pair.left, pair.right), strict=True):
            if entry is not None:
                selection.select(entry)
            else:
                selection.select_message(-1)
        if pair.left is None or pair.right is None:
            self.fields.addTopLevelItem(QTreeWidgetItem(["(whole message)", "only in one flow", "", ""]))
            return
        for difference in pair.differences:
            left = "" if difference.kind == "added" else _short(difference.left)
            right = "" if difference.kind == "removed" else _short(difference.right)
            item = QTreeWidgetItem([difference.dotted, difference.kind, left, right])
            for column in range(4):
                item.setToolTip(column, item.text(column))
            self.fields.addTopLevelItem(item)
        if not pair.differences:
            self.fields.addTopLevelItem(QTreeWidgetItem(["(no difference)", "", "", ""]))
