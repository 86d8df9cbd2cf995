"""How each teaching view lays itself out when its mode gives it the whole window.

Why a module apart from the views: the views stay usable as tabs beside the Debug workbench (where
their room is a third of the window); these arrangements only make sense at full width, and each is
undone when the view goes back to being a tab.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QAbstractScrollArea, QSplitter, QTableWidget, QTabWidget, QWidget

if TYPE_CHECKING:
    from .teaching import TeachingTabs
    from .teaching.cluster_view import ClusterView
    from .teaching.lab_view import LabView


def arrange(teaching: "TeachingTabs", mode: str) -> None:
    """Lay the views built so far out for `mode` ("debug", "learn", "lab" or "cluster"); a view built
    later is laid out as it arrives (`Modes._view_built`), so none is built only to be arranged."""
    for key, view in teaching.built_views().items():
        arrange_view(key, view, mode)


def arrange_view(key: str, view: QWidget, mode: str) -> None:
    """Lay one teaching view ("lessons", "lab", "eras", "cluster") out for `mode`."""
    if key == "cluster":
        cluster_wide(view, mode == "cluster")  # type: ignore[arg-type]
    elif key == "eras":
        view.set_whole_window(mode == "learn")
    elif key == "lab":
        _arrange_lab(view, mode)  # type: ignore[arg-type]


def _arrange_lab(lab: "LabView", mode: str) -> None:
    if not hasattr(lab, "_fits_rows"):  # once: refit when rows change height or the window its size
        for header in (lab.grid.verticalHeader(), lab.grid.horizontalHeader()):  # rows taller, columns wider
            header.sectionResized.connect(
                lambda *_: QTimer.singleShot(0, lab, lambda: fit_lab_rows(lab)) if lab._fits_rows else None)
        split = lab.grid.parentWidget()
        if split is not None:
            lab._refit = _RefitOnResize(split, lambda: fit_lab_rows(lab) if lab._fits_rows else None)
    lab._fits_rows = mode == "lab"
    if mode == "lab":
        fit_lab_rows(lab)


class _RefitOnResize(QObject):
    """Calls `refit` after `watched` changed size (a window manager's frame, a maximised window)."""

    def __init__(self, watched: QWidget, refit: Callable[[], object]) -> None:
        super().__init__(watched)
        self.refit = refit
        watched.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            QTimer.singleShot(0, self, self.refit)
        return False


def table_content_height(table: QTableWidget) -> int:
    """The height that shows every row of `table` without a vertical scroll bar (measured from the
    table's own width, not its viewport's, which a vertical scroll bar shown now has narrowed)."""
    rows = sum(table.rowHeight(row) for row in range(table.rowCount()))
    header = table.horizontalHeader().height() if table.horizontalHeader().isVisible() else 0
    side = table.verticalHeader().width() if table.verticalHeader().isVisible() else 0
    columns = sum(table.columnWidth(c) for c in range(table.columnCount()))
    wide = columns + side > table.width() - 2 * table.frameWidth()
    below = table.horizontalScrollBar().sizeHint().height() if wide else 0
    return rows + header + below + 2 * table.frameWidth()


def fit_lab_rows(lab: "LabView") -> None:
    """Every attack's row in view: the table gets the height its rows need, the diagram the rest."""
    split = lab.grid.parentWidget()
    if not isinstance(split, QSplitter):
        return
    total = sum(split.sizes())
    needed = table_content_height(lab.grid)
    if total > 0:
        split.setSizes([min(needed, total - 120), max(120, total - needed)])


def cluster_wide(view: "ClusterView", wide: bool) -> None:
    """Wide: the replay table beside the flow across nodes, both in view at once (in a tab they
    took turns); narrow: the replay back as the second tab."""
    pages: QTabWidget = view.pages
    replay: QWidget = view.replay
    holder = getattr(view, "_mode_split", None)
    if wide and holder is None:
        index = pages.indexOf(replay)
        if index >= 0:
            pages.removeTab(index)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("clusterModeSplit")
        split.setChildrenCollapsible(False)
        layout = view.layout()
        assert layout is not None
        layout.replaceWidget(pages, split)
        split.addWidget(pages)
        split.addWidget(replay)
        replay.show()
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        view._mode_split = split
    elif not wide and isinstance(holder, QSplitter):
        layout = view.layout()
        assert layout is not None
        layout.replaceWidget(holder, pages)
        pages.insertTab(1, replay, "Replay: memory vs shared store")  # before the Load page, as built
        holder.deleteLater()
        view._mode_split = None


def shows_without_scrolling(area: QAbstractScrollArea) -> bool:
    """No vertical scroll bar needed: what the area holds fits its viewport."""
    bar = area.verticalScrollBar()
    return bar.maximum() == bar.minimum()
