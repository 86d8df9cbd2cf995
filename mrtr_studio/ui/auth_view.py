"""The Auth view: every HTTP exchange of the OAuth flow, in order, as its own phase, with the spec's checks.

One row per exchange (protected resource metadata, authorization server metadata, registration, the
authorization redirect and response, token requests), its status and how many checks passed; the
checks are its children (✔ / ✖, with what was compared). Selecting a row shows the masked request and
response. The rows are the phases that come before the MRTR rounds they unlock: the flow runs when the
first round is refused with 401. Adapts `AuthLog` (Qt-free); tokens never reach it.
"""

import json
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..app.auth_log import AuthEntry, AuthLog
from ..auth.exchanges import Exchange
from . import tones
from .auth_client_panel import AuthClientPanel

#: The request (method and URL) and each check's comparison are in the tooltips and the detail pane below.
COLUMNS = ["Phase", "Status", "Checks"]


class _Bridge(QObject):
    added = Signal(object)


class AuthView(QWidget):
    """`current_url`: the HTTP server the studio talks to now (None: the embedded engine or stdio)."""

    def __init__(self, log: AuthLog, current_url: Callable[[], str | None] = lambda: None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("authView")
        self.log = log
        self.client = AuthClientPanel(log, current_url)
        self.summary = QLabel("No authorization yet: the flow runs when a server answers 401.")
        self.summary.setWordWrap(True)
        self.remember = QCheckBox("Remember tokens in the system keyring")
        self.remember.setObjectName("authRemember")
        self.remember.setToolTip("Off: tokens live in memory until the studio closes. On: the OS keyring keeps "
                                 "them for the next start (never the settings file, traces or exports).")
        self.remember.setChecked(log.remember)
        self.remember.toggled.connect(self._remember)
        self.tree = QTreeWidget()
        self.tree.setObjectName("authExchanges")
        self.tree.setHeaderLabels(COLUMNS)
        self.tree.setUniformRowHeights(True)
        self.tree.setMinimumWidth(200)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.tree.header()
        header.setStretchLastSection(False)
        for column, mode in enumerate((QHeaderView.ResizeMode.Stretch, QHeaderView.ResizeMode.ResizeToContents,
                                       QHeaderView.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(column, mode)
        self.detail = QPlainTextEdit()
        self.detail.setObjectName("authDetail")
        self.detail.setReadOnly(True)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(self.detail)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.client)
        layout.addWidget(self.remember)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self._exchanges: list[Exchange] = []
        self._bridge = _Bridge(self)
        self._bridge.added.connect(self._add, Qt.ConnectionType.QueuedConnection)
        self.tree.currentItemChanged.connect(lambda item, _old: self._show(item))
        for entry in log.entries:
            self._add(entry)
        self._unlisten = log.listen(self._bridge.added.emit)
        self.destroyed.connect(lambda *_: self._unlisten())

    def showEvent(self, event: QShowEvent) -> None:
        self.client.refresh()  # the server may have changed, a token expired, since last shown
        super().showEvent(event)

    def _add(self, entry: AuthEntry) -> None:
        self.client.refresh()
        exchange = entry.exchange
        self._exchanges.append(exchange)
        passed = sum(c.passed for c in exchange.checks)
        status = str(exchange.status) if exchange.status is not None else (exchange.error or "—")
        checks = f"{passed}/{len(exchange.checks)} ✔" if exchange.checks else ""
        if passed < len(exchange.checks):
            checks = f"✖ {len(exchange.checks) - passed} failed, {passed} passed"
        item = QTreeWidgetItem([exchange.phase, status, checks])
        item.setData(0, Qt.ItemDataRole.UserRole, len(self._exchanges) - 1)
        item.setToolTip(0, f"{exchange.method} {exchange.url}")
        for check in exchange.checks:
            mark = "✔" if check.passed else "✖"
            child = QTreeWidgetItem([f"{mark} {check.name}", "pass" if check.passed else "FAIL", ""])
            child.setToolTip(0, check.detail)
            child.setForeground(0, QBrush(QColor(tones.tone(tones.PASS if check.passed else tones.ERROR, self))))
            child.setData(0, Qt.ItemDataRole.UserRole, len(self._exchanges) - 1)
            item.addChild(child)
        self.tree.addTopLevelItem(item)
        item.setExpanded(True)
        failed = sum(not c.passed for e in self._exchanges for c in e.checks)
        total = sum(len(e.checks) for e in self._exchanges)
        notice = self.log.notice()
        self.summary.setText(f"{len(self._exchanges)} exchange(s) with {entry.server_url}'s authorization; "
                             f"{total - failed}/{total} check(s) passed" + (f", ✖ {failed} failed" if failed else "")
                             + (f". ⚠ {notice}" if notice else ""))

    def _remember(self, on: bool) -> None:
        """Applies to the flows made from now on (a server already authorized keeps its store)."""
        self.log.remember = on

    def _show(self, item: QTreeWidgetItem | None) -> None:
        if item is None:
            return
        index = item.data(0, Qt.ItemDataRole.UserRole)
        if isinstance(index, int) and 0 <= index < len(self._exchanges):
            self.detail.setPlainText(json.dumps(self._exchanges[index].as_dict(), indent=2, ensure_ascii=False))
