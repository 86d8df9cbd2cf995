"""One call puts the teaching views into the studio window: `install_teaching(window, studio, store, selection)`.

The window's central diagram becomes the first tab ("Flow") of a tab widget; lessons, the lab, eras
side by side and the cluster are the other tabs, each reachable from a Teach menu. Tabs rather than
docks: each view is a full workspace with its own diagram(s), and the window's saved dock layout
stays exactly as it was. Each view is built the first time it is shown (`TeachingTabs`). Closing the
window stops the cluster's processes, if it was ever built.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu, QTabWidget, QWidget

from ...studio.controller import Studio
from ...trace import TraceStore
from ..layout import only_current_page_counts
from ..selection import Selection
from ..teaching_shell import MENU_ENTRIES, MENU_NAME, TAB_TITLES
from ..theme import building

if TYPE_CHECKING:  # imported when each view is first built (`_build_view`)
    from .cluster_view import ClusterView
    from .eras_view import ErasView
    from .lab_view import LabView
    from .lesson_view import LessonView

#: The teaching views' keys, in their tabs' order after the Flow tab.
VIEW_KEYS = ("lessons", "lab", "eras", "cluster")
#: Told of each view as it is built: its key and the view.
Built = Callable[[str, QWidget], Any]


class _OnClose(QObject):
    """Stops the cluster when the window closes (if it was ever built), without the window knowing."""

    def __init__(self, teaching: "TeachingTabs", parent: QObject) -> None:
        super().__init__(parent)
        self.teaching = teaching

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Close:
            cluster = self.teaching.built("cluster")
            if cluster is not None:
                cluster.shutdown()
        return False


def _build_view(key: str, studio: Studio, store: TraceStore, selection: Selection) -> QWidget:
    """One teaching view, its module imported now: a view nobody opens costs the launch nothing."""
    if key == "lessons":
        from .lesson_view import LessonView

        return LessonView(store, selection)
    if key == "lab":
        from .lab_view import LabView

        return LabView(studio, store, selection)
    if key == "eras":
        from .eras_view import ErasView

        return ErasView(studio, store, shared=selection)
    from .cluster_view import ClusterView

    return ClusterView(store, window_selection=selection)


class TeachingTabs:
    """The centre's tab widget: the Flow diagram first, then lessons, lab, eras and cluster.

    Each teaching view is built the first time it is wanted: its tab picked (the pinned bar, the
    Teach menu, a mode), or its attribute read (`teaching.lab`). Until then its tab holds an empty
    page. Why: the four views and their modules were a tenth of the launch (50-80 ms measured inside
    it), for views a session often never opens; one costs 10-40 ms when first shown, painting
    included (`tools/bench_launch.py` times each). A view built during presentation mode starts in
    it (`set_presentation` is remembered), and `on_built` callbacks (the modes' arrangement, a signal
    to follow) are told of each view as it arrives, so nothing has to build a view only to configure it.
    """

    def __init__(self, tabs: QTabWidget, menu: QMenu, make: Callable[[str], QWidget], first_view: int = 1) -> None:
        self.tabs = tabs
        self.menu = menu
        self.actions: dict[str, QAction] = {}
        self._make = make
        self._first = first_view  # the lessons' tab (0 when there is no Flow tab)
        self._views: dict[str, QWidget] = {}
        self._on_built: list[Built] = []
        self._presenting = False
        # The ways in are `show_index` and `view`; a tab made current any other way (Ctrl+Tab in the tab
        # widget) gets its view on the next turn.
        tabs.currentChanged.connect(self._current_changed)

    # --- the views, built when first wanted ------------------------------------------------------

    @property
    def lessons(self) -> "LessonView":
        return cast("LessonView", self.view("lessons"))

    @property
    def lab(self) -> "LabView":
        return cast("LabView", self.view("lab"))

    @property
    def eras(self) -> "ErasView":
        return cast("ErasView", self.view("eras"))

    @property
    def cluster(self) -> "ClusterView":
        return cast("ClusterView", self.view("cluster"))

    def built(self, key: str) -> Any:
        """The view if it has been built, else None (never builds it)."""
        return self._views.get(key)

    def built_views(self) -> dict[str, QWidget]:
        return dict(self._views)

    def on_built(self, callback: Built) -> None:
        """`callback(key, view)` for every view built so far and every one built later."""
        self._on_built.append(callback)
        for key, view in list(self._views.items()):
            callback(key, view)

    def view(self, key: str) -> QWidget:
        """The view `key` ("lessons", "lab", "eras", "cluster"), built and put in its tab if it is not yet."""
        existing = self._views.get(key)
        if existing is not None:
            return existing
        index = self.index_of(key)
        tabs = self.tabs
        with building():
            view = self._make(key)
        if self._presenting:
            view.set_presentation(True)  # every teaching view has it
        placeholder = tabs.widget(index)
        current = tabs.currentIndex()
        blocked = tabs.blockSignals(True)  # the same tab stays current: nobody is told of a change
        try:
            tabs.removeTab(index)
            tabs.insertTab(index, view, TAB_TITLES[1 + VIEW_KEYS.index(key)])
            tabs.setCurrentIndex(current)
        finally:
            tabs.blockSignals(blocked)
        if placeholder is not None:
            placeholder.deleteLater()
        only_current_page_counts(tabs)
        self._views[key] = view
        for callback in list(self._on_built):
            callback(key, view)
        return view

    # --- showing -------------------------------------------------------------------------------------

    def show_index(self, index: int) -> None:
        """Make tab `index` current, its view built first (so its empty page is never shown)."""
        key = self._key_at(index)
        if key is not None:
            self.view(key)
        self.tabs.setCurrentIndex(index)

    def _current_changed(self, index: int) -> None:
        key = self._key_at(index)
        if key is not None and key not in self._views:
            QTimer.singleShot(0, self.tabs, lambda: self.view(key))

    def index_of(self, key: str) -> int:
        """The tab of "flow" or of a teaching view's key (`_key_at` reads it back)."""
        return 0 if key == "flow" else self._first + VIEW_KEYS.index(key)

    def _key_at(self, index: int) -> str | None:
        at = index - self._first
        return VIEW_KEYS[at] if 0 <= at < len(VIEW_KEYS) else None

    def show(self, name: str) -> None:
        """Bring one view forward: "flow", "lessons", "lab", "eras" or "cluster"."""
        self.actions[name].trigger()

    def set_presentation(self, on: bool) -> None:
        """Presentation mode for every teaching view built (and the Flow diagram in the first tab); a view
        built later starts in it."""
        self._presenting = on
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
    for title in TAB_TITLES[1:]:
        tabs.addTab(QWidget(), title)  # the view's place until it is first wanted
    window.setCentralWidget(tabs)
    menu = window.menuBar().addMenu("T&each")
    menu.setObjectName(MENU_NAME)
    first = 0 if flow is None else 1
    teaching = TeachingTabs(tabs, menu, lambda key: _build_view(key, studio, store, selection), first)
    for key, text, shortcut in MENU_ENTRIES:
        if key == "flow" and flow is None:
            continue
        action = menu.addAction(text)
        action.setShortcut(shortcut)
        action.triggered.connect(lambda _=False, index=teaching.index_of(key): teaching.show_index(index))
        teaching.actions[key] = action
    window.installEventFilter(_OnClose(teaching, window))
    return teaching
