"""Python's cyclic garbage collector, run only on the GUI thread, from a timer.

Python collects in whichever thread happens to allocate when a generation's threshold is crossed. The
window has threads of its own (the log's filter worker, the export preview, the store's writers), so a
cycle holding a Python-owned QObject (a closed dialog, a view dropped with its window) could be collected
on one of them, and its C++ destructor then runs there. Qt cannot stop an object's timers from a thread
other than its own ("QObject::~QObject: Timers cannot be stopped from another thread"): they stay
registered, and the next one to fire is delivered to freed memory, a segmentation fault in
`QTimerInfoList::activateTimers` (the suite crashed so in `tests/ui/test_log_filter_worker.py` and
`tests/ui/test_main_window.py`, a core dump showing the freed receiver).

So `install(app)` turns automatic collection off and makes the same decisions Python would, with the
same thresholds, on a GUI-thread timer: a collection only ever runs where the QObjects live. pyqtgraph
does the same for the same reason (`pyqtgraph.util.garbage_collector`). While the launch has the
collector paused (`startup`), the timer leaves it paused.
"""

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

from .. import startup

#: How often the GUI thread looks whether a generation is due: often enough that garbage never
#: piles up for long, rarely enough to cost nothing (one `gc.get_count()` a tick).
INTERVAL_MS = 100

_installed: "GuiThreadCollector | None" = None


def due_generation(counts: tuple[int, int, int], thresholds: tuple[int, int, int]) -> int | None:
    """The generation Python itself would collect at these counts (None: none is due yet)."""
    if thresholds[0] == 0 or counts[0] <= thresholds[0]:
        return None
    if counts[1] < thresholds[1]:
        return 0
    return 2 if counts[2] >= thresholds[2] else 1


class GuiThreadCollector(QObject):
    """The timer that collects on the GUI thread, and what the collector's state was before it."""

    def __init__(self, app: QCoreApplication) -> None:
        super().__init__(app)
        self.was_enabled = gc.isenabled()
        self.collections = 0  # how many collections this timer ran (tests read it)
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.timer.timeout.connect(self.check)
        gc.disable()
        self.timer.start()

    def check(self) -> int | None:
        """Collect the generation that is due, if any, unless the launch has the collector paused."""
        if startup.paused():
            return None
        generation = due_generation(gc.get_count(), gc.get_threshold())
        if generation is not None:
            gc.collect(generation)
            self.collections += 1
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
