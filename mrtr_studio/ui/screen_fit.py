"""Keeping a top-level window, frame and title bar included, inside the screen's available geometry.

Why a watcher: under X11 the window manager reparents the window into its frame only after it is
mapped, and Qt learns the frame's size (`_NET_FRAME_EXTENTS`) some tens of milliseconds later with
no event of its own: neither showEvent nor a zero timer sees it. A window sized to the whole work
area then has its title bar above the screen (openbox at 1366x768 put the frame at (-1, -20)).
So after the first show the window is checked on a short timer, bounded in time, and fitted again
whenever the frame's margins change; without a window manager the margins stay zero and one check
suffices. Sizes are Qt's device-independent pixels, so the same arithmetic holds at any scale.
"""

from collections.abc import Callable

from PySide6.QtCore import QObject, QRect, QTimer
from PySide6.QtWidgets import QWidget

#: How often and for how long the frame is looked at after the first show (a slow WM can take a while).
CHECK_EVERY_MS = 40
WATCH_FOR_MS = 3000


def fitted_client(client: QRect, frame: QRect, room: QRect) -> QRect:
    """The client rectangle (position as Qt's `move` takes it: the frame's top-left) that puts
    `frame` wholly inside `room`, shrinking the client only as much as the frame needs."""
    extra_w, extra_h = frame.width() - client.width(), frame.height() - client.height()
    width = max(1, min(client.width(), room.width() - extra_w))
    height = max(1, min(client.height(), room.height() - extra_h))
    x = min(max(frame.x(), room.left()), room.right() + 1 - width - extra_w)
    y = min(max(frame.y(), room.top()), room.bottom() + 1 - height - extra_h)
    return QRect(max(x, room.left()), max(y, room.top()), width, height)


def fit_window(window: QWidget, room: QRect) -> bool:
    """Resize and move `window` so that its frame fits `room`; True when anything changed."""
    client, frame = window.geometry(), window.frameGeometry()
    target = fitted_client(client, frame, room)
    changed = False
    if (target.width(), target.height()) != (client.width(), client.height()):
        window.resize(target.width(), target.height())
        changed = True
    if (target.x(), target.y()) != (frame.x(), frame.y()):
        window.move(target.x(), target.y())
        changed = True
    return changed


def frame_margins(window: QWidget) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the window manager's frame, zeros while none is known."""
    client, frame = window.geometry(), window.frameGeometry()
    return (client.left() - frame.left(), client.top() - frame.top(),
            frame.right() - client.right(), frame.bottom() - client.bottom())


class FrameWatcher(QObject):
    """After `start()`, fits the window each time its frame margins change, for WATCH_FOR_MS.

    Only a change of margins triggers a fit, so a person dragging the window meanwhile is not
    pulled back; the timer stops by itself."""

    def __init__(self, window: QWidget, room: Callable[[], QRect]) -> None:
        super().__init__(window)
        self.window, self.room = window, room
        self.timer = QTimer(self)
        self.timer.setInterval(CHECK_EVERY_MS)
        self.timer.timeout.connect(self.check)
        self._left = 0
        self._margins: tuple[int, int, int, int] | None = None
        self.fits = 0  # how many times a fit changed the window (for tests and diagnostics)

    def start(self) -> None:
        self._left = WATCH_FOR_MS // CHECK_EVERY_MS
        self.check()
        self.timer.start()

    def check(self) -> None:
        margins = frame_margins(self.window)
        if margins != self._margins:
            self._margins = margins
            if fit_window(self.window, self.room()):
                self.fits += 1
        self._left -= 1
        if self._left <= 0:
            self.timer.stop()
