"""Garbage is collected on the GUI thread only (`ui/gui_thread_collector.py`): a QObject dropped in a
cycle is destroyed where it lives, however much another thread allocates; the collector makes Python's
own decisions on its timer, and leaves the launch's pause alone."""

import gc
import threading
from typing import Any

import pytest
from PySide6.QtCore import QObject, Qt

from mrtr_studio import startup
from mrtr_studio.ui import gui_thread_collector
from mrtr_studio.ui.gui_thread_collector import due_generation


@pytest.mark.parametrize(("counts", "expected"), [
    ((0, 0, 0), None),
    ((700, 9, 9), None),  # Python collects once the count exceeds the threshold, not at it
    ((701, 0, 0), 0),
    ((701, 9, 9), 0),
    ((701, 10, 0), 1),
    ((701, 10, 9), 1),
    ((701, 10, 10), 2),
])
def test_the_generation_due_is_the_one_python_would_collect(counts: tuple[int, int, int],
                                                            expected: int | None) -> None:
    assert due_generation(counts, (700, 10, 10)) == expected
    assert due_generation(counts, (0, 10, 10)) is None  # a threshold of 0: collection off


def test_the_qt_tests_and_the_window_have_automatic_collection_off(qapp: Any) -> None:
    collector = gui_thread_collector.installed()
    assert collector is not None and gui_thread_collector.install(qapp) is collector  # once per process
    assert not gc.isenabled()
    assert collector.timer.isActive()


def test_a_qobject_in_a_cycle_is_destroyed_on_the_gui_thread_not_on_a_busy_worker(qtbot: Any) -> None:
    gui = threading.get_ident()
    destroyed_on: list[int] = []
    obj = QObject()  # Python-owned: its C++ object (and its child's) dies with the wrapper
    obj.myself = obj  # a cycle: only the cyclic collector frees it
    child = QObject(obj)
    # direct: the slot runs on the thread that destroys the child (a queued one would always say the GUI's)
    child.destroyed.connect(lambda *_: destroyed_on.append(threading.get_ident()),
                            Qt.ConnectionType.DirectConnection)
    del obj, child

    def allocate() -> None:  # far past every threshold: automatic collection would run here, many times
        keep = [[] for _ in range(200_000)]
        del keep

    worker = threading.Thread(target=allocate)
    worker.start()
    worker.join()
    assert destroyed_on in ([], [gui])  # never on the worker
    ballast = [[] for _ in range(2000)]  # alive: generation 0 stays past its threshold for the timer to see
    qtbot.waitUntil(lambda: destroyed_on == [gui], timeout=5000)  # the timer's collection, on this thread
    del ballast


def test_the_timer_leaves_the_launch_pause_alone(qapp: Any) -> None:
    collector = gui_thread_collector.install(qapp)
    gc.disable()
    junk = [[] for _ in range(5000)]  # alive: counts well past generation 0's threshold
    startup._paused = True  # as `startup.pause()` leaves it in the window's process
    try:
        assert collector.check() is None
    finally:
        startup._paused = False
    assert collector.check() is not None
    del junk
