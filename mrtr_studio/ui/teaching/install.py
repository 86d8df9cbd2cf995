"""One call puts the teaching views into the studio window: `install_teaching(window, studio, store, selection)`.

The window's central diagram becomes the first tab ("Flow") of a tab widget; lessons, the lab, eras
side by side and the cluster are the other tabs, each reachable from a Teach menu. Tabs rather than
docks: each view is a full workspace with its own diagram(s), and the window's saved dock layout
stays exactly as it was. Closing the window stops the cluster's processes.
"""

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu, QTabWidget, QWidget

from ...studio.controller import Studio
from ...trace import TraceStore
from ..selection import Selection
from ..teaching_shell import MENU_ENTRIES, MENU_NAME, TAB_TITLES
from .cluster_view import ClusterView
from .eras_view import ErasView
from .lab_view import LabView
from .lesson_view import LessonView


class _OnClose(QObject):
    """Stops the cluster when the window closes, without the window having to know about it."""

    def __init__(self, cluster: ClusterView, parent: QObject) -> None:
        super().__init__(parent)
        self.cluster = cluster

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Close:
            self.cluster.shutdown()
        return False


@dataclass
class TeachingTabs:
    tabs: QTabWidget
    lessons: LessonView
    lab: LabView
    eras: ErasView
    cluster: ClusterView
    menu: QMenu
    actions: dict[str, QAction]

    def show(self, name: str) -> None:
        """Bring one view forward: "flow", "lessons", "lab", "eras" or "cluster"."""
        self.actions[name].trigger()

    def set_presentation(self, on: bool) -> None:
        """Presentation mode for every teaching view (and the Flow diagram in the first tab, if it has it)."""
        for index in range(self.tabs.count()):
            present = getattr(self.tabs.widget(index), "set_presentation", None)
            if callable(present):
                present(on)


def install_in_workbench(window: Any, bench: Any) -> TeachingTabs:
    """The teaching tabs around the diagram at the centre of the main window's workbench (its sizes kept):
    the diagram leaves the workbench for the first tab, and the tabs take its place."""
    sizes = bench.saveState(), bench.top.saveState()
    window.takeCentralWidget()  # the workbench, kept (setCentralWidget would delete it)
    window.setCentralWidget(bench.centre.takeWidget())  # install_teaching makes it the first tab
    teaching = install_teaching(window, window.studio, window.studio.store, window.selection)
    tabs = window.takeCentralWidget()
    assert tabs is not None
    bench.set_centre(tabs)
    window.setCentralWidget(bench)
    bench.restoreState(sizes[0])
    bench.top.restoreState(sizes[1])
    return teaching


def install_teaching(window: QMainWindow, studio: Studio, store: TraceStore, selection: Selection) -> TeachingTabs:
    tabs = QTabWidget(window)
    tabs.setObjectName("teachingTabs")
    tabs.setDocumentMode(True)
    flow = window.takeCentralWidget()
    if flow is not None:
        tabs.addTab(flow, "Flow")
    lessons = LessonView(store, selection)
    lab = LabView(studio, store, selection)
    eras = ErasView(studio, store, shared=selection)
    cluster = ClusterView(store, window_selection=selection)
    widgets: dict[str, QWidget | None] = {"flow": flow, "lessons": lessons, "lab": lab, "eras": eras,
                                          "cluster": cluster}
    for title, view in zip(TAB_TITLES[1:], (lessons, lab, eras, cluster), strict=True):
        tabs.addTab(view, title)
    window.setCentralWidget(tabs)
    menu = window.findChild(QMenu, MENU_NAME)  # the shell shown since the first frame, filled now
    if menu is None:
        menu = window.menuBar().addMenu("T&each")
    for placeholder in menu.actions():  # one of them may be the entry being triggered: deleted later
        menu.removeAction(placeholder)
        placeholder.deleteLater()
    actions: dict[str, QAction] = {}
    for key, text, shortcut in MENU_ENTRIES:
        widget = widgets[key]
        if widget is None:
            continue
        action = menu.addAction(text)
        action.setShortcut(shortcut)
        action.triggered.connect(lambda _=False, page=widget: tabs.setCurrentWidget(page))
        actions[key] = action
    window.installEventFilter(_OnClose(cluster, window))
    return TeachingTabs(tabs, lessons, lab, eras, cluster, menu, actions)
