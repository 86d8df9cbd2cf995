"""The window's menu bar: File, Serve, Run, Tamper and View, each entry an action on the window.

Kept apart from `main_window.py` so the window's own module is about its panels and events; the
slots stay the window's (or the studio's), so a menu entry and a test call the same method.
"""

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QWidget

from ..studio.server_entries import EMBEDDED
from .async_bridge import spawn
from .copy_as_menu import install as install_copy_as
from .export_menu import build_export_menu
from .focus_order import present
from .theme import THEME_CHOICES, current_choice

if TYPE_CHECKING:
    from .main_window import MainWindow

THEME_LABELS = {"system": "&System colours", "light": "&Light", "dark": "&Dark"}


def clear_and_focus_the_list(window: "MainWindow") -> None:
    """Clear the trace, then give the focus to the emptied operations list: left in a text field
    (the arguments' path, say), Ctrl+Z undid the typing there instead of the clearing the status
    line offers to undo."""
    window.clear_trace()
    if window.undo_clear_action.isEnabled():
        window.operations.table.setFocus()


def add_action(menu: Any, text: str, slot: Callable[[], Any], shortcut: str | None = None) -> QAction:
    action = menu.addAction(text)
    action.triggered.connect(lambda _=False: slot())
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
    return action


def toggle(panel: QWidget) -> None:
    panel.setVisible(panel.isHidden())


def build_menus(self: "MainWindow") -> None:
    """Every menu of the window, its entries wired to the window's (or the studio's) methods."""
    bar = self.menuBar()
    file = bar.addMenu("&File")
    add_action(file, "&Import mcpServers…", self._import_dialog)
    add_action(file, "Connect to the &embedded engine", lambda: self.connect_to(EMBEDDED))
    add_action(file, "&Open trace…", self._open_trace_dialog, "Ctrl+O")
    add_action(file, "&Save trace as…", self._save_trace_dialog, "Ctrl+S")
    add_action(file, "Reopen the &last session", self._reopen_last_session)
    add_action(file, "&Discard recovered operations", self._discard_recovered)
    self.export_menu = build_export_menu(self, file)
    add_action(file, "C&lear the trace", partial(clear_and_focus_the_list, self))
    self.undo_clear_action = add_action(file, "&Undo clearing the trace", self.undo_clear, "Ctrl+Z")
    self.undo_clear_action.setEnabled(False)
    file.addSeparator()
    add_action(file, "&Quit", self.close, "Ctrl+Q")
    self.copy_as_menu = install_copy_as(self, bar)
    self.serve_menu = serve = bar.addMenu("&Serve")
    self.serve_action = add_action(serve, "Serve the embedded engine over &HTTP", lambda: toggle_serving(self))
    self.serve_action.setCheckable(True)
    add_action(serve, "&Copy the served URL", lambda: copy_served_url(self))
    serve.addSeparator()
    add_action(serve, "&Proxy and wrapped sessions…", lambda: show_proxy_panel(self))
    run = bar.addMenu("&Run")
    for action in self.controls.actions():
        run.addAction(action)
    run.addSeparator()
    self.resume_action = add_action(run, "&Resume polling the selected task", self.resume_task)
    self.auto_roots_action = add_action(run, "Answer roots/list &automatically", self._save_auto_roots)
    self.auto_roots_action.setCheckable(True)  # off: the roots asked for are shown and confirmed
    self.auto_roots_action.setChecked(self.settings.value("answers/auto_roots") in (True, "true"))
    tamper = bar.addMenu("&Tamper")
    for action in self.controls.tampers.values():
        tamper.addAction(action)
    tamper.addSeparator()
    add_action(tamper, "Engine clock +10 &min", lambda: self.studio.advance_clock(600))
    add_action(tamper, "&Reset the engine clock", self.studio.reset_clock)
    self.view_menu = view = bar.addMenu("&View")
    self.panel_actions = {}
    for key, text, shortcut in (("side", "&Server, client and arguments", "Ctrl+Alt+S"),
                                ("inspectors", "&Inspectors", "Ctrl+Alt+I"),
                                ("bottom", "&Operations and messages", "Ctrl+Alt+M")):
        panel = self.workbench.panels()[key]
        action = add_action(view, text, partial(toggle, panel), shortcut)
        action.setCheckable(True)
        action.setChecked(True)
        self.panel_actions[key] = action
    view.aboutToShow.connect(lambda: sync_view_menu(self))
    view.addSeparator()
    self.presentation_action = add_action(view, "&Presentation mode", lambda: self.presentation.toggle(), "F11")
    self.addAction(self.presentation_action)  # F11 works whichever panel has the focus
    add_action(view, "&Reset layout", self.reset_layout)
    theme = view.addMenu("&Colours")
    self.theme_actions = {}
    group = QActionGroup(self)
    for choice in THEME_CHOICES:
        action = add_action(theme, THEME_LABELS[choice], partial(self.set_theme, choice))
        action.setCheckable(True)
        group.addAction(action)
        self.theme_actions[choice] = action


def sync_view_menu(self: "MainWindow") -> None:
    """The View menu's ticks as the panels and the theme are now."""
    for key, action in self.panel_actions.items():
        action.setChecked(not self.workbench.panels()[key].isHidden())
    self.theme_actions[current_choice()].setChecked(True)


# --- the Serve menu ---------------------------------------------------------------------------

def toggle_serving(self: "MainWindow") -> None:
    """Let outside clients talk to the embedded engine; their flows appear in the trace."""
    if self.studio.serving_url is None:
        spawn(_start_serving(self), "serve")
    else:
        spawn(self.studio.stop_serving(), "stop serving")
        self.serve_action.setChecked(False)

async def _start_serving(self: "MainWindow") -> None:
    try:
        url = await self.studio.start_serving()
    except OSError as exc:
        self.serve_action.setChecked(False)
        self.show_error(f"Cannot serve over HTTP: {exc}")
        return
    self.serve_action.setChecked(True)
    self.statusBar().showMessage(f"Serving at {url}", 10000)

def show_proxy_panel(self: "MainWindow") -> None:
    from .proxy_panel import ProxyPanel

    if getattr(self, "proxy_panel", None) is None:
        self.proxy_panel = ProxyPanel(self.studio, self)
    present(self.proxy_panel)

def copy_served_url(self: "MainWindow") -> None:
    url = self.studio.serving_url
    if url is None:
        self.show_error("The embedded engine is not being served; use the Serve menu first.")
        return
    QGuiApplication.clipboard().setText(url)
    self.show_info(f"Copied {url}")
