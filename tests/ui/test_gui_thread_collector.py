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
    ((700, 11, 11), None),  # nothing until generation 0 is over its threshold (not at it)
    ((701, 0, 0), 0),
    ((701, 10, 10), 0),
    ((701, 11, 0), 1),
    ((701, 11, 10), 1),
    ((701, 11, 11), 2),
    ((701, 0, 11), 2),  # the oldest generation over its threshold first
])
def test_the_generation_due_is_the_one_cpython_would_collect(counts: tuple[int, int, int],
                                                             expected: int | None) -> None:
    assert due_generation(counts, (700, 10, 10)) == expected
    assert due_generation(counts, (0, 10, 10)) is None  # a threshold of 0: collection off


def test_a_full_collection_waits_as_cpython_makes_it_wait() -> None:
    """Modules/gcmodule.c: a full collection only once the objects moved into the oldest generation
    since the last one are a quarter of what it held then; until then the next generation down."""
    assert due_generation((701, 11, 11), (700, 10, 10), long_lived_pending=249, long_lived_total=1000) == 1
    assert due_generation((701, 0, 11), (700, 10, 10), long_lived_pending=249, long_lived_total=1000) == 0
    assert due_generation((701, 11, 11), (700, 10, 10), long_lived_pending=250, long_lived_total=1000) == 2


def test_the_collector_keeps_cpythons_bookkeeping(qapp: Any) -> None:
    collector = gui_thread_collector.install(qapp)
    kept = [[] for _ in range(3000)]  # alive: they survive into the oldest generation
    gc.collect(0)
    collector.long_lived_pending = 0
    for _ in range(11):  # generation 1 over its threshold, generation 0 over its own
        gc.collect(0)
    more = [[] for _ in range(800)]
    gc.collect(2)
    collector.long_lived_total = len(gc.get_objects(2))
    for _ in range(11):
        gc.collect(0)
    even_more = [[] for _ in range(800)]
    assert collector.check() == 1
    assert collector.long_lived_pending >= 800  # those lists (and their container) moved up
    del kept, more, even_more


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
