"""The window's frame stays on the screen: a window manager's frame that appears after the first
show (as openbox's does, unannounced) makes the window shrink and move until the frame fits."""

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QRect, QSettings, QSize
from PySide6.QtWidgets import QWidget

from mrtr_studio.studio.controller import Studio
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.screen_fit import CHECK_EVERY_MS, WATCH_FOR_MS, FrameWatcher, fitted_client

OPENBOX = (1, 20, 1, 5)  # left, top, right, bottom: _NET_FRAME_EXTENTS as openbox reported them


def test_the_frame_is_fitted_inside_the_room() -> None:
    room = QRect(0, 0, 1366, 768)
    client = QRect(0, 0, 1366, 768)
    frame = QRect(-1, -20, 1368, 793)  # what openbox made of a client sized to the whole screen
    fitted = fitted_client(client, frame, room)
    assert (fitted.x(), fitted.y(), fitted.width(), fitted.height()) == (0, 0, 1366 - 2, 768 - 25)
    # a room that does not start at the origin (a panel on the left, one on top)
    room = QRect(50, 30, 1000, 700)
    fitted = fitted_client(QRect(1, 20, 1200, 900), QRect(0, 0, 1202, 925), room)
    assert room.contains(QRect(fitted.x(), fitted.y(), fitted.width() + 2, fitted.height() + 25))
    # a window already inside stays as it is
    assert fitted_client(QRect(101, 120, 500, 400), QRect(100, 100, 502, 425), room) == QRect(100, 100, 500, 400)


class Framed(QWidget):
    """A top-level window as an X11 window manager treats it: `move` places the frame, whose
    margins become known only some time after the show (`margins` is set by the test)."""

    def __init__(self) -> None:
        super().__init__()
        self.margins = (0, 0, 0, 0)
        self.corner = QPoint(0, 0)  # the frame's top-left
        self.client = QSize(1366, 768)

    def geometry(self) -> QRect:  # type: ignore[override]
        left, top, _, _ = self.margins
        return QRect(self.corner + QPoint(left, top), self.client)

    def frameGeometry(self) -> QRect:  # type: ignore[override]
        left, top, right, bottom = self.margins
        return self.geometry().adjusted(-left, -top, right, bottom)

    def resize(self, width: int, height: int) -> None:  # type: ignore[override]
        self.client = QSize(width, height)

    def move(self, x: int, y: int) -> None:  # type: ignore[override]
        self.corner = QPoint(x, y)


def test_a_frame_added_after_the_show_is_fitted_and_a_moved_window_stays(qtbot: Any) -> None:
    room = QRect(0, 0, 1366, 768)
    window = Framed()
    qtbot.addWidget(window)
    watcher = FrameWatcher(window, lambda: room)
    watcher.start()
    assert watcher.fits == 0 and window.frameGeometry() == room  # no window manager (yet): nothing to do
    window.corner = QPoint(-1, -20)  # openbox reparents, keeping the client where it was
    window.margins = OPENBOX
    qtbot.waitUntil(lambda: watcher.fits == 1, timeout=2000)
    assert window.frameGeometry() == room  # all the room, the title bar on the screen
    window.corner = QPoint(-300, 50)  # the person drags it partly off: the margins did not change
    qtbot.wait(3 * CHECK_EVERY_MS)
    assert window.corner == QPoint(-300, 50) and watcher.fits == 1


def test_without_a_window_manager_the_window_fills_the_room(qtbot: Any, tmp_path: Path) -> None:
    room = QRect(0, 0, 1366, 768)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(Studio(), settings, interactive_answers=False, available=room)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    qtbot.wait(3 * CHECK_EVERY_MS)
    assert win.frameGeometry() == room and win.frame_watcher.timer.isActive()
    qtbot.waitUntil(lambda: not win.frame_watcher.timer.isActive(), timeout=WATCH_FOR_MS + 2000)  # stops by itself
