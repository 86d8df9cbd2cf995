"""The window in modes, as Qt Creator has them: Debug, Learn, Lab and Cluster, each its own layout.

Why: one workbench for everything meant the lessons, the lab's table and the cluster shared the
centre with a side column and inspectors they do not use, so at 1366x768 a lesson's code showed a
handful of lines and the lab's verdict column sat off screen. A mode picks the teaching tab it is
about and the panels around it; what the person then drags or hides is remembered per mode
(QSettings under `modes/<key>/`, Debug's under the window's own `layout/`, as before modes).

Ctrl+1..4 switch; Run (F5) and Step (F10) act on the mode's subject because the mode shows its
teaching tab (see `teaching.subject`). Presentation mode works in every mode: it hides and puts back
whatever panels the mode shows.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QScrollArea, QSizePolicy, QTabBar, QTabWidget, QToolBar, QWidget

from .focus_order import VisualTabOrder
from .layout import Workbench
from .mode_layouts import arrange, arrange_view
from .teaching_shell import MENU_ENTRIES, TAB_TITLES

if TYPE_CHECKING:
    from .teaching import TeachingTabs


@dataclass(frozen=True)
class Mode:
    key: str
    title: str
    tab: str  # the teaching tab the mode is about
    panels: frozenset[str]  # the workbench panels it shows by default
    what: str  # the button's tooltip: what the mode is for
    #: Further teaching tabs the mode holds, beside `tab` on its own tab bar (Learn: Eras).
    also: tuple[str, ...] = ()


MODES: tuple[Mode, ...] = (
    Mode("debug", "&Debug", "flow", frozenset({"side", "inspectors", "bottom"}),
         "Run and step operations against a server: explorer, diagram, inspectors, log"),
    Mode("learn", "&Learn", "lessons", frozenset(),
         "The lessons (list, explanation, diagram, handler code) and Eras: one call in both eras side by side",
         also=("eras",)),
    Mode("lab", "L&ab", "lab", frozenset(), "Every tamper-and-replay attack with the spec's verdict"),
    Mode("cluster", "&Cluster", "cluster", frozenset(), "Engines behind one URL: nodes, replay table, diagram"),
)
MODES_BY_KEY = {mode.key: mode for mode in MODES}
#: The centre tabs' keys, in the order of their titles (`TAB_TITLES`).
TAB_KEYS = tuple(key for key, _text, _shortcut in MENU_ENTRIES)
#: Which mode a teaching tab belongs to (the Flow tab and anything not listed: Debug).
OWNER = {tab: mode.key for mode in MODES if mode.key != "debug" for tab in (mode.tab, *mode.also)}
#: Debug's layout keeps the prefix the window used before modes existed, so old settings still apply.
DEBUG_PREFIX = "layout"


def prefix_of(key: str) -> str:
    return DEBUG_PREFIX if key == "debug" else f"modes/{key}"


class PinnedTabBar(QTabBar):
    """The centre tabs' bar, held in the top margin of the centre's scroll area: scrolling a tall
    page there no longer carries the Flow | Lessons | … bar off the top. It is made with the mode bar,
    with the tabs' titles (`teaching_shell`); once the tab widget is made (the window's last step) it
    is bound to it, whose own bar is hidden, and both follow each other, so code that uses the
    QTabWidget (currentWidget, setCurrentIndex) is unchanged. A tab picked here is shown through
    `TeachingTabs.show_index`, which builds its view first."""

    def __init__(self, titles: tuple[str, ...], build: "Callable[[], TeachingTabs]",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tabs: QTabWidget | None = None
        self.build = build
        self.setObjectName("centreTabBar")
        self.setDocumentMode(True)
        self.setDrawBase(False)
        self.setUsesScrollButtons(True)  # as the tab widget's own: a narrow centre scrolls the tabs,
        self.setExpanding(False)  # it does not widen the column
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Centre views")
        for title in titles:
            self.addTab(title)
        self.currentChanged.connect(self._picked)

    def bind(self, tabs: QTabWidget) -> None:
        self.tabs = tabs
        tabs.tabBar().hide()
        self.setCurrentIndex(tabs.currentIndex())
        tabs.currentChanged.connect(self._followed)

    def _picked(self, index: int) -> None:
        if index < 0:
            return
        teaching = self.build()
        if teaching.tabs.currentIndex() != index:
            teaching.show_index(index)  # the view built before it is shown

    def _followed(self, index: int) -> None:
        if self.currentIndex() != index:
            self.setCurrentIndex(index)


def pin_tab_bar(workbench: Workbench, build: "Callable[[], TeachingTabs]") -> PinnedTabBar:
    """The centre tabs' bar in the top margin of the centre scroll area, outside its viewport: the
    page scrolls under it. (The area stays the splitter's child, so no divider moves.)"""
    bar = PinnedTabBar(TAB_TITLES, build, workbench.centre)
    _BarPlacer(workbench.centre, bar)
    return bar


class _BarPlacer(QObject):
    """Keeps the pinned bar across the top of its scroll area, and the viewport below it."""

    def __init__(self, area: QScrollArea, bar: PinnedTabBar) -> None:
        super().__init__(bar)
        self.area, self.bar = area, bar
        area.installEventFilter(self)
        bar.installEventFilter(self)
        self.place()

    def place(self) -> None:
        height = self.bar.sizeHint().height() if not self.bar.isHidden() else 0
        self.area.setViewportMargins(0, height, 0, 0)
        self.bar.setGeometry(0, 0, self.area.width(), height)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show, QEvent.Type.Hide):
            self.place()
        return False


class Modes(QObject):
    """The mode bar (a toolbar beside the run controls) and the switching between modes."""

    def __init__(self, window: QMainWindow, workbench: Workbench, settings: QSettings,
                 teaching: "Callable[[], TeachingTabs]", leave_presentation: Callable[[], None]) -> None:
        super().__init__(window)
        self.window = window
        self.workbench = workbench
        self.settings = settings
        self.teaching = teaching  # the mode bar is made before the teaching tabs (the window's last step)
        self.leave_presentation = leave_presentation
        self.current = "debug"
        #: The mode last left in, entered a turn after the teaching tabs are built (the window is not
        #: complete before).
        self.switch_pending = False
        self.pinned = pin_tab_bar(workbench, teaching)  # the tab bar, bound to the tabs once they are made
        self.bar = QToolBar("Modes", window)
        self.bar.setObjectName("modeBar")
        self.bar.setAccessibleName("Modes")
        self.bar.setMovable(False)
        self.actions: dict[str, QAction] = {}
        group = QActionGroup(self)
        group.setExclusive(True)
        for number, mode in enumerate(MODES, 1):
            action = QAction(mode.title.replace("&", ""), self.bar)
            action.setCheckable(True)
            action.setShortcut(QKeySequence(f"Ctrl+{number}"))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.setToolTip(f"{mode.what} (Ctrl+{number})")
            action.triggered.connect(lambda _=False, key=mode.key: self.switch(key))
            group.addAction(action)
            self.bar.addAction(action)
            self.actions[mode.key] = action
        self.actions["debug"].setChecked(True)
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.bar)
        # Tab in reading order, region by region (the modes decide which regions show)
        self.tab_order = VisualTabOrder(window, [self.bar, workbench.side, workbench.centre, workbench.inspectors,
                                                 workbench.bottom])

    @property
    def menu(self) -> QMenu:
        """The Teach menu (made with the teaching tabs)."""
        return self.teaching().menu

    def teaching_built(self, teaching: "TeachingTabs") -> None:
        """The tabs exist now: pin their bar, follow their changes, enter the mode last left in."""
        self.pinned.bind(teaching.tabs)
        teaching.tabs.currentChanged.connect(lambda _index: self._tab_changed())
        teaching.on_built(self._view_built)
        saved = str(self.settings.value("view/mode", "debug"))
        if saved in MODES_BY_KEY and saved != "debug":
            self.switch_pending = True
            QTimer.singleShot(0, self, lambda: self._enter_saved(saved))

    def _view_built(self, key: str, view: QWidget) -> None:
        """A teaching view has just been built: laid out for the current mode, its signals followed."""
        arrange_view(key, view, self.current)
        if key == "eras":
            view.wideWanted.connect(lambda: self.show_wide("eras"))

    def _enter_saved(self, key: str) -> None:
        self.switch_pending = False
        self.switch(key, save_current=False)
        self.window.update()  # painted in that mode: the window is complete then

    # --- switching -------------------------------------------------------------------------

    def switch(self, key: str, *, save_current: bool = True) -> None:
        """Leave the current mode (its layout saved) and enter `key`'s (saved, else its defaults)."""
        mode = MODES_BY_KEY[key]
        self.actions[key].setChecked(True)
        if key == self.current:
            self._show_tab(mode)
            return
        self.leave_presentation()
        teaching = self.teaching()
        if save_current:
            self.save_layout()
        self.current = key
        self.settings.setValue("view/mode", key)
        self._show_tab(mode)
        self._show_tab_bar(mode)
        if not self.workbench.restore(self.settings, prefix_of(key)):
            self.default_layout(mode)
        arrange(teaching, key)  # the views built so far; a later one is arranged as it is built

    def default_layout(self, mode: Mode | None = None) -> None:
        """The mode's own panels, the rest hidden, the sizes shared out from the window's."""
        mode = mode or MODES_BY_KEY[self.current]
        bench = self.workbench
        for panel in bench.panels().values():  # shown while sized: a hidden one's share is not kept
            panel.show()
        bench.default_sizes(bench.width() or self.window.width(), bench.height() or self.window.height())
        for name, panel in bench.panels().items():
            panel.setVisible(name in mode.panels)

    def save_layout(self) -> None:
        """The current mode's layout under its own prefix."""
        self.workbench.save(self.settings, prefix_of(self.current))

    def _show_tab_bar(self, mode: Mode) -> None:
        """Debug: every tab. A teaching mode with more than one view (Learn: Lessons, Eras): those
        tabs only. A mode of one view: no tab bar."""
        self.pinned.setVisible(mode.key == "debug" or bool(mode.also))
        for index, key in enumerate(TAB_KEYS):
            self.pinned.setTabVisible(index, mode.key == "debug" or key in (mode.tab, *mode.also))

    def show_wide(self, tab: str) -> None:
        """Show teaching tab `tab` in the mode that gives it the whole window (Eras: Learn)."""
        self.teaching().show(tab)
        self.switch(OWNER.get(tab, "debug"))

    def _shown_key(self) -> str:
        current = self.teaching().tabs.currentIndex()
        return TAB_KEYS[current] if 0 <= current < len(TAB_KEYS) else ""

    def _show_tab(self, mode: Mode) -> None:
        teaching = self.teaching()
        shown = self._shown_key()
        if mode.key != "debug" or teaching.tabs.currentIndex() < 0:
            if OWNER.get(shown) != mode.key or mode.key == "debug":  # a view of this mode stays shown
                teaching.show(mode.tab)
        elif shown in OWNER:
            teaching.show("flow")  # Debug is about the flow; the teaching views have their own modes

    def _tab_changed(self) -> None:
        """In a teaching mode a Teach menu entry showed another view: follow it into its mode. In
        Debug every tab stays reachable as before modes (the teaching views are still tabs there)."""
        wanted = OWNER.get(self._shown_key(), "debug")
        if self.current != "debug" and wanted != self.current:
            QTimer.singleShot(0, self, lambda: self.switch(wanted))
