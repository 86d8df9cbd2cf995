"""Tab and Shift+Tab in the order the window reads: panel by panel (toolbars, the side column, the
centre, the inspectors, the bottom), and in each, top to bottom and left to right.

Why: Qt's focus chain is the order widgets were created in. The side column's section headers were
made after their contents and the argument fields are rebuilt for each target (joining the chain at
its end), so Tab went from the Arguments header to the inspector tabs before the argument fields.
Computing the next widget from where things are on screen keeps the order right however the panels
were built or rebuilt.
"""

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QDialog, QPlainTextEdit, QScrollArea, QTextEdit, QWidget

#: Widgets whose tops differ by less than this (px) are one row: a label and its field sit a few px apart.
ROW = 8


def _takes_tab(widget: QWidget) -> bool:
    """A control Tab should stop at: not a panel's scroll area (its fields are what Tab is for)."""
    return (bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus) and widget.isVisible() and widget.isEnabled()
            and widget.focusProxy() is None and not isinstance(widget, QScrollArea))


def visual_order(window: QWidget, regions: list[QWidget]) -> list[QWidget]:
    """Every widget of `window` Tab can land on, in reading order; `regions` are the panels, in order."""
    def key(widget: QWidget) -> tuple[int, int, int]:
        region = next((i for i, r in enumerate(regions) if r is widget or r.isAncestorOf(widget)), -1)
        corner = widget.mapTo(window, QPoint(0, 0))
        return region, corner.y() // ROW, corner.x()

    return sorted((w for w in window.findChildren(QWidget) if w.window() is window and _takes_tab(w)), key=key)


def move_focus(window: QWidget, regions: list[QWidget], forward: bool) -> bool:
    """Focus the next (or previous) widget in reading order; False when there is none to go to."""
    order = visual_order(window, regions)
    if not order:
        return False
    current = QApplication.focusWidget()
    while current is not None and current not in order and current is not window:
        current = current.parentWidget()  # a combo box's line edit: move on from the box
    index = order.index(current) if current in order else (-1 if forward else 0)
    target = order[(index + (1 if forward else -1)) % len(order)]
    target.setFocus(Qt.FocusReason.TabFocusReason if forward else Qt.FocusReason.BacktabFocusReason)
    return True


class VisualTabOrder(QObject):
    """Takes Tab and Shift+Tab for one window (an application event filter, so the widgets that
    handle Tab themselves, like tab widgets, still follow it); text editors that take Tab as text keep it."""

    def __init__(self, window: QWidget, regions: list[QWidget]) -> None:
        super().__init__(window)
        self.window, self.regions = window, regions
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        shift = Qt.KeyboardModifier.ShiftModifier
        if event.key() not in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab) or event.modifiers() & ~shift:
            return False
        focus = QApplication.focusWidget()
        if focus is None or watched is not focus or focus.window() is not self.window:
            return False
        if isinstance(focus, QPlainTextEdit | QTextEdit) and not focus.tabChangesFocus() and not focus.isReadOnly():
            return False  # Tab is text there
        forward = event.key() == Qt.Key.Key_Tab and not event.modifiers() & shift
        return move_focus(self.window, self.regions, forward)


def present(dialog: QDialog) -> None:
    """Show `dialog` with the keyboard focus, and give it back to the window that had it once the
    dialog is done. Without a window manager nothing activates a new window: its fields did not take
    keys, and after it closed no window was active, so F8 (a window shortcut) did nothing."""
    before = QApplication.activeWindow()
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    if before is not None and before is not dialog:
        dialog.finished.connect(lambda _result, back=before: _reactivate(back))


def _reactivate(window: QWidget) -> None:
    try:
        if window.isVisible():
            window.raise_()
            window.activateWindow()
    except RuntimeError:  # the window went first
        pass
