"""The teaching views' shells: the Teach menu and the centre's tab titles, made with the mode bar,
before the teaching tabs are installed (`MainWindow._build_teaching`, the last step of the window's
build); the views themselves (lessons, lab, eras, cluster: heavy to build) are built the first time
each is shown (`ui/teaching/install.py`, `TeachingTabs`).

Why: the tab bar must be in the window from its first frame (once, the views came ~0.3 s after it
and the centre moved down), and picking an entry must work whatever has been built. Kept out of the
`teaching` package so that the mode bar does not import it.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

if TYPE_CHECKING:
    from .teaching import TeachingTabs

#: The centre's tabs, in order (the first is the window's flow diagram).
TAB_TITLES = ("Flow", "Lessons", "Lab", "Eras", "Cluster")
#: The Teach menu: (view, entry, shortcut).
MENU_ENTRIES = (
    ("flow", "&Flow diagram", "Ctrl+Alt+0"),
    ("lessons", "&Lessons (scenario library)", "Ctrl+Alt+1"),
    ("lab", "Tamper-and-replay l&ab", "Ctrl+Alt+2"),
    ("eras", "&Eras side by side", "Ctrl+Alt+3"),
    ("cluster", "&Cluster of engines", "Ctrl+Alt+4"),
)
MENU_NAME = "teachMenu"


def shell_menu(window: QMainWindow, build: "Callable[[], TeachingTabs]") -> QMenu:
    """The Teach menu before the views exist: each entry builds them, then shows its view.
    `install_teaching` replaces these entries with the real ones."""
    menu = window.menuBar().addMenu("T&each")
    menu.setObjectName(MENU_NAME)
    for key, text, shortcut in MENU_ENTRIES:
        action = menu.addAction(text)
        action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _=False, name=key: build().show(name))
    return menu
