"""Where Compare servers and collections are reached: "Compare servers…" in the File menu
(ui/compare_servers_view.py); "Save the selected operation to a collection…" and "Run collection…" at
the end of the Run menu (ui/collections_panel.py, which also adds Save to collection to the operations
list's context menu); and the Collection tab next to Expert info, where a run's verdicts are shown.
Installed from window_extras after the menus are built, so the window's own modules stay as they are."""

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMenu

from .collections_panel import CollectionPanel, ask_and_run, save_operation
from .layout import scrolled
from .window_menus import add_action

if TYPE_CHECKING:
    from .main_window import MainWindow


def _menu(window: "MainWindow", title: str) -> QMenu:
    for action in window.menuBar().actions():
        menu = action.menu()
        if action.text() == title and isinstance(menu, QMenu):
            return menu
    raise LookupError(f"the window has no {title!r} menu")


def show_compare_servers(window: "MainWindow") -> None:
    """The Compare servers dialog, imported when first opened (it brings the client's answering logic)."""
    from .compare_servers_view import show_compare_servers as show

    show(window)


def install(window: "MainWindow") -> None:
    window.collection_panel = panel = CollectionPanel(window)
    bottom = window.workbench.bottom
    bottom.addTab(scrolled(panel, "page:collection"), "Collection")
    file = _menu(window, "&File")
    quit_action = next(a for a in file.actions() if a.text() == "&Quit")
    separator = file.actions()[file.actions().index(quit_action) - 1]
    compare = file.addAction("Co&mpare servers…")
    compare.setObjectName("compareServersAction")
    compare.triggered.connect(lambda _=False: show_compare_servers(window))
    file.insertAction(separator, compare)
    run = _menu(window, "&Run")
    run.addSeparator()
    add_action(run, "Save the selected operation to a &collection…",
               lambda: save_operation(window)).setObjectName("saveToCollectionAction")
    add_action(run, "Run c&ollection…", lambda: ask_and_run(window)).setObjectName("runCollectionAction")
    window.compare_action = compare
