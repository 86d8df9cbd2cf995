"""The Auth view: every HTTP exchange of the OAuth flow, in order, as its own phase, with the spec's checks.

One row per exchange (protected resource metadata, authorization server metadata, registration, the
authorization redirect and response, token requests), its status and how many checks passed; the
checks are its children (✔ / ✖, with what was compared). Selecting a row shows the masked request and
response. The rows are the phases that come before the MRTR rounds they unlock: the flow runs when the
first round is refused with 401. Adapts `AuthLog` (Qt-free); tokens never reach it.
"""

import itertools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..studio.auth_log import KEPT, AuthEntry, AuthLog
from . import tones
from .auth_client_panel import AuthClientPanel

if TYPE_CHECKING:
    from ..auth.exchanges import Exchange

#: The request (method and URL) and each check's comparison are in the tooltips and the detail pane below.
COLUMNS = ["Phase", "Status", "Checks"]


class _Bridge(QObject):
    added = Signal(object)
    browser = Signal(str, object, bool)


class AuthView(QWidget):
    """`current_url`: the HTTP server the studio talks to now (None: the embedded engine or stdio).
    `waiting(server_url)` says a sign-in waits in the browser (the window brings this view forward)."""

    waiting = Signal(str)

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
        self.tree.setAccessibleName("Authorization exchanges")
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
        self.detail.setAccessibleName("Exchange detail")
        self.detail.setReadOnly(True)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(self.detail)
        self.sign_in = QLabel()
        self.sign_in.setObjectName("authSignIn")
        self.sign_in.setWordWrap(True)
        self.sign_in_link = QLineEdit()  # a URL has no place to wrap: it scrolls inside its field
        self.sign_in_link.setObjectName("authSignInLink")
        self.sign_in_link.setReadOnly(True)
        self.open_button = QPushButton("Open in browser")
        self.open_button.setObjectName("authOpenLink")
        self.open_button.clicked.connect(self._open_link)
        self.copy_button = QPushButton("Copy link")
        self.copy_button.setObjectName("authCopyLink")
        self.copy_button.clicked.connect(self._copy_link)
        self.sign_in_box = QFrame()
        self.sign_in_box.setFrameShape(QFrame.Shape.StyledPanel)
        box = QVBoxLayout(self.sign_in_box)
        box.addWidget(self.sign_in)
        box.addWidget(self.sign_in_link)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.copy_button)
        buttons.addStretch(1)
        box.addLayout(buttons)
        self.sign_in_box.hide()
        self._link: tuple[str, str] | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.sign_in_box)
        layout.addWidget(self.client)
        layout.addWidget(self.remember)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        #: The exchanges the rows show, by row number (the oldest go past KEPT rows).
        self._exchanges: dict[int, Exchange] = {}
        self._numbers = itertools.count()
        self._bridge = _Bridge(self)
        self._bridge.added.connect(self._add, Qt.ConnectionType.QueuedConnection)
        self._bridge.browser.connect(self._browser, Qt.ConnectionType.QueuedConnection)
        self.tree.currentItemChanged.connect(lambda item, _old: self._show(item))
        for entry in log.entries:
            self._add(entry)
        for server_url, url in log.waiting.items():
            self._browser(server_url, url, True)
        unlisten = [log.listen(self._bridge.added.emit), log.listen_browser(self._bridge.browser.emit)]
        self.destroyed.connect(lambda *_: [stop() for stop in unlisten])

    def _browser(self, server_url: str, url: str | None, opened: bool) -> None:
        """A sign-in waits in the browser: say so, with the link (a machine without a browser needs it)."""
        if url is None:
            if self._link is not None and self._link[0] == server_url:
                self._link = None
                self.sign_in_box.hide()
            return
        self._link = (server_url, url)
        how = "The browser was opened on the sign-in page" if opened else \
            "No browser could be opened: open this link yourself"
        self.sign_in.setText(f"Waiting for the sign-in to {server_url}. {how}; the studio takes the redirect back "
                             f"on a loopback address.")
        self.sign_in_link.setText(url)
        self.sign_in_link.setCursorPosition(0)
        self.sign_in_box.show()
        self.waiting.emit(server_url)

    def _open_link(self) -> None:
        if self._link is not None:
            self.log.sign_in(*self._link)

    def _copy_link(self) -> None:
        if self._link is not None:
            QGuiApplication.clipboard().setText(self._link[1])

    def showEvent(self, event: QShowEvent) -> None:
        self.client.refresh()  # the server may have changed, a token expired, since last shown
        super().showEvent(event)

    def _add(self, entry: AuthEntry) -> None:
        self.client.refresh()
        exchange = entry.exchange
        number = next(self._numbers)
        self._exchanges[number] = exchange
        if len(self._exchanges) > KEPT:  # the oldest row goes
            self._exchanges.pop(next(iter(self._exchanges)))
            self.tree.takeTopLevelItem(0)
        passed = sum(c.passed for c in exchange.checks)
        status = str(exchange.status) if exchange.status is not None else (exchange.error or "—")
        checks = f"{passed}/{len(exchange.checks)} ✔" if exchange.checks else ""
        if passed < len(exchange.checks):
            checks = f"✖ {len(exchange.checks) - passed} failed, {passed} passed"
        item = QTreeWidgetItem([exchange.phase, status, checks])
        item.setData(0, Qt.ItemDataRole.UserRole, number)
        item.setToolTip(0, f"{exchange.method} {exchange.url}")
        for check in exchange.checks:
            mark = "✔" if check.passed else "✖"
            child = QTreeWidgetItem([f"{mark} {check.name}", "pass" if check.passed else "FAIL", ""])
            child.setToolTip(0, check.detail)
            child.setForeground(0, QBrush(QColor(tones.tone(tones.PASS if check.passed else tones.ERROR, self))))
            child.setData(0, Qt.ItemDataRole.UserRole, number)
            item.addChild(child)
        self.tree.addTopLevelItem(item)
        item.setExpanded(True)
        failed = sum(not c.passed for e in self._exchanges.values() for c in e.checks)
        total = sum(len(e.checks) for e in self._exchanges.values())
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
        exchange = self._exchanges.get(item.data(0, Qt.ItemDataRole.UserRole))
        if exchange is not None:
            self.detail.setPlainText(json.dumps(exchange.as_dict(), indent=2, ensure_ascii=False))
