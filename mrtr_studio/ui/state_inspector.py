"""The requestState inspector: the selected message's state field by field, every check, the TTL, the diff.

The analysis lives in state_analysis (Qt-free); this widget only shows it, ticks the countdown once a
second, and offers tamper actions that edit the studio's held retry through client.tamper.
"""

import json
import time
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..app.state_analysis import StateView, analyse, ttl_left
from ..client import tamper
from ..engine.state_token import StateRejected, decode
from ..trace import StoreEvent, TraceStore
from ..trace.diagram_layout import request_state_of
from .selection import Selection
from .store_bridge import StoreBridge, message_by_seq

_STATUS = {"pass": ("✔ pass", "#1e7b34"), "fail": ("✖ fail", "#c0392b"), "unknown": ("? unknown", "#777777")}


def field_text(name: str, value: Any) -> str:
    """A payload field for people: times as local dates, nested values as compact JSON."""
    if name in ("iat", "exp") and isinstance(value, int | float):
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(value)) + f"  ({int(value)})"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def countdown_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds <= 0:
        return f"EXPIRED {int(-seconds)} s ago"
    return f"expires in {int(seconds) // 60}:{int(seconds) % 60:02d}"


def _table(headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setSectionResizeMode(len(headers) - 1, QHeaderView.ResizeMode.Stretch)
    table.setWordWrap(True)
    return table


class StateInspector(QWidget):
    studioEvent = Signal(object)  # re-posts the controller's events onto the GUI thread

    def __init__(self, store: TraceStore, selection: Selection, studio: Any = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.selection = selection
        self.studio = studio
        self.view: StateView | None = None
        self.header = QLabel("Select an input_required result or a retry to inspect its requestState.")
        self.header.setWordWrap(True)
        self.ttl_label = QLabel("")
        big = QFont()
        big.setPointSize(big.pointSize() + 2)
        big.setBold(True)
        self.ttl_label.setFont(big)
        self.rejection_label = QLabel("")
        self.rejection_label.setStyleSheet("color: #c0392b; font-weight: bold")
        self.rejection_label.setWordWrap(True)
        self.payload_table = _table(["field", "value"])
        self.checks_table = _table(["check", "status", "why"])
        self.diff_label = QLabel("")
        self.diff_table = _table(["field", "before", "after"])
        self.tamper_status = QLabel("")
        self.tamper_status.setWordWrap(True)
        self._build_tamper_menu()
        box = QVBoxLayout(self)
        box.setContentsMargins(2, 2, 2, 2)
        for widget in (self.header, self.ttl_label, self.rejection_label, QLabel("Payload"), self.payload_table,
                       QLabel("Checks"), self.checks_table, self.diff_label, self.diff_table, self.tamper_button,
                       self.tamper_status):
            box.addWidget(widget)
        self.timer = QTimer(self)
        self.timer.setInterval(1000)
        self.timer.timeout.connect(self.tick)
        self._bridge = StoreBridge(store, self)
        self._bridge.storeEvent.connect(self._on_store)
        selection.messageChanged.connect(self.show_seq)
        if studio is not None and hasattr(studio, "subscribe"):
            self.studioEvent.connect(lambda _event: self._update_tamper_enabled())
            unsubscribe = studio.subscribe(lambda event: self.studioEvent.emit(event))
            self.destroyed.connect(lambda *_: unsubscribe())
        self.show_seq(selection.message_seq)

    # --- showing ----------------------------------------------------------------------------

    def _on_store(self, event: StoreEvent) -> None:
        if event.kind == "cleared":
            self.show_seq(-1)
        elif event.kind == "message_added" and self.view is not None and event.message is not None \
                and event.message.operation_id == self.view.entry.operation_id:
            self.show_seq(self.view.entry.seq)  # the server's verdict on this state may just have arrived

    def show_seq(self, seq: int) -> None:
        entry = message_by_seq(self.store, seq) if seq >= 0 else None
        self.view = analyse(self.store, entry, self.studio) if entry is not None else None
        self._render()

    def _render(self) -> None:
        view = self.view
        for table in (self.payload_table, self.checks_table, self.diff_table):
            table.setRowCount(0)
        self.rejection_label.setText("")
        self.diff_label.setText("")
        if view is None:
            self.header.setText("Select an input_required result or a retry to inspect its requestState.")
            self.ttl_label.setText("")
            self.timer.stop()
            self._update_tamper_enabled()
            return
        where = "minted by the server in" if view.entry.kind == "input_required" else "echoed by the client in"
        self.header.setText(f"#{view.entry.seq}: requestState {where} round {view.entry.round} "
                            f"({'embedded engine' if view.embedded else 'external server'}) — "
                            f"verdict: {view.inspection.verdict}")
        for name, value in (view.inspection.payload or {}).items():
            self._add_row(self.payload_table, [name, field_text(name, value)])
        for check in view.inspection.checks:
            text, colour = _STATUS[check.status]
            self._add_row(self.checks_table, [check.name, text, check.why], colour,
                          bold=check.name == view.rejected)
        if view.rejected:
            self.rejection_label.setText(f"The server rejected this state: -32602 Invalid requestState, "
                                         f"reason {view.rejected!r} ({view.rejection_detail})")
        if view.diff:
            self.diff_label.setText(f"Compared with {view.diff_against}")
            for name, before, after in view.diff:
                self._add_row(self.diff_table, [("≠ " if before != after else "  ") + name,
                                                field_text(name, before), field_text(name, after)],
                              "#b26a00" if before != after else None)
        for table in (self.payload_table, self.checks_table, self.diff_table):
            table.resizeRowsToContents()
        self.tick()
        self.timer.start()
        self._update_tamper_enabled()

    @staticmethod
    def _add_row(table: QTableWidget, cells: list[str], colour: str | None = None, bold: bool = False) -> None:
        row = table.rowCount()
        table.insertRow(row)
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if colour and (column == 1 or bold):
                item.setForeground(QBrush(QColor(colour)))
            if bold:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
                item.setBackground(QBrush(QColor("#fde2e0")))
            table.setItem(row, column, item)

    def tick(self) -> None:
        """Once a second: the live TTL on the engine's clock (which the studio can move ahead)."""
        seconds = ttl_left(self.view, self.studio) if self.view else None
        self.ttl_label.setText(countdown_text(seconds))
        self.ttl_label.setStyleSheet("color: #c0392b" if seconds is not None and seconds <= 0 else "")

    def checklist(self) -> list[tuple[str, str, bool]]:
        """(check, status text, highlighted) as shown, for tests and screen readers."""
        rows = []
        for row in range(self.checks_table.rowCount()):
            item = self.checks_table.item(row, 0)
            rows.append((item.text(), self.checks_table.item(row, 1).text(), item.font().bold()))
        return rows

    # --- tampering --------------------------------------------------------------------------

    def _build_tamper_menu(self) -> None:
        self.tamper_button = QToolButton()
        self.tamper_button.setText("Tamper with the held retry")
        self.tamper_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.tamper_button)
        for title, function in tamper.SIMPLE_TAMPERS.items():
            menu.addAction(title).triggered.connect(lambda _=False, f=function: self.apply_tamper(f))
        menu.addAction("Swap in a state from another operation").triggered.connect(self.swap_from_other)
        menu.addSeparator()
        menu.addAction("Send as another identity (bob)").triggered.connect(self.as_other_identity)
        menu.addAction("Wait past expiry (advance the engine clock)").triggered.connect(self.wait_past_expiry)
        self.tamper_button.setMenu(menu)

    def held_message(self) -> dict[str, Any] | None:
        pending = getattr(self.studio, "pending", None) if self.studio is not None else None
        message = getattr(pending, "message", None)
        return message if isinstance(message, dict) and tamper.state_of(message) is not None else None

    def _update_tamper_enabled(self) -> None:
        held = self.held_message() is not None
        self.tamper_button.setEnabled(held)
        self.tamper_button.setToolTip("" if held else "Step a run until a retry carrying a requestState is held")

    def apply_tamper(self, function: Any, *args: Any) -> str:
        message = self.held_message()
        if message is None:
            return self._said("nothing to tamper with: no retry carrying a requestState is held")
        try:
            result: tamper.Tampered = function(message, *args)
        except ValueError as exc:
            return self._said(str(exc))
        self.studio.edit_pending(result.message)
        return self._said(result.description)

    def swap_from_other(self) -> str:
        held = getattr(getattr(self.studio, "pending", None), "operation_id", None)
        for entry in reversed(self.store.messages):
            token = request_state_of(entry)
            if token and entry.kind == "input_required" and entry.operation_id != held:
                return self.apply_tamper(tamper.swap_state, token, f"operation {entry.operation_id}")
        return self._said("no other operation has issued a requestState yet")

    def as_other_identity(self) -> str:
        if hasattr(self.studio, "tamper"):
            return self._said(str(self.studio.tamper("identity:bob")))
        if hasattr(self.studio, "set_identity"):
            self.studio.set_identity("bob")
            return self._said("identity set to bob")
        return self._said("the studio cannot change identity")

    def wait_past_expiry(self) -> str:
        if not hasattr(self.studio, "advance_clock"):
            return self._said("the studio cannot move the engine's clock")
        message = self.held_message()
        payload = analyse_payload(message) if message else None
        now = self.studio.engine_now() if hasattr(self.studio, "engine_now") else time.time()
        seconds = (payload["exp"] - now + 1) if payload else 601
        self.studio.advance_clock(max(seconds, 1))
        self.show_seq(self.selection.message_seq)
        return self._said(f"moved the engine's clock {int(max(seconds, 1))} s ahead")

    def _said(self, text: str) -> str:
        self.tamper_status.setText(text)
        return text


def analyse_payload(message: dict[str, Any]) -> dict[str, Any] | None:
    try:
        return decode(tamper.state_of(message)).payload
    except StateRejected:
        return None
