"""asyncio joined to Qt with qasync: one loop, the GUI thread, so the window never blocks on I/O.

Slots never wait: they `spawn()` a coroutine and return. A failing task is reported to the
window (status bar and problems panel) through `on_error`, not only to the console.
"""

import asyncio
import logging
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import qasync
from PySide6.QtWidgets import QApplication

T = TypeVar("T")
_log = logging.getLogger(__name__)
_running: set["asyncio.Task[Any]"] = set()
#: Where unexpected task failures go (the main window installs its problems panel here).
error_sink: list[Callable[[str], None]] = []


class StudioEventLoop(qasync.QEventLoop):
    """qasync's loop with asyncio's async-generator hooks installed while it runs.

    asyncio's own run_forever installs them; qasync's does not. Without them an async generator
    left suspended (httpx's body iterators when an SSE stream is left as soon as the response is
    read) is finalised by the garbage collector outside any task, and httpcore's close fails there
    ("Attempted to exit cancel scope in a different task"). With them the loop closes it in a task
    of its own, as under plain asyncio.
    """

    def run_forever(self) -> Any:
        previous = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook)
        try:
            return super().run_forever()
        finally:
            sys.set_asyncgen_hooks(*previous)


def install_event_loop(app: QApplication) -> asyncio.AbstractEventLoop:
    """A qasync loop for `app`, made the current asyncio loop (the window's, and every Qt test's)."""
    loop = StudioEventLoop(app)
    asyncio.set_event_loop(loop)
    return loop



def report(text: str) -> None:
    if not error_sink:
        _log.error("%s", text)
    for sink in list(error_sink):
        sink(text)


def in_flight(task: "asyncio.Task[Any] | None") -> bool:
    """A panel's one task is running (started and not done): its Run waits, its Stop has work to stop."""
    return task is not None and not task.done()


def spawn(coro: Coroutine[Any, Any, T], what: str = "") -> "asyncio.Task[T]":
    """Run `coro` on the loop without waiting; exceptions go to the window's problems panel."""
    task = asyncio.ensure_future(coro)
    _running.add(task)

    def done(finished: "asyncio.Task[T]") -> None:
        _running.discard(finished)
        if not finished.cancelled() and finished.exception() is not None:
            exc = finished.exception()
            report(f"{what or 'task'} failed: {type(exc).__name__}: {exc}")

    task.add_done_callback(done)
    return task
