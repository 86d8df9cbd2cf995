"""SIGTERM quits the window cleanly: `quit_on_terminate(window)`.

Why: a session ended by `kill`, a logout or a service manager died in the signal's default action,
so the autosave journal was never closed and the next start "recovered" a run that had not crashed.
Now the signal closes the window as File ▸ Quit does (layout saved, studio stopped, the journal
becoming the last session).

How: Python runs a signal handler only when the interpreter gets control, which a Qt event loop
idling in C++ does not give it. The C-level handler writes the signal's number to a socket
(`signal.set_wakeup_fd`); a QSocketNotifier on the other end wakes the Qt loop, which closes the window.
"""

import signal
import socket
from collections.abc import Callable
from types import FrameType

from PySide6.QtCore import QObject, QSocketNotifier
from PySide6.QtWidgets import QWidget

SIGNALS = (signal.SIGTERM,)


class _Waker(QObject):
    def __init__(self, window: QWidget, on_signal: Callable[[], object]) -> None:
        super().__init__(window)
        self.reader, self.writer = socket.socketpair()
        for end in (self.reader, self.writer):
            end.setblocking(False)
        self.notifier = QSocketNotifier(self.reader.fileno(), QSocketNotifier.Type.Read, self)
        self.notifier.activated.connect(self._woken)
        self.on_signal = on_signal
        self.previous_fd = signal.set_wakeup_fd(self.writer.fileno())
        self.previous = {sig: signal.signal(sig, _noted) for sig in SIGNALS}

    def _woken(self) -> None:
        try:
            numbers = self.reader.recv(64)
        except BlockingIOError:
            return
        if any(number in SIGNALS for number in numbers):
            self.on_signal()

    def release(self) -> None:
        """Put the previous handlers back (the window is gone; a later signal has its default action)."""
        signal.set_wakeup_fd(self.previous_fd)
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        self.notifier.setEnabled(False)
        self.reader.close()
        self.writer.close()


def _noted(_signum: int, _frame: FrameType | None) -> None:
    """The Python-level handler does nothing: the wakeup byte already reached the Qt loop."""


def quit_on_terminate(window: QWidget) -> Callable[[], None]:
    """Close `window` on SIGTERM; returns the function that undoes it."""
    waker = _Waker(window, window.close)
    return waker.release
