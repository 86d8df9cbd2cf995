"""The Tools menu: Compare servers… (ui/compare_servers_view.py), Save to collection… and Run
collection… (ui/collections_panel.py), and the Collection tab next to Expert info where a run's
verdicts are shown. Installed from window_extras, so the window's own modules stay as they are."""

from typing import TYPE_CHECKING

from .collections_panel import CollectionPanel, ask_and_run, save_operation
from .compare_servers_view import show_compare_servers
from .layout import scrolled
from .window_menus import add_action

if TYPE_CHECKING:
    from .main_window import MainWindow


def install(window: "MainWindow") -> None:
    window.collection_panel = panel = CollectionPanel(window)
    bottom = window.workbench.bottom
    bottom.addTab(scrolled(panel, "page:collection"), "Collection")
    tools = window.tools_menu = window.menuBar().addMenu("T&ools")
    add_action(tools, "&Compare servers…", lambda: show_compare_servers(window)).setObjectName("compareServersAction")
    tools.addSeparator()
    add_action(tools, "&Save the selected operation to a collection…",
               lambda: save_operation(window)).setObjectName("saveToCollectionAction")
    add_action(tools, "&Run collection…", lambda: ask_and_run(window)).setObjectName("runCollectionAction")
