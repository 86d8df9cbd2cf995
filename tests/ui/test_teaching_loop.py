"""The qasync loop the teaching tests drive the views on (the same loop `mrtr-studio` runs).

Views never block: buttons spawn tasks on the loop. A test clicks, then lets the loop (and with it
Qt's event loop) run until the widget shows what it should, with a deadline, never a bare sleep.
"""

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from mrtr_studio.ui.async_bridge import install_event_loop


@contextmanager
def qt_loop(app: QApplication) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync loop installed as the current asyncio loop for the duration of one test."""
    loop = install_event_loop(app)
    try:
        yield loop
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()
        asyncio.set_event_loop(None)


def run_until(loop: asyncio.AbstractEventLoop, done: Callable[[], bool], timeout: float = 20.0,
              what: str = "condition") -> None:
    """Run the loop until `done()` is true; fail (not hang) after `timeout` seconds."""

    async def wait() -> None:
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what} not reached within {timeout} s")
            await asyncio.sleep(0.01)

    loop.run_until_complete(wait())


def click_in_loop(qtbot, loop: asyncio.AbstractEventLoop, widget) -> None:
    """Click as a person does in the running window: inside the running loop. qtbot's click outside it
    lets Qt run the loop's pending callbacks with no running loop set (qasync runs them from Qt's
    event processing), so a task step woken by the click fails with "no running event loop"."""

    async def click() -> None:
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)
        await asyncio.sleep(0)

    loop.run_until_complete(click())


def test_run_until_fails_instead_of_hanging(qapp) -> None:
    with qt_loop(qapp) as loop, pytest.raises(TimeoutError):
        run_until(loop, lambda: False, timeout=0.1)


def test_tasks_spawned_by_a_view_run_on_the_loop(qapp) -> None:
    from mrtr_studio.ui.async_bridge import spawn

    seen: list[int] = []

    async def work() -> None:
        await asyncio.sleep(0.01)
        seen.append(1)

    with qt_loop(qapp) as loop:
        spawn(work(), "test")
        run_until(loop, lambda: seen == [1], timeout=5)
