"""The message log's Qt model: a translation of store events, nothing more.

Live traffic arrives a message at a time, so each add is one beginInsertRows. Opening a file is a
`cleared` followed by thousands of adds; answering each with an insert would make the view and the
proxy work per row, so after `cleared` the adds are gathered and applied with a single model reset
on the next turn of the event loop (or at once by `flush()`).

Past `BATCH_ABOVE` rows, live adds are gathered too, and inserted together every `BATCH_MS`: a
QTableView lays its vertical header out again after every insert, in time proportional to the row
count (about 25 ms at 100,000 rows), so one insert per message would stall a busy live trace.
"""

import bisect
import itertools
import operator
import time
from array import array
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QBrush, QColor

from ...studio.colour_rules import BoundRules
from ...trace import StoreEvent, TraceMessage, TraceStore
from ...trace.diagram_layout import STYLES, message_summary
from .. import colouring
from ..store_bridge import StoreBridge
from ..theme import readable

BATCH_ABOVE = 50_000
BATCH_MS = 100
COLUMNS = ("#", "time", "direction", "round", "method", "id", "kind", "summary", "findings")
MessageRole = Qt.ItemDataRole.UserRole + 1
_Index = QModelIndex | QPersistentModelIndex


_SEQ_OF = operator.attrgetter("seq")


class SeqRows:
    """Which row holds a message, by its seq. Rows come in ascending seq (a load is sorted, live
    messages are numbered on), so the seqs are kept as an array and found by bisection: a dict of a
    million took 70 MB, the array 8. A seq out of order (never seen, but cheap to survive) turns it
    into a dict."""

    def __init__(self, entries: Sequence[TraceMessage] = ()) -> None:
        self._seqs = array("q", map(_SEQ_OF, entries))
        self._count = len(self._seqs)
        self._dict: dict[int, int] | None = None
        if not all(map(operator.lt, self._seqs, itertools.islice(self._seqs, 1, None))):
            self._to_dict()

    def _to_dict(self) -> None:
        self._dict = {seq: row for row, seq in enumerate(self._seqs)}  # a later row wins, as a dict's did
        self._seqs = array("q")

    def append(self, seq: int) -> None:
        if self._dict is None and self._seqs and seq <= self._seqs[-1]:
            self._to_dict()
        if self._dict is not None:
            self._dict[seq] = self._count
        else:
            self._seqs.append(seq)
        self._count += 1

    def get(self, seq: int) -> int | None:
        if self._dict is not None:
            return self._dict.get(seq)
        row = bisect.bisect_left(self._seqs, seq)
        return row if row < len(self._seqs) and self._seqs[row] == seq else None


def findings_text(entry: TraceMessage) -> str:
    return "; ".join(f"{f.severity}: {f.rule}" for f in entry.findings)


class TraceMessageModel(QAbstractTableModel):
    def __init__(self, store: TraceStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.rows: list[TraceMessage] = list(store.messages)
        self._row_of = SeqRows(self.rows)
        self._search: dict[int, str] = {}
        self._pending: list[TraceMessage] | None = None  # gathered adds after `cleared`
        self._incoming: list[TraceMessage] = []  # live adds gathered on a big trace
        #: The colouring rules bound to the trace (ui/colour_links.py): a row's background and tooltip.
        self.colouring: BoundRules | None = None
        self._bridge = StoreBridge(store, self)
        self._bridge.storeEvent.connect(self._on_event)

    # --- store events -----------------------------------------------------------------------

    def _on_event(self, event: StoreEvent) -> None:
        if event.kind == "cleared":
            if self._pending is None:
                QTimer.singleShot(0, self.flush)
            self._pending = []
            self._incoming = []
        elif event.kind == "loaded":  # a file opened: everything at once, reset by the flush `cleared` set up
            self._pending = list(self.store.messages)
        elif event.kind == "message_added" and event.message is not None:
            if self._pending is not None:
                self._pending.append(event.message)
            elif self._incoming or len(self.rows) >= BATCH_ABOVE:
                if not self._incoming:
                    QTimer.singleShot(BATCH_MS, self.flush_incoming)
                self._incoming.append(event.message)
            else:
                self._insert(event.message)
        elif event.kind == "message_updated" and event.message is not None:
            row = self._row_of.get(event.message.seq)
            if row is not None and self._pending is None:
                self._search.pop(event.message.seq, None)
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def _insert(self, entry: TraceMessage) -> None:
        row = len(self.rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self.rows.append(entry)
        self._row_of.append(entry.seq)
        self.endInsertRows()

    def flush_incoming(self) -> None:
        """Insert the gathered live adds (a big trace's) as one block of rows."""
        if not self._incoming or self._pending is not None:
            return
        batch, self._incoming = self._incoming, []
        first = len(self.rows)
        self.beginInsertRows(QModelIndex(), first, first + len(batch) - 1)
        for entry in batch:
            self.rows.append(entry)
            self._row_of.append(entry.seq)
        self.endInsertRows()

    def flush(self) -> None:
        """Apply a pending load (everything after `cleared`) with one model reset."""
        if self._pending is None:
            return
        pending, self._pending = self._pending, None
        self.beginResetModel()
        self.rows = pending
        self._row_of = SeqRows(pending)
        self._search.clear()
        self.endResetModel()

    # --- reading ----------------------------------------------------------------------------

    def message_at(self, row: int) -> TraceMessage:
        return self.rows[row]

    def row_of(self, seq: int) -> int | None:
        row = self._row_of.get(seq)
        if row is None and self._incoming:  # asked for a message still gathered: show it now
            self.flush_incoming()
            row = self._row_of.get(seq)
        return row

    def method_of(self, entry: TraceMessage) -> str:
        return entry.method_name or ""

    def search_text(self, row: int) -> str:
        """Lower-cased text the free-text filter matches, computed once per row on demand."""
        return self.search_text_of(self.rows[row])

    def search_text_of(self, entry: TraceMessage) -> str:
        """`search_text` of a message (the filter's worker thread reads it by message, not row)."""
        text = self._search.get(entry.seq)
        if text is None:
            text = " ".join((str(entry.seq), self.method_of(entry), str(entry.jsonrpc_id), entry.kind,
                             entry.operation_id, message_summary(entry), findings_text(entry))).lower()
            self._search[entry.seq] = text
        return text

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        entry = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(entry, index.column())
        if role == MessageRole:
            return entry
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 6:
            return QBrush(readable(QColor(STYLES.get(entry.kind, STYLES["invalid"]).colour)))
        if role == Qt.ItemDataRole.BackgroundRole and self.colouring is not None:
            return colouring.background(self.colouring.rule_for(entry))
        if role == Qt.ItemDataRole.ToolTipRole:
            findings = "\n".join(f"{f.severity} {f.rule}: {f.message}" for f in entry.findings) \
                if index.column() == 8 and entry.findings else None
            return colouring.tooltip(self.colouring.rule_for(entry), findings) if self.colouring else findings
        return None

    def _display(self, entry: TraceMessage, column: int) -> Any:
        if column == 0:
            return entry.seq
        if column == 1:
            millis = int(entry.timestamp % 1 * 1000)
            return time.strftime("%H:%M:%S", time.localtime(entry.timestamp)) + f".{millis:03d}"
        if column == 2:
            return "→ server" if entry.direction == "client->server" else "← server"
        if column == 3:
            return entry.round
        if column == 4:
            return self.method_of(entry)
        if column == 5:
            return "" if entry.jsonrpc_id is None else str(entry.jsonrpc_id)
        if column == 6:
            return entry.kind
        if column == 7:
            return message_summary(entry)
        return findings_text(entry)
