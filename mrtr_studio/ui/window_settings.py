"""What the window keeps between sessions, in QSettings: its geometry and panel layout, the client's
settings, the last connection, the last target and the arguments typed for each target.

A saved layout of another SETTINGS_VERSION is ignored, not misapplied; a saved geometry is fitted
into the screen's available room (see `screen_fit`), never trusted as it is.
"""

import json
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QRect, QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication

from ..studio.server_entries import ServerEntry
from .server_explorer import Target
from .theme import apply_theme, as_choice

if TYPE_CHECKING:
    from .main_window import MainWindow

#: Bumped when the saved layout's meaning changes: an older saved state is then ignored, not misapplied.
SETTINGS_VERSION = 3  # 3: the side column runs the full height


def fitted_geometry(available: QRect) -> QRect:
    """Where a new window opens: all of a small screen (up to 1600x960), 90% of a bigger one, centred."""
    width = available.width() if available.width() <= 1600 else available.width() * 9 // 10
    height = available.height() if available.height() <= 960 else available.height() * 9 // 10
    rect = QRect(0, 0, width, height)
    rect.moveCenter(available.center())
    return rect


def saved_entry(settings: QSettings) -> ServerEntry | None:
    raw = settings.value("connection/last")
    try:
        return ServerEntry.from_json(json.loads(str(raw))) if raw else None
    except (ValueError, TypeError):
        return None

def saved_arguments(settings: QSettings, target: Target | None) -> dict[str, Any] | None:
    if target is None:
        return None
    raw = settings.value(f"arguments/{target.kind}/{target.name}")
    try:
        value = json.loads(str(raw)) if raw else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None

def remember_arguments(settings: QSettings, target: Target, arguments: dict[str, Any]) -> None:
    settings.setValue(f"arguments/{target.kind}/{target.name}", json.dumps(arguments))

def select_saved_target(self: "MainWindow") -> None:
    if self.explorer.current_target() is None:
        kind, name = str(self.settings.value("target/kind", "tool")), str(self.settings.value("target/name", ""))
        if not (name and self.explorer.select(name, kind)):
            self.explorer.select("delete_file", "tool")


def restore(self: "MainWindow") -> None:
    s = self.settings
    app = QApplication.instance()
    if isinstance(app, QApplication):
        apply_theme(app, as_choice(s.value("view/theme", "system")))
    raw = s.value("client/settings")
    try:
        client = json.loads(str(raw)) if raw else None
    except ValueError:
        client = None
    if isinstance(client, dict):
        self.client_panel.load(client)
    restored = False
    if str(s.value("version")) == str(SETTINGS_VERSION):
        geometry, state = s.value("window/rect"), s.value("window/state")
        if isinstance(state, QByteArray):
            self.restoreState(state, SETTINGS_VERSION)
        if isinstance(geometry, QRect) and geometry.isValid():
            self.setGeometry(geometry)  # not restoreGeometry: the room is `available_geometry`
            restored = self.workbench.restore(s)
            if s.value("window/maximized") in (True, "true"):
                self.setWindowState(self.windowState() | Qt.WindowState.WindowMaximized)
        self._centre_tab = _int(s.value("layout/centre_tab", 0))
    self._restore_on_show = restored
    if restored:
        self.fit_to_screen()
    else:
        self.setGeometry(fitted_geometry(self.available_geometry()))
        self.workbench.default_sizes(self.width(), self.height())
        QTimer.singleShot(0, self.default_layout)  # again once the window is laid out at its real size


def save(self: "MainWindow") -> None:
    s = self.settings
    if self.presentation.active:  # the layout to keep is the one presentation mode hid
        self.presentation.leave()
    s.setValue("version", SETTINGS_VERSION)
    s.setValue("window/rect", self.normalGeometry() if self.isMaximized() else self.geometry())
    s.setValue("window/maximized", self.isMaximized())
    s.setValue("window/state", self.saveState(SETTINGS_VERSION))
    self.modes.save_layout()  # the active mode's layout; Debug's is the `layout/` one
    s.setValue("layout/centre_tab", self.teaching.tabs.currentIndex())
    s.setValue("client/settings", json.dumps(self.client_panel.to_json()))
    s.setValue("connection/last", json.dumps(self.studio.entry.to_json()))
    target = self.explorer.current_target()
    if target is not None:
        s.setValue("target/kind", target.kind)
        s.setValue("target/name", target.name)
    s.sync()


def _int(value: object, default: int = 0) -> int:
    try:
        return int(str(value))
    except ValueError:
        return default
