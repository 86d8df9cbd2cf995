"""The selected message as JSON: a collapsible tree to find things, the raw text to copy them.

The key column is sized to the keys it shows (never cutting "requestedSchema" to "requested…"),
up to KEY_SHARE of the width so values stay readable; the divider drags, and every key and value
carries its whole text (and the key's JSON path) in a tooltip.
"""

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..trace import StoreEvent, TraceMessage, TraceStore
from .selection import Selection
from .store_bridge import StoreBridge, message_by_seq
from .trace_panel import TracePanel

_AUTO_EXPAND = 200  # expand everything for small messages; big ones open one level deep
KEY_SHARE = 0.6  # the key column takes at most this share of the tree's width when sized automatically
TOOLTIP_CHARS = 2000


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def fill_tree(parent: QTreeWidgetItem, value: Any, path: str = "") -> None:
    """Children for a dict or list; scalars are shown in the value column of their key."""
    pairs = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in pairs:
        summary = _summary(child)
        where = f"{path}[{key}]" if isinstance(value, list) else f"{path}.{key}" if path else str(key)
        item = QTreeWidgetItem(parent, [str(key), summary])
        item.setToolTip(0, where)
        item.setToolTip(1, summary if len(summary) <= TOOLTIP_CHARS else summary[:TOOLTIP_CHARS] + "…")
        if isinstance(child, dict | list):
            fill_tree(item, child, where)


def _summary(value: Any) -> str:
    if isinstance(value, dict):
        return f"{{{len(value)}}}"
    if isinstance(value, list):
        return f"[{len(value)}]"
    return _scalar(value)


class JsonInspector(TracePanel):
    def __init__(self, store: TraceStore, selection: Selection, parent: QWidget | None = None) -> None:
        super().__init__(store, selection, parent)
        self.entry: TraceMessage | None = None
        self.header = QLabel("No message selected")
        self.header.setObjectName("jsonHeader")
        # Wrapped, the header's width never sets the inspector's minimum: a long
        # "#12 · server->client · notification · round 3" wraps in a narrow column instead of
        # pushing a horizontal scroll bar onto the whole tab.
        self.header.setWordWrap(True)
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.tree = QTreeWidget()
        self.tree.setAccessibleName("Message as a tree")
        self.tree.setHeaderLabels(["key", "value"])
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.tree.header().setStretchLastSection(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # "io.model…/clientInfo": both ends tell
        self.tree.expanded.connect(lambda _index: self.fit_keys())
        self.raw = QPlainTextEdit()
        self.raw.setReadOnly(True)
        self.raw.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.copy_button = QPushButton("Copy")
        self.copy_button.setToolTip("Copy the message's pretty-printed JSON")
        self.copy_button.clicked.connect(self.copy)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.tree, "Tree")
        self.tabs.addTab(self.raw, "Raw")
        top = QHBoxLayout()
        top.addWidget(self.header, 1)
        top.addWidget(self.copy_button)
        box = QVBoxLayout(self)
        box.setContentsMargins(2, 2, 2, 2)
        box.addLayout(top)
        box.addWidget(self.tabs)
        self._bridge = StoreBridge(store, self)
        self._bridge.storeEvent.connect(self._on_event)
        selection.messageChanged.connect(self.show_seq)
        self.show_seq(selection.message_seq)

    def _on_event(self, event: StoreEvent) -> None:
        if event.kind == "cleared":
            self.show_message(None)
        elif event.kind == "message_updated" and event.message is self.entry:
            self.show_message(self.entry)

    def show_seq(self, seq: int) -> None:
        self.show_message(message_by_seq(self.store, seq) if seq >= 0 else None)

    def show_message(self, entry: TraceMessage | None) -> None:
        self.entry = entry
        self.tree.clear()
        self.copy_button.setEnabled(entry is not None)
        if entry is None:
            self.header.setText("No message selected")
            self.raw.setPlainText("")
            return
        self.header.setText(f"#{entry.seq} · {entry.direction} · {entry.kind} · round {entry.round}")
        self.raw.setPlainText(self.pretty_text())
        root = self.tree.invisibleRootItem()
        if isinstance(entry.message, dict | list):
            fill_tree(root, entry.message)
        else:
            QTreeWidgetItem(root, ["(value)", _scalar(entry.message)])
        if len(self.raw.toPlainText()) < _AUTO_EXPAND * 40:
            self.tree.expandAll()
        else:
            self.tree.expandToDepth(0)
        self.fit_keys()

    def fit_keys(self) -> None:
        """Widen the key column to the widest visible key, within KEY_SHARE of the width."""
        wanted = self.tree.sizeHintForColumn(0) + self.tree.indentation() // 2
        limit = max(120, int(self.tree.viewport().width() * KEY_SHARE))
        self.tree.setColumnWidth(0, max(60, min(wanted, limit)))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_keys()

    def pretty_text(self) -> str:
        if self.entry is None:
            return ""
        return json.dumps(self.entry.message, indent=2, ensure_ascii=False, default=str)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.pretty_text())
