"""Arming a tamper while idle says so in the toolbar without moving a button: the indicator is the
last thing in the row, so the mode buttons stay where the mouse expects them."""

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QApplication, QWidget

from mrtr_studio.ui.main_window import MainWindow
from tests.ui.test_main_window import Runner, arun, settings, window  # noqa: F401  (fixtures)


def buttons(win: MainWindow) -> dict[str, QRect]:
    """Where every run and mode button is, in window coordinates."""
    found: dict[str, QRect] = {}
    for action in [*win.controls.actions(), *win.modes.actions.values()]:
        for widget in action.associatedObjects():
            if isinstance(widget, QWidget) and widget.isVisible() and widget is not win.menuBar():
                found[action.text()] = QRect(widget.mapTo(win, QPoint(0, 0)), widget.size())
    return found


def test_arming_a_tamper_moves_no_toolbar_button(window: MainWindow) -> None:  # noqa: F811
    window.resize(1366, 740)
    QApplication.processEvents()
    before = buttons(window)
    assert {"Run", "Step", "Debug", "Learn", "Lab", "Cluster"} <= {t.replace("&", "") for t in before}
    window.controls.tampers["malformed"].trigger()
    QApplication.processEvents()
    armed = window.armed
    assert armed.text().strip().startswith("⚑ armed: truncate")
    assert buttons(window) == before
    right_of_modes = max(rect.right() for rect in before.values())
    assert armed.mapTo(window, QPoint(0, 0)).x() > right_of_modes
    assert armed.visibleRegion().boundingRect() == armed.rect()  # all of it shown, none cut
