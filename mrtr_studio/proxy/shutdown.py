"""What stop signals ask of a recorder (proxy, wrap), from the first to the last.

The first SIGINT or SIGTERM stops the relay; the recording is then finished: the trace file written,
the journal removed. More SIGTERMs change nothing: `timeout` sends one to the process and another
to its whole group, and a supervisor may repeat itself; abandoning the write then would lose the
whole recording. A SIGINT while stopping is a person pressing Ctrl+C again: stop at once, keep the
journal (whole lines, fsync'ed: a complete trace the studio opens) and say so.

While the final document is written (`saving`), "at once" interrupts the write (the temporary file
is removed, the journal is already closed and complete); at any other time it only sets a flag the
recorder reads between messages, so a journal line is never torn.
"""

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

_STOPS = (signal.SIGINT, signal.SIGTERM)


class Abandoned(BaseException):
    """Raised in the final write when asked to stop at once (BaseException: nothing swallows it)."""


class StopRequests:
    def __init__(self) -> None:
        self.signals = 0
        self.at_once = False
        self.saving = False
        #: The first stop signal's number (its exit status is 128 + it), or 0.
        self.first_signal = 0
        self._listeners: list[Callable[[], None]] = []
        self._first: list[Callable[[], None]] = []

    def when_at_once(self, callback: Callable[[], None]) -> None:
        self._listeners.append(callback)

    def when_first(self, callback: Callable[[], None]) -> None:
        """`callback` on the first stop signal (stop the relay); it runs in a signal handler."""
        self._first.append(callback)

    def heard(self, signum: int) -> None:
        """A stop signal arrived."""
        self.signals += 1
        self.first_signal = self.first_signal or signum
        if self.signals == 1:
            for callback in self._first:
                callback()
        if signum == signal.SIGINT and self.signals > 1:
            self.stop_at_once()

    def stop_at_once(self) -> None:
        first = not self.at_once
        self.at_once = True
        if first:
            for callback in self._listeners:
                callback()

    def at_once_handler(self, signum: int, frame: FrameType | None) -> None:
        """A signal that always means "at once" (the proxy's recorder child gets SIGUSR1 from its parent)."""
        self.stop_at_once()
        if self.saving:
            raise Abandoned

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        self.heard(signum)
        if self.at_once and self.saving:
            raise Abandoned

    def install(self) -> None:
        """Handle INT and TERM here for the whole run, before any event loop starts: plain handlers are
        never replaced by the default (asyncio's loop puts SIG_DFL back when it closes; uvicorn swaps
        in its own while serving and restores these after, replaying what it caught), so no moment
        exists where one more SIGTERM kills the process."""
        for signum in _STOPS:
            signal.signal(signum, self._handler)

    def done(self) -> None:
        """Everything is written: more stop signals change nothing, and must not turn the exit status
        into "killed" while the interpreter finalizes (it puts the default handlers back then)."""
        for signum in _STOPS:
            signal.signal(signum, signal.SIG_IGN)

    @contextmanager
    def saving_phase(self) -> Iterator[None]:
        """While the trace document is written: stopping at once interrupts it."""
        if self.at_once:
            raise Abandoned
        self.saving = True
        try:
            yield
        finally:
            self.saving = False
