"""Filtering the log: the filter bar's expression, and the boxes beside it (method, direction, operation,
lint finding, free text), over an array of the matching source rows.

A QSortFilterProxyModel asks a Python callback about every row; at a million messages one keystroke
took seconds and froze the window. Here the matching rows are an `array` of source row numbers, found
by trace/filter_columns.py, and swapped in at once (a model reset; the log puts the selection back).
A small log (under `SYNC_BELOW` rows) is filtered at once, row by row. A big one is filtered on a worker
thread, so the window keeps answering: each new filter cancels the run before it (which stops at its
next block), and a filter that can only match fewer messages than the one before (a word typed longer,
a term added) tests only the rows that matched before. Live rows are tested one by one as they arrive.
"""

import bisect
import contextlib
from array import array
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QAbstractProxyModel, QModelIndex, QObject, QPersistentModelIndex, Signal

from ...trace.filter import BoundFilter
from ...trace.filter_columns import Cancelled, Columns, Condition, Selected, context_free, narrows, select
from ...trace.filter_syntax import Node
from ...trace.model import TraceMessage
from .message_model import TraceMessageModel

ANY = ""
#: Below this many rows the log filters at once, on the GUI thread.
SYNC_BELOW = 20_000
_Index = QModelIndex | QPersistentModelIndex
_CRITERIA = ("method", "direction", "operation", "finding", "text")


class TraceFilterProxy(QAbstractProxyModel):
    #: The matching rows were swapped in (the selection, if any, must be shown again).
    filtered = Signal()
    #: From the worker: (generation, Selected or None when cancelled).
    _finished = Signal(int, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.method = ANY
        self.direction = ANY  # "client->server" | "server->client"
        self.operation = ANY
        #: "" any; "any" messages with findings; "error"/"warning"/"info" a severity; "rule:NAME" a rule
        self.finding = ANY
        self.text = ANY
        #: The filter bar's expression (ui/filter_bar.py), bound to the trace; None: no expression.
        self.bound: BoundFilter | None = None
        #: None: every source row, in order (no filter); else the matching source rows, ascending.
        self._rows: array | None = None
        self._count = 0  # rows shown while unfiltered
        self._columns: Columns | None = None
        self._generation = 0
        self._running = 0  # the generation a worker is computing (0: none)
        self._last: tuple[Any, Selected] | None = None  # (criteria, result) of the last finished run
        self._executor: ThreadPoolExecutor | None = None
        self._prepared: Future[int] | None = None
        self._finished.connect(self._swap_in)

    # --- the criteria -----------------------------------------------------------------------

    def set_filter(self, bound: BoundFilter | object | None = ..., **criteria: str) -> None:
        """Change the expression (`bound`) and/or the boxes (method, direction, operation, finding,
        text), then filter again once."""
        unknown = set(criteria) - set(_CRITERIA)
        if unknown:
            raise ValueError(f"unknown filter {', '.join(sorted(unknown))}")
        if bound is not ...:
            self.bound = bound  # type: ignore[assignment]
        for name, value in criteria.items():
            setattr(self, name, value.lower() if name == "text" else value)
        self.refilter()

    def _criteria(self) -> tuple[Any, ...]:
        return (self.method, self.direction, self.operation, self.finding, self.text)

    def _filtering(self) -> bool:
        return self.bound is not None or any(self._criteria())

    def accepts(self, entry: TraceMessage, model: TraceMessageModel, row: int) -> bool:
        """Whether one source row passes: the expression, then each box."""
        if self.bound is not None and not self.bound.matches(entry):
            return False
        if self.direction and entry.direction != self.direction:
            return False
        if self.operation and entry.operation_id != self.operation:
            return False
        if self.method and model.method_of(entry) != self.method:
            return False
        if self.finding and not self._finding_matches(entry.findings):
            return False
        return not self.text or self.text in model.search_text(row)

    def _finding_matches(self, findings: list) -> bool:
        if self.finding == "any":
            return bool(findings)
        if self.finding.startswith("rule:"):
            return any(f.rule == self.finding[5:] for f in findings)
        return any(f.severity == self.finding for f in findings)

    def _conditions(self, model: TraceMessageModel) -> list[Condition]:
        conditions = [Condition(name, getattr(self, name)) for name in ("direction", "operation", "method")
                      if getattr(self, name)]
        if self.finding:
            conditions.append(Condition("finding", test=lambda m: self._finding_matches(m.findings)))
        if self.text:
            text = self.text
            conditions.append(Condition("text", test=lambda m: text in model.search_text_of(m)))
        return conditions

    # --- filtering --------------------------------------------------------------------------

    def refilter(self) -> None:
        """Find the matching rows again: at once for a small log, on the worker for a big one."""
        model = self._model()
        self._generation += 1
        if model is None:
            return
        if not self._filtering():
            self._last = None
            self._show(None)
            return
        if model.rowCount() < SYNC_BELOW:
            rows = array("I", (row for row, entry in enumerate(model.rows) if self.accepts(entry, model, row)))
            self._last = None
            self._show(rows)
            return
        self._start_worker(model)

    def _start_worker(self, model: TraceMessageModel) -> None:
        generation, criteria = self._generation, self._criteria()
        if self._columns is None or self._columns.messages is not model.rows:
            self._columns = Columns(model.rows)  # a new list after a reset: coded again, on the worker
        columns, bound, conditions = self._columns, self.bound, self._conditions(model)
        ast = bound.filter.ast if bound is not None else None
        key = (criteria, columns, ast)
        domain = self._domain(key, model.rowCount())
        def run() -> None:
            try:
                result = select(columns, bound, conditions, domain, lambda: self._generation != generation)
            except Cancelled:
                result = None
            with contextlib.suppress(RuntimeError):  # the log was closed meanwhile
                self._finished.emit(generation, (key, result))

        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="log-filter")
        self._running = generation
        self._executor.submit(run)

    def _domain(self, key: tuple[Any, Columns, Node | None], rows: int) -> bytes | None:
        """The rows the last run matched, when the new run can only match among them (and the rows
        that arrived since): the same boxes (or the text box's text grown around the last one), and an
        expression that narrows the last one over the same rows, or the same expression over more rows
        when no verdict on an old row can change with new ones (`duration:`, `state:` and `principal:`
        read other messages)."""
        if self._last is None:
            return None
        (criteria, columns, ast), result = self._last
        if columns is not key[1] or not _narrower_boxes(criteria, key[0]):
            return None
        new = key[2]
        if len(result.mask) == rows and (ast is None if new is None else narrows(ast, new)):
            return result.mask
        if ast is not None and new is not None and narrows(ast, new) and narrows(new, ast) \
                and context_free(new):
            return result.mask
        return None

    def prepare(self) -> None:
        """Code the columns of a big log ahead of the first filter (after a file opened), on the worker."""
        model = self._model()
        if model is None or model.rowCount() < SYNC_BELOW:
            return
        if self._columns is None or self._columns.messages is not model.rows:
            self._columns = Columns(model.rows)
        columns = self._columns
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="log-filter")
        self._prepared = self._executor.submit(columns.sync)

    def busy(self) -> bool:
        """A filter is being computed on the worker (the log still shows the one before)."""
        return self._running != 0

    def ready(self) -> bool:
        """Nothing on the worker: no filter being computed, the columns prepared."""
        return not self.busy() and (self._prepared is None or self._prepared.done())

    def _swap_in(self, generation: int, outcome: tuple[Any, Selected | None]) -> None:
        if generation != self._generation:
            return  # typed over: a newer run is on its way
        self._running = 0
        key, result = outcome
        if result is None:
            return
        self._last = (key, result)
        rows = result.rows
        model = self._model()
        if model is not None and len(result.mask) < model.rowCount():  # rows that arrived meanwhile
            rows = array("I", rows)
            rows.extend(row for row in range(len(result.mask), model.rowCount())
                        if self.accepts(model.rows[row], model, row))
        self._show(rows)

    def _show(self, rows: array | None) -> None:
        self.beginResetModel()
        self._rows = rows
        model = self._model()
        self._count = model.rowCount() if model is not None else 0
        self.endResetModel()
        self.filtered.emit()

    def shutdown(self) -> None:
        """Stop the worker (a run in progress is cancelled at its next block)."""
        self._generation += 1
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    # --- the source model -------------------------------------------------------------------

    def _model(self) -> TraceMessageModel | None:
        model = self.sourceModel()
        return model if isinstance(model, TraceMessageModel) else None

    def setSourceModel(self, model: Any) -> None:
        old = self.sourceModel()
        if old is not None:
            for signal, slot in self._connections(old):
                signal.disconnect(slot)
        self.beginResetModel()
        super().setSourceModel(model)
        self._columns = None
        self._last = None
        self._rows = None
        self._count = model.rowCount() if model is not None else 0
        self.endResetModel()
        if model is not None:
            for signal, slot in self._connections(model):
                signal.connect(slot)
            if self._filtering():
                self.refilter()

    def _connections(self, model: Any) -> list[tuple[Any, Callable[..., None]]]:
        return [(model.modelReset, self._source_reset), (model.rowsInserted, self._source_inserted),
                (model.dataChanged, self._source_changed)]

    def _source_reset(self) -> None:
        self._last = None
        self._columns = None  # the old rows' codes and text column (their messages' blocks) are let go
        if self._filtering():
            self._show(array("I"))  # nothing until the new contents are filtered
            self.refilter()
        else:
            self._show(None)
            self.prepare()

    def _source_inserted(self, _parent: _Index, first: int, last: int) -> None:
        model = self._model()
        if model is None:
            return
        if self._rows is None:
            self.beginInsertRows(QModelIndex(), self._count, self._count + last - first)
            self._count += last - first + 1
            self.endInsertRows()
            return
        if self._running:
            return  # the run on its way tests them when it lands
        matched = [row for row in range(first, last + 1) if self.accepts(model.rows[row], model, row)]
        if matched:
            start = len(self._rows)
            self.beginInsertRows(QModelIndex(), start, start + len(matched) - 1)
            self._rows.extend(matched)
            self.endInsertRows()

    def _source_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, roles: Any = ()) -> None:
        self._last = None  # a finding added: the last run's verdicts may not hold
        top, bottom = top_left.row(), bottom_right.row()
        if self._rows is None:  # everything shown: the rows are the source's own
            first, last = top, min(bottom, self._count - 1)
        else:  # the shown rows within the changed range, even when its ends are filtered out
            first, last = bisect.bisect_left(self._rows, top), bisect.bisect_right(self._rows, bottom) - 1
        if 0 <= first <= last:
            self.dataChanged.emit(self.index(first, top_left.column()), self.index(last, bottom_right.column()))

    # --- QAbstractProxyModel ----------------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        if parent.isValid():
            return 0
        return self._count if self._rows is None else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        model = self.sourceModel()
        return 0 if parent.isValid() or model is None else model.columnCount()

    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:
        if parent.isValid() or not (0 <= row < self.rowCount()) or not (0 <= column < self.columnCount()):
            return QModelIndex()
        return self.createIndex(row, column)

    def parent(self, child: _Index | None = None) -> Any:
        if child is None:
            return super().parent()  # QObject.parent()
        return QModelIndex()

    def mapToSource(self, proxy: _Index) -> QModelIndex:
        model = self.sourceModel()
        if model is None or not proxy.isValid():
            return QModelIndex()
        row = proxy.row() if self._rows is None else self._rows[proxy.row()]
        return model.index(row, proxy.column())

    def mapFromSource(self, source: _Index) -> QModelIndex:
        if not source.isValid():
            return QModelIndex()
        row = source.row()
        if self._rows is not None:
            at = bisect.bisect_left(self._rows, row)
            if at >= len(self._rows) or self._rows[at] != row:
                return QModelIndex()
            row = at
        elif row >= self._count:
            return QModelIndex()
        return self.createIndex(row, source.column())


def _narrower_boxes(old: tuple[Any, ...], new: tuple[Any, ...]) -> bool:
    """The same boxes, or the same but for a text that holds the last one (typing on: a message with
    the new text has the old one, so only the last matches can match)."""
    return old[:-1] == new[:-1] and old[-1] in new[-1]
