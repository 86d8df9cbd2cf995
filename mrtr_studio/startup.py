"""Python's cyclic garbage collector paused while the program starts, then its survivors frozen.

Starting the window imports about 450 modules and builds every panel: hundreds of thousands of objects
that live as long as the process. The collector runs every 700 net allocations, so during that start it
walked them again and again (about 170 collections, 55 ms of a 0.65 s launch in `tools/bench_launch.py`)
to find some 2,500 objects of garbage. So `pause()` stops it at the first line of `mrtr-studio`, and
`ready()` — when the window is complete, or when a command's module is imported — moves everything
alive into the permanent generation (`gc.freeze`: never walked again, so later collections only look at
what the session itself allocates) and turns the collector back on. The garbage made meanwhile is
collected by the collections that follow, as ever.

Only the `mrtr-studio` entry point pauses; the library, the tests and other programs importing the
studio keep the interpreter's collector as they set it.
"""

import gc

_paused = False


def pause() -> None:
    """Stop the collector until `ready()` (at the first line of the program, before its imports)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def ready(*, resume: bool = True) -> None:
    """The program is up: freeze what is alive and collect as usual from now on. Idempotent, and a
    no-op when `pause()` did not turn the collector off (it was off already, or was never paused).

    `resume=False` leaves automatic collection off: the window collects on its own thread, from a
    timer (`ui/gui_thread_collector.py` says why), and only needs the pause lifted."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        if resume:
            gc.enable()


def paused() -> bool:
    """Whether the collector is paused by `pause()` and not yet resumed."""
    return _paused
