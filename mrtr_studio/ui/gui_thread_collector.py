"""Python's cyclic garbage collector, run only on the GUI thread, from a timer.

Python collects in whichever thread happens to allocate when a generation's threshold is crossed. The
window has threads of its own (the log's filter worker, the export preview, the store's writers), so a
cycle holding a Python-owned QObject (a closed dialog, a view dropped with its window) could be collected
on one of them, and its C++ destructor then runs there. Qt cannot stop an object's timers from a thread
other than its own ("QObject::~QObject: Timers cannot be stopped from another thread"): they stay
registered, and the next one to fire is delivered to freed memory, a segmentation fault in
`QTimerInfoList::activateTimers` (the suite crashed so in `tests/ui/test_log_filter_worker.py` and
`tests/ui/test_main_window.py`, a core dump showing the freed receiver).

So `install(app)` turns automatic collection off and makes the decisions CPython's collector would,
by its thresholds and its rule for full collections, on a GUI-thread timer: a collection only ever
runs where the QObjects live. pyqtgraph does the same for the same reason
(`pyqtgraph.util.garbage_collector`). While the launch has the collector paused (`startup`), the
timer leaves it paused.
"""

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

from .. import startup

#: How often the GUI thread looks whether a generation is due: often enough that garbage never
#: piles up for long, rarely enough to cost nothing (one `gc.get_count()` a tick).
INTERVAL_MS = 100

_installed: "GuiThreadCollector | None" = None


def due_generation(counts: tuple[int, int, int], thresholds: tuple[int, int, int],
                   long_lived_pending: int = 0, long_lived_total: int = 0) -> int | None:
    """The generation CPython's own collector would collect now (None: none is due), by its rule
    (`gc_collect_generations` in Modules/gcmodule.c): only once generation 0 is over its threshold,
    then the oldest generation over its threshold, except that a full collection waits until the
    objects moved into the oldest generation since the last one (`long_lived_pending`) are a quarter
    of those it then held (`long_lived_total`): with a million-message trace open, a full collection
    walks it all, so it must stay as rare as Python keeps it."""
    if thresholds[0] == 0 or counts[0] <= thresholds[0]:
        return None
    for generation in (2, 1, 0):
        if counts[generation] > thresholds[generation]:
            if generation == 2 and long_lived_pending < long_lived_total // 4:
                continue
            return generation
    return None


class GuiThreadCollector(QObject):
    """The timer that collects on the GUI thread, and what the collector's state was before it."""

    def __init__(self, app: QCoreApplication) -> None:
        super().__init__(app)
        self.was_enabled = gc.isenabled()
        #: CPython's bookkeeping for its full-collection rule, kept the same way (see `due_generation`).
        self.long_lived_total = 0
        self.long_lived_pending = 0
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.timer.timeout.connect(self.check)
        gc.disable()
        self.timer.start()

    def check(self) -> int | None:
        """Collect the generation that is due, if any, unless the launch has the collector paused."""
        if startup.paused():
            return None
        generation = due_generation(gc.get_count(), gc.get_threshold(), self.long_lived_pending,
                                    self.long_lived_total)
        if generation == 2:
            gc.collect(2)
            self.long_lived_total, self.long_lived_pending = len(gc.get_objects(2)), 0
        elif generation == 1:  # the survivors of generations 0 and 1 move into the oldest
            young = len(gc.get_objects(0)) + len(gc.get_objects(1))
            self.long_lived_pending += max(0, young - gc.collect(1))
        elif generation == 0:
            gc.collect(0)
        return generation

    def stop(self) -> None:
        """Hand collection back to Python as it was before `install`."""
        self.timer.stop()
        if self.was_enabled and not startup.paused():
            gc.enable()


def install(app: QCoreApplication) -> GuiThreadCollector:
    """Collect on `app`'s thread from now on (once per process: the same collector again after that)."""
    global _installed
    if _installed is None:
        _installed = GuiThreadCollector(app)
    return _installed


def uninstall() -> None:
    """Automatic collection again (the tests' Qt package ends; the rest of the suite has no QObjects)."""
    global _installed
    if _installed is not None:
        _installed.stop()
        _installed = None


def installed() -> GuiThreadCollector | None:
    return _installed
