"""The window's workbench: a side column, the centre, the inspectors and the bottom panels, each
divider a QSplitter handle the person can drag.

Every panel sits in a QScrollArea. That is what keeps the window from resizing itself: a panel
whose content grows (a long header after selecting a message, a taller checklist) would otherwise
raise its minimum size, and through it the window's, past the screen. Inside a scroll area the
content scrolls instead, and the minimum stays a scroll bar's width.

    ┌────────────┬──────────────────────────┬──────────────┐
    │ Server     │ Flow | Lessons | Lab …   │ JSON | state │
    │ Client     │                          │ | Step       │
    │ Arguments  │                          │              │
    │            ├──────────────────────────┴──────────────┤
    │            │ Operations | Messages | Problems        │
    └────────────┴─────────────────────────────────────────┘

The side column runs the window's full height: what a run needs (the target list, the client's
era and capabilities, the arguments) then fits a 1366x768 screen without scrolling, and the
operations list still spans the diagram and the inspectors it drives.
"""

from PySide6.QtCore import QByteArray, QDataStream, QIODevice, QSettings, Qt
from PySide6.QtWidgets import (
    QFrame,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .builders import splitter

#: The smallest a panel may be squeezed to: small enough that 1280x720 always fits.
PANEL_MINIMUM = 120


def scrolled(widget: QWidget, name: str) -> QScrollArea:
    """`widget` filling a scroll area: it uses all the room it is given, and scrolls when squeezed."""
    area = QScrollArea()
    area.setObjectName(name)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(widget)
    area.setMinimumSize(PANEL_MINIMUM // 2, PANEL_MINIMUM // 2)
    return area


class CollapsibleSection(QWidget):
    """A titled part of the side column that folds to its title with one click."""

    def __init__(self, title: str, content: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.content = content
        self.header = QToolButton()
        self.header.setText(title)
        self.header.setCheckable(True)
        self.header.setChecked(True)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setArrowType(Qt.ArrowType.DownArrow)
        self.header.setAutoRaise(True)
        self.header.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        font = self.header.font()
        font.setBold(True)
        self.header.setFont(font)
        self.header.toggled.connect(self.set_expanded)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.header)
        layout.addWidget(content)

    @property
    def expanded(self) -> bool:
        return self.header.isChecked()

    def set_expanded(self, expanded: bool) -> None:
        self.header.setChecked(expanded)
        self.header.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.content.setVisible(expanded)


class Workbench(QSplitter):
    """The window's central widget: the side column beside `right`, which holds `top`
    (centre | inspectors) over `bottom`."""

    def __init__(self, sections: dict[str, tuple[str, QWidget]], inspectors: dict[str, tuple[str, QWidget]],
                 bottom: dict[str, tuple[str, QWidget]], parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setObjectName("workbench")
        self.setChildrenCollapsible(False)
        column = QWidget()
        column.setObjectName("sideColumn")
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(4, 4, 4, 4)
        self.sections: dict[str, CollapsibleSection] = {}
        for index, (key, (title, widget)) in enumerate(sections.items()):
            section = CollapsibleSection(title, widget)
            section.setObjectName(f"section:{key}")
            self.sections[key] = section
            # The first (the server's list) and the last (the arguments, whose form scrolls in a box
            # of steady size) share the spare room: neither depends on the selected target.
            column_layout.addWidget(section, 1 if index in (0, len(sections) - 1) else 0)
        column_layout.addStretch(0)  # the spare room when the first is folded
        self.side = scrolled(column, "sidePanel")
        self.centre = QScrollArea()
        self.centre.setObjectName("centrePanel")
        self.centre.setWidgetResizable(True)
        self.centre.setFrameShape(QFrame.Shape.NoFrame)
        self.centre.setMinimumSize(PANEL_MINIMUM * 2, PANEL_MINIMUM)
        self.inspectors = self._tabs("inspectorTabs", inspectors)
        self.bottom = self._tabs("bottomTabs", bottom)
        self.top = splitter("topSplitter", Qt.Orientation.Horizontal, self.centre, self.inspectors)
        self.right = splitter("rightSplitter", Qt.Orientation.Vertical, self.top, self.bottom)
        self.addWidget(self.side)
        self.addWidget(self.right)
        self.setStretchFactor(1, 1)

    # --- the dividers as one state ---------------------------------------------------------

    def saveState(self) -> QByteArray:
        """Both the column divider and the bottom panel's divider, in one value."""
        data = QByteArray()
        stream = QDataStream(data, QIODevice.OpenModeFlag.WriteOnly)
        stream << super().saveState() << self.right.saveState()
        return data

    def restoreState(self, state: QByteArray | bytes | bytearray | memoryview) -> bool:
        stream = QDataStream(state if isinstance(state, QByteArray) else QByteArray(bytes(state)))
        own, right = QByteArray(), QByteArray()
        stream >> own >> right
        if stream.status() != QDataStream.Status.Ok:
            return False
        return super().restoreState(own) and self.right.restoreState(right)

    def column_sizes(self) -> list[int]:
        """[side, centre, inspectors] widths."""
        return [self.sizes()[0], *self.top.sizes()]

    def set_column_sizes(self, sizes: list[int]) -> None:
        side, centre, right = sizes
        self.setSizes([side, centre + right + self.top.handleWidth()])
        self.top.setSizes([centre, right])

    def _tabs(self, name: str, pages: dict[str, tuple[str, QWidget]]) -> QTabWidget:
        tabs = QTabWidget()
        tabs.setObjectName(name)
        tabs.setDocumentMode(True)
        tabs.setMinimumSize(PANEL_MINIMUM, PANEL_MINIMUM)
        for key, (title, widget) in pages.items():
            page = scrolled(widget, f"page:{key}")
            tabs.addTab(page, title)
        return tabs

    def set_centre(self, widget: QWidget) -> None:
        """Put `widget` in the centre; for tabs, only the visible page's minimum size counts."""
        self.centre.takeWidget()
        self.centre.setWidget(widget)
        if isinstance(widget, QTabWidget):
            widget.currentChanged.connect(lambda _index, tabs=widget: only_current_page_counts(tabs))
            only_current_page_counts(widget)

    def page_index(self, tabs: QTabWidget, widget: QWidget) -> int:
        """The tab holding `widget` (each page is the scroll area around it)."""
        for index in range(tabs.count()):
            page = tabs.widget(index)
            if page is widget or (isinstance(page, QScrollArea) and page.widget() is widget):
                return index
        return -1

    def show_page(self, tabs: QTabWidget, widget: QWidget) -> None:
        index = self.page_index(tabs, widget)
        if index >= 0:
            tabs.setCurrentIndex(index)

    # --- sizes -----------------------------------------------------------------------------

    def default_sizes(self, width: int, height: int) -> None:
        """Share the window's room out: side and inspectors about a quarter each, the log a quarter."""
        content = self.side.widget()
        needed = (content.minimumSizeHint().width() if content is not None else 0) \
            + self.side.verticalScrollBar().sizeHint().width() + 4
        side = max(needed, min(width * 24 // 100, 360))  # "Streamable HTTP" whole in the kind box at 1366
        right = max(380, width * 26 // 100)
        self.set_column_sizes([side, max(PANEL_MINIMUM * 2, width - side - right), right])
        bottom = max(170, height * 28 // 100)
        self.right.setSizes([max(PANEL_MINIMUM, height - bottom), bottom])
        for section in self.sections.values():
            section.set_expanded(True)
        for panel in (self.side, self.inspectors, self.bottom):
            panel.setVisible(True)

    def save(self, settings: QSettings, prefix: str = "layout") -> None:
        settings.setValue(f"{prefix}/main", self.saveState())
        settings.setValue(f"{prefix}/top", self.top.saveState())
        settings.setValue(f"{prefix}/inspector_tab", self.inspectors.currentIndex())
        settings.setValue(f"{prefix}/bottom_tab", self.bottom.currentIndex())
        settings.setValue(f"{prefix}/collapsed", ",".join(k for k, s in self.sections.items() if not s.expanded))
        settings.setValue(f"{prefix}/hidden", ",".join(name for name, panel in self.panels().items()
                                                       if panel.isHidden()))

    def restore(self, settings: QSettings, prefix: str = "layout") -> bool:
        main, top = settings.value(f"{prefix}/main"), settings.value(f"{prefix}/top")
        if not (isinstance(main, QByteArray) and isinstance(top, QByteArray)):
            return False
        if not (self.restoreState(main) and self.top.restoreState(top)):
            return False
        self.inspectors.setCurrentIndex(_int(settings.value(f"{prefix}/inspector_tab"), 0))
        self.bottom.setCurrentIndex(_int(settings.value(f"{prefix}/bottom_tab"), 0))
        collapsed = set(str(settings.value(f"{prefix}/collapsed", "")).split(","))
        for key, section in self.sections.items():
            section.set_expanded(key not in collapsed)
        hidden = set(str(settings.value(f"{prefix}/hidden", "")).split(","))
        for name, panel in self.panels().items():
            panel.setVisible(name not in hidden)
        return True

    def panels(self) -> dict[str, QWidget]:
        """The panels around the centre, by the name the View menu and the settings use."""
        return {"side": self.side, "inspectors": self.inspectors, "bottom": self.bottom}


def only_current_page_counts(tabs: QTabWidget) -> None:
    """A tab widget is as wide as its widest page, hidden ones too; an Ignored size policy on the
    hidden pages takes them out of that sum, so a wide Eras tab does not widen the Flow tab."""
    ignored, preferred = QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred
    for index in range(tabs.count()):
        page = tabs.widget(index)
        if page is not None:
            current = index == tabs.currentIndex()
            page.setSizePolicy(preferred if current else ignored, preferred if current else ignored)
            if current:
                page.updateGeometry()


def _int(value: object, default: int) -> int:
    try:
        return int(str(value))
    except ValueError:
        return default
