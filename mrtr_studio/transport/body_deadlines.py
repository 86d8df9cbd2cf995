"""The deadline for reading request bodies: one sweeping timer for every request, not one per request.

Every POST reads a body, so a per-request timer (`asyncio.timeout`, or a `call_later` handle) is
paid by every request (about 5 us on the default loop, a tenth of serving a small request), while
the deadline only matters for the rare client that stops mid-body. So readers only note when they
started; one timer, running while there are readers, cancels any reader whose deadline passed.
It wakes at a fraction of the deadline, so a deadline fires late by at most that fraction.
Deadlines are on the monotonic clock, so noting one needs no event loop lookup (which costs as much
as the rest of `started`); the loop is only asked for when the timer has to be armed.
"""

import asyncio
import time
from typing import Any


class BodyDeadlines:
    """`started(task)` before reading, `finished(task)` after; `expired(task)` says why it was cancelled."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.tick = min(1.0, seconds / 4)
        self._reading: dict[asyncio.Task[Any], float] = {}
        self._expired: set[asyncio.Task[Any]] = set()
        self._timer: asyncio.TimerHandle | None = None

    def started(self, task: "asyncio.Task[Any]") -> None:
        self._reading[task] = time.monotonic() + self.seconds
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.tick, self._sweep)

    def finished(self, task: "asyncio.Task[Any]") -> None:
        self._reading.pop(task, None)
        self._expired.discard(task)

    def expired(self, task: "asyncio.Task[Any]") -> bool:
        """True (once) when `task` was cancelled because its deadline passed."""
        if task in self._expired:
            self._expired.discard(task)
            return True
        return False

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _sweep(self) -> None:
        self._timer = None
        now = time.monotonic()
        for task, deadline in list(self._reading.items()):
            if deadline <= now:
                del self._reading[task]
                self._expired.add(task)
                task.cancel()
        if self._reading:
            self._timer = asyncio.get_running_loop().call_later(self.tick, self._sweep)
