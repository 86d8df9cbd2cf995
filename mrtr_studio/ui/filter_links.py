"""What the filter bar's expression does outside the log: the operations list dims the operations
no message of which matches, the diagram dims the arrows that do not match; and the filter is bound
again as the trace grows (a running flow, a file opened), so `duration:` and `state:altered` see the
new replies and retries.

Dimming, not hiding, in those two: an operation's flow keeps its shape, and what the filter picked out
stands out in it.
"""

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer

from .store_bridge import message_by_seq

if TYPE_CHECKING:
    from .main_window import MainWindow

DIMMED = 0.25


def install(window: "MainWindow") -> None:
    bar = window.log.filter_bar
    bar.settings = window.settings  # saved filters live with the window's other settings
    rebind = QTimer(window)
    rebind.setSingleShot(True)
    rebind.setInterval(0)
    rebind.timeout.connect(lambda: bar.rebind() if bar.filter is not None else None)
    redim = QTimer(window)
    redim.setSingleShot(True)
    redim.setInterval(30)  # after the diagram's own zero-timer rebuild
    redim.timeout.connect(lambda: dim_diagram(window))

    def grown(*_args: object) -> None:
        if bar.filter is not None:
            rebind.start()

    model = window.log.model
    model.rowsInserted.connect(grown)
    model.rowsInserted.connect(lambda *_: redim.start())  # live arrows of a running flow
    model.modelReset.connect(grown)
    window.selection.operationChanged.connect(lambda _id: redim.start())
    bar.changed.connect(lambda: dim_operations(window))
    bar.changed.connect(redim.start)


def dim_operations(window: "MainWindow") -> None:
    bound = window.log.filter_bar.bound()
    model = window.operations.model
    model.matches = bound.matches_operation if bound is not None else None
    if model.rowCount():
        model.dataChanged.emit(model.index(0, 0), model.index(model.rowCount() - 1, model.columnCount() - 1))


def dim_diagram(window: "MainWindow") -> None:
    bound = window.log.filter_bar.bound()
    store = window.studio.store
    for seq, item in window.diagram.arrow_items.items():
        entry = message_by_seq(store, seq) if bound is not None else None
        item.setOpacity(DIMMED if entry is not None and bound is not None and not bound.matches(entry) else 1.0)
