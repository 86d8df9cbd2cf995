"""The requestState inspector: the selected message's state field by field, every check, the TTL, the diff.

The analysis lives in studio.state_analysis (Qt-free); this widget only shows it, ticks the countdown
once a second, and offers tamper actions that edit the studio's held retry through client.tamper.
The seven checks are always all visible (the table is as tall as its rows, never scrolled) with the
failed one marked by a symbol, bold text and the selection, not by colour alone; the payload and the
round-to-round diff share the rest of the height in a splitter, each field named by its meaning.

A state in another format (an SDK's, a JWT, an opaque one) shows its detected format and that
format's checks (pass, fail or cannot-check, with why); the key that opens it is asked once per
server and remembered in the OS keyring (studio.state_keys), never in settings.
"""

import json
import time
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QLabel,
    QMenu,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..client import tamper
from ..engine.state_token import CHECKS, StateRejected, decode
from ..studio.state_analysis import StateView, analyse, check_label, field_label, first_difference, ttl_left
from ..studio.state_keys import StateKeys
from ..trace import StoreEvent, TraceStore
from ..trace.diagram_layout import request_state_of
from .foreign_state_view import ForeignStateMixin
from .selection import Selection
from .store_bridge import StoreBridge, message_by_seq
from .table_fit import fit_rows, scroll_into_view
from .tones import CHANGED, ERROR, MARKED_BACKGROUND, MARKED_TEXT, MUTED, PASS, Tone, color_style, tone
from .trace_panel import TracePanel

_STATUS: dict[str, tuple[str, Tone]] = {"pass": ("✔ pass", PASS), "fail": ("✖ fail", ERROR),
                                        "unknown": ("? unknown", MUTED), "cannot-check": ("? cannot check", MUTED)}
NAME_ROLE = Qt.ItemDataRole.UserRole
FAILED_MARK = "▶ "
CHANGED_MARK = "≠ "


def field_text(name: str, value: Any) -> str:
    """A payload field for people: times as local dates, nested values as compact JSON."""
    if name in ("iat", "exp") and isinstance(value, int | float):  # the unix seconds are in the tooltip
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(value))
    if value is None:
        return "—"
    if value == "":
        return '"" (empty)'
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def countdown_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds <= 0:
        return f"EXPIRED {int(-seconds)} s ago"
    return f"expires in {int(seconds) // 60}:{int(seconds) % 60:02d}"


def _table(headers: list[str], *stretch: int) -> QTableWidget:
    """One line per row (long values elided in the middle, whole in the tooltip), sized to contents."""
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setWordWrap(False)
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    header = table.horizontalHeader()
    for column in range(len(headers)):
        mode = QHeaderView.ResizeMode.Stretch if column in stretch else QHeaderView.ResizeMode.ResizeToContents
        header.setSectionResizeMode(column, mode)
    header.setHighlightSections(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
    return table


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


class StateInspector(ForeignStateMixin, TracePanel):
    studioEvent = Signal(object)  # re-posts the controller's events onto the GUI thread

    def __init__(self, store: TraceStore, selection: Selection, studio: Any = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(store, selection, parent)
        self.studio = studio
        self.view: StateView | None = None
        self._state_keys: StateKeys | None = getattr(studio, "state_keys", None)
        self.header = QLabel("Select an input_required result or a retry to inspect its requestState.")
        self.header.setWordWrap(True)
        self.ttl_label = QLabel("")
        big = QFont()
        big.setPointSize(big.pointSize() + 2)
        big.setBold(True)
        self.ttl_label.setFont(big)
        self.rejection_label = QLabel("")
        self.rejection_label.setStyleSheet(color_style(ERROR, self, "font-weight: bold;"))
        self.rejection_label.setWordWrap(True)
        self.checks_table = _table(["check", "status", "why"], 2)
        self.checks_table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # The reasons wrap rather than elide: a narrow panel shows each check's whole "why" on more lines.
        self.checks_table.setWordWrap(True)
        self.checks_table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.checks_table.horizontalHeader().sectionResized.connect(lambda *_: self._fit_checks())
        self.checks_table.viewport().installEventFilter(self)  # a stretched column resizes with the viewport
        self.checks_table.setAccessibleName("requestState checks")
        self.failed_label = QLabel("")  # the failed checks' reasons in full (the table elides them)
        self.failed_label.setObjectName("failedChecks")
        self.failed_label.setWordWrap(True)
        self.failed_label.setStyleSheet(color_style(ERROR, self))
        self.payload_table = _table(["field", "value"], 1)
        self.payload_table.setAccessibleName("requestState payload")
        self.diff_label = QLabel("")
        self.diff_label.setWordWrap(True)
        self.diff_table = _table(["field", "before", "after"], 1, 2)
        self.diff_table.setAccessibleName("Differences from the compared state")
        # Whole values, wrapped: two timestamps elided in the middle looked alike before and after.
        self.diff_table.setWordWrap(True)
        self.diff_table.setTextElideMode(Qt.TextElideMode.ElideNone)
        for table in (self.payload_table, self.diff_table):
            table.viewport().installEventFilter(self)  # refitted when a column's width changes
        self.tamper_status = QLabel("")
        self.tamper_status.setWordWrap(True)
        self._build_tamper_menu()
        self.key_button = QToolButton()
        self.key_button.setText("Key for this server…")
        self.key_button.setToolTip("The key that opens this server's states (hex:…, base64:… or text), "
                                   "remembered in the OS keyring, never in settings")
        self.key_button.clicked.connect(self.ask_server_key)
        self.key_button.setVisible(False)
        payload_box, self.payload_heading = self._section("Payload", self.payload_table)
        diff_box, _ = self._section(None, self.diff_table, self.diff_label)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(payload_box)
        self.split.addWidget(diff_box)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        # In a panel shorter than the checks plus a few payload rows the whole inspector scrolls,
        # rather than squeezing the checklist or drawing sections over each other.
        self.content = QWidget()
        box = QVBoxLayout(self.content)
        box.setContentsMargins(2, 2, 2, 2)
        for widget in (self.header, self.key_button, self.ttl_label, self.rejection_label, _heading("Checks"),
                       self.checks_table, self.failed_label):
            box.addWidget(widget)
        box.addWidget(self.split, 1)
        box.addWidget(self.tamper_button)
        box.addWidget(self.tamper_status)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(self.content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll_area)
        self._fill_checks([(name, "unknown", "") for name in CHECKS], None)
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

    @staticmethod
    def _section(title: str | None, table: QTableWidget, label: QLabel | None = None) -> tuple[QWidget, QLabel]:
        widget = QWidget()
        column = QVBoxLayout(widget)
        column.setContentsMargins(0, 2, 0, 0)
        heading = label if label is not None else _heading(title or "")
        column.addWidget(heading)
        column.addWidget(table, 1)
        table.setMinimumHeight(table.horizontalHeader().sizeHint().height() + 2 * table.fontMetrics().height())
        return widget, heading

    # --- showing ----------------------------------------------------------------------------

    def _on_store(self, event: StoreEvent) -> None:
        if event.kind == "cleared":
            self.show_seq(-1)
        elif event.kind == "message_added" and self.view is not None and event.message is not None \
                and event.message.operation_id == self.view.entry.operation_id:
            self.show_seq(self.view.entry.seq)  # the server's verdict on this state may just have arrived

    def show_seq(self, seq: int) -> None:
        entry = message_by_seq(self.store, seq) if seq >= 0 else None
        keys = self._state_keys
        self.view = analyse(self.store, entry, self.studio, keys) if entry is not None else None
        self._render()

    def _render(self) -> None:
        view = self.view
        for table in (self.payload_table, self.diff_table):
            table.setRowCount(0)
        self.rejection_label.setText("")
        self.diff_label.setText("No earlier state to compare with.")
        self.key_button.setVisible(view is not None and not view.embedded)
        if view is None:
            self.header.setText("Select an input_required result or a retry to inspect its requestState.")
            self.ttl_label.setText("")
            self._fill_checks([(name, "unknown", "no requestState selected") for name in CHECKS], None)
            self.failed_label.setText("")
            self.failed_label.setVisible(False)
            self._fit_tables()
            self.timer.stop()
            self._update_tamper_enabled()
            return
        where = "minted by the server in" if view.entry.kind == "input_required" else "echoed by the client in"
        if view.decoded is not None:
            self._render_foreign(view, where)
            return
        self.header.setText(f"#{view.entry.seq}: requestState {where} round {view.entry.round} "
                            f"({'embedded engine' if view.embedded else 'external server'}) — "
                            f"verdict: {view.inspection.verdict}")
        for name, value in (view.inspection.payload or {}).items():
            label, why = field_label(name)
            raw = json.dumps(value, ensure_ascii=False)[:2000]
            self._add_row(self.payload_table, [label, field_text(name, value)], tooltip=f"{why}\nAs sent: {raw}")
        if view.inspection.payload is None:
            self.payload_heading.setText("Payload (does not decode: see the shape check)")
        else:
            self.payload_heading.setText("Payload")
        failed = view.rejected or next((c.name for c in view.inspection.checks if c.status == "fail"), None)
        self._fill_checks([(c.name, c.status, c.why) for c in view.inspection.checks], failed)
        # in full what the table elides, except the check the rejection line above already explains
        self.failed_label.setText("\n".join(f"\u2716 {check_label(c.name)[0]}: {c.why}"
                                             for c in view.inspection.checks
                                             if c.status == "fail" and c.name != view.rejected))
        self.failed_label.setVisible(bool(self.failed_label.text()))
        if view.rejected:
            self.rejection_label.setText(f"The server rejected this state: -32602 Invalid requestState, "
                                         f"reason {view.rejected!r} ({view.rejection_detail})")
        if view.diff:
            self._fill_diff(view)
        self._fit_tables()
        self.tick()
        self.timer.start()
        self._update_tamper_enabled()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.checks_table.viewport():
            QTimer.singleShot(0, self._fit_checks)  # after the header has stretched its last column
        elif event.type() == QEvent.Type.Resize and watched in (self.payload_table.viewport(),
                                                                 self.diff_table.viewport()):
            QTimer.singleShot(0, self._fit_tables)
        return super().eventFilter(watched, event)

    def _fit_checks(self) -> None:
        """Rows as tall as their wrapped reasons, the table as tall as its rows (it never scrolls)."""
        fit_rows(self.checks_table)

    def _fit_tables(self) -> None:
        """Payload and diff sized to their rows: inside the scrolling inspector they never scroll themselves."""
        for table in (self.payload_table, self.diff_table):
            fit_rows(table)

    def _show_marked(self) -> None:
        """The failed check in view, however far down the inspector was scrolled before."""
        table = self.checks_table
        row = table.currentRow()
        item = table.item(row, 0) if row >= 0 else None
        if item is not None and item.font().bold():
            scroll_into_view(table.viewport(), table.visualItemRect(item))

    def _fill_checks(self, checks: list[tuple[str, str, str]], failed: str | None) -> None:
        """All seven rows, the table exactly as tall as them; the failed one marked and scrolled to."""
        table = self.checks_table
        table.setRowCount(0)
        marked_row, marked_item = -1, None
        for name, status, why in checks:
            label, what = check_label(name)
            marked = name == failed
            text, status_tone = _STATUS.get(status, (status, MUTED))
            colour = tone(status_tone, self)
            row = self._add_row(table, [(FAILED_MARK if marked else "") + label, text, why], colour, bold=marked,
                                tooltip=f"{label}: {what}\n{text}: {why}" if what else why)
            first = table.item(row, 0)
            assert first is not None
            first.setData(NAME_ROLE, name)
            if marked:
                marked_row, marked_item = row, first
        self._fit_checks()
        if marked_item is not None:
            table.setCurrentCell(marked_row, 0)
            QTimer.singleShot(0, self, self._show_marked)  # once laid out: the inspector scrolls to it
        else:
            table.clearSelection()

    def _fill_diff(self, view: StateView) -> None:
        changed = []
        # what differs first, so it is in view without scrolling; the equal fields follow
        rows = sorted(view.diff, key=lambda row: row[1] == row[2])
        for name, before, after in rows:
            label, why = field_label(name)
            differs = before != after
            position = first_difference(before, after) if name in ("payload bytes", "signature") else None
            if differs:
                changed.append(label)
            tip = why + (f"\nFirst difference at character {position}." if position is not None else "")
            row = self._add_row(self.diff_table, [(CHANGED_MARK if differs else "  ") + label,
                                                  field_text(name, before), field_text(name, after)],
                                tone(CHANGED, self) if differs else None, bold=False, tooltip=tip)
            first = self.diff_table.item(row, 0)
            assert first is not None
            first.setData(NAME_ROLE, name)
        summary = ", ".join(changed) if changed else "nothing"
        self.diff_label.setText(f"Compared with {view.diff_against}: {len(changed)} of {len(view.diff)} "
                                f"differ ({summary})")
        font = self.diff_label.font()
        font.setBold(True)
        self.diff_label.setFont(font)

    def _add_row(self, table: QTableWidget, cells: list[str], colour: str | None = None, bold: bool = False,
                 tooltip: str = "") -> int:
        row = table.rowCount()
        table.insertRow(row)
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(f"{text}\n\n{tooltip}" if tooltip and column else tooltip or text)
            if colour and (column >= 1 or bold):
                item.setForeground(QBrush(QColor(colour)))
            if bold:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
                item.setBackground(QBrush(QColor(tone(MARKED_BACKGROUND, self))))
                item.setForeground(QBrush(QColor(tone(MARKED_TEXT, self))))
            table.setItem(row, column, item)
        return row

    def changeEvent(self, event: QEvent) -> None:
        """A light/dark switch re-renders: the colours are picked from the palette at render time."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "timer"):
            self.rejection_label.setStyleSheet(color_style(ERROR, self, "font-weight: bold;"))
            self.failed_label.setStyleSheet(color_style(ERROR, self))
            self._render()

    def tick(self) -> None:
        """Once a second: the live TTL on the engine's clock (which the studio can move ahead)."""
        seconds = ttl_left(self.view, self.studio) if self.view else None
        self.ttl_label.setText(countdown_text(seconds))
        self.ttl_label.setStyleSheet(color_style(ERROR, self) if seconds is not None and seconds <= 0 else "")

    def checklist(self) -> list[tuple[str, str, bool]]:
        """(check, status text, highlighted) as shown, for tests and screen readers."""
        rows = []
        for row in range(self.checks_table.rowCount()):
            item = self.checks_table.item(row, 0)
            rows.append((str(item.data(NAME_ROLE)), self.checks_table.item(row, 1).text(), item.font().bold()))
        return rows

    def changed_fields(self) -> list[str]:
        """The diff rows marked as changed, by payload key or token part."""
        return [str(self.diff_table.item(row, 0).data(NAME_ROLE)) for row in range(self.diff_table.rowCount())
                if self.diff_table.item(row, 0).text().startswith(CHANGED_MARK)]

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
