"""The Proxy panel: start and stop recording proxies in front of your own server, listen for wrapped
stdio sessions, and see each arrive as its own source. A thin Qt adapter over `Studio.watching`.

Slots never wait: they spawn the start/stop coroutines; a failure (a busy port, a bad URL) shows
inline under the form, never as a traceback.
"""

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..studio.controller import Studio
from .async_bridge import spawn
from .builders import button_row
from .step_editor import StepEditor


class ProxyPanel(QDialog):
    def __init__(self, studio: Studio, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Proxy and wrapped sessions")
        self.studio = studio
        self.upstream = QLineEdit(placeholderText="http://127.0.0.1:8765/mcp")
        self.upstream.setToolTip("The MCP endpoint of your server; your client connects to the proxy instead")
        self.port = QSpinBox(minimum=0, maximum=65535)
        self.port.setSpecialValueText("any free port")
        self.start_button = QPushButton("&Start proxy")
        self.problem = QLabel(wordWrap=True)
        self.problem.setStyleSheet("color: #b00020")
        self.proxies = QListWidget()
        self.stop_button = QPushButton("S&top selected")
        self.copy_button = QPushButton("&Copy URL")
        self.listen = QCheckBox("&Listen for wrapped stdio sessions (mrtr-studio wrap -- COMMAND)")
        self.feed_path = QLabel(wordWrap=True)
        self.feed_path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.sessions = QListWidget()
        self.intercept = QCheckBox("&Intercept: hold every message at the proxies, to forward, edit or drop")
        self.held_header = QLabel("Nothing is held.")
        self.held_header.setWordWrap(True)
        self.held_editor = StepEditor(studio)
        self.held_editor.header.hide()
        self.forward_button = QPushButton("&Forward")
        self.drop_button = QPushButton("&Drop")
        self._shown_held: tuple[str, Any] | None = None

        form = QFormLayout()
        form.addRow("&Upstream URL", self.upstream)
        form.addRow("Local &port", self.port)
        buttons = button_row(self.stop_button, self.copy_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.start_button)
        layout.addWidget(self.problem)
        layout.addWidget(QLabel("Running proxies (point your client at the first URL):"))
        layout.addWidget(self.proxies, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.listen)
        layout.addWidget(self.feed_path)
        layout.addWidget(QLabel("Wrapped sessions that arrived (each is a source in the operations list):"))
        layout.addWidget(self.sessions, 1)
        layout.addWidget(self.intercept)
        layout.addWidget(self.held_header)
        layout.addWidget(self.held_editor, 2)
        layout.addLayout(button_row(self.forward_button, self.drop_button))
        self.intercept.toggled.connect(studio.watching.set_intercept)
        self.forward_button.clicked.connect(self._forward)
        self.drop_button.clicked.connect(self._drop)
        self.held_editor.validityChanged.connect(lambda ok: self.forward_button.setEnabled(
            ok and self._shown_held is not None))
        studio.watching.on_held = self.refresh

        self.start_button.clicked.connect(self._start)
        self.upstream.returnPressed.connect(self._start)
        self.stop_button.clicked.connect(self._stop)
        self.copy_button.clicked.connect(self._copy)
        self.listen.toggled.connect(self._toggle_feed)
        self._unsubscribe = studio.subscribe(lambda event: self.refresh() if event.kind == "info" else None)
        self.refresh()

    def refresh(self) -> None:
        running = self.studio.watching.proxies
        shown = [self.proxies.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.proxies.count())]
        if shown != list(running):
            self.proxies.clear()
            for url, proxy in running.items():
                item = QListWidgetItem(f"{url}  →  {proxy.upstream}")
                item.setData(Qt.ItemDataRole.UserRole, url)
                self.proxies.addItem(item)
        arrived = self.studio.watching.wrapped_sessions
        if self.sessions.count() != len(arrived):
            self.sessions.clear()
            self.sessions.addItems(arrived)
        feed = self.studio.watching.feed
        self.feed_path.setText(f"Listening at {feed.socket_path} (token in {feed.home / 'feed.token'}, 0600)"
                               if feed is not None else "")
        self.stop_button.setEnabled(bool(running))
        self.copy_button.setEnabled(bool(running))
        self._show_held()

    def _show_held(self) -> None:
        held = self.studio.watching.held()
        first = held[0] if held else None
        if first is not None and (self._shown_held is None or self._shown_held[1] is not first[1]):
            self.held_editor.show_message(first[1].message)
        elif first is None and self._shown_held is not None:
            self.held_editor.editor.setPlainText("")
            self.held_editor.editor.setReadOnly(True)
        self._shown_held = first
        if first is None:
            self.held_header.setText("Nothing is held." if self.intercept.isChecked() else "")
        else:
            more = f" ({len(held) - 1} more waiting)" if len(held) > 1 else ""
            self.held_header.setText(f"<b>Held</b> at {first[0]}: {first[1].direction}{more}. Edit it, then "
                                     "Forward, or Drop it.")
        self.forward_button.setEnabled(first is not None and self.held_editor.valid)
        self.drop_button.setEnabled(first is not None)

    def _forward(self) -> None:
        if self._shown_held is None:
            return
        value, problem = self.held_editor.parsed()
        if value is None:
            self.held_editor.error.setText(problem)
            return
        url, held = self._shown_held
        self.studio.watching.release(url, held, value if value != held.message else None)
        self._shown_held = None
        self.refresh()

    def _drop(self) -> None:
        if self._shown_held is not None:
            url, held = self._shown_held
            self.studio.watching.release(url, held, drop=True)
            self._shown_held = None
            self.refresh()

    def _start(self) -> None:
        upstream = self.upstream.text().strip()
        if not upstream:
            self.problem.setText("Enter your server's MCP URL first, e.g. http://127.0.0.1:8765/mcp.")
            return
        self.problem.setText("")
        spawn(self._started(upstream, self.port.value()), "start proxy")

    async def _started(self, upstream: str, port: int) -> None:
        try:
            await self.studio.watching.start_proxy(upstream, port)
        except (OSError, ValueError, RuntimeError, TimeoutError) as exc:
            self.problem.setText(f"The proxy did not start: {exc}")
        self.refresh()

    def _selected_url(self) -> str | None:
        item = self.proxies.currentItem() or (self.proxies.item(0) if self.proxies.count() else None)
        return None if item is None else str(item.data(Qt.ItemDataRole.UserRole))

    def _stop(self) -> None:
        url = self._selected_url()
        if url is not None:
            spawn(self._stopped(url), "stop proxy")

    async def _stopped(self, url: str) -> None:
        await self.studio.watching.stop_proxy(url)
        self.refresh()

    def _copy(self) -> None:
        url = self._selected_url()
        if url is not None:
            QGuiApplication.clipboard().setText(url)

    def _toggle_feed(self, on: bool) -> None:
        spawn(self._feed(on), "wrapped sessions")

    async def _feed(self, on: bool) -> None:
        try:
            if on:
                await self.studio.watching.start_feed()
            else:
                await self.studio.watching.stop_feed()
        except OSError as exc:
            self.problem.setText(f"Cannot listen for wrapped sessions: {exc}")
            self.listen.setChecked(False)
        self.refresh()

    def closeEvent(self, event: Any) -> None:  # the proxies keep running; the panel only shows them
        super().closeEvent(event)
