"""The one registry of processes the teaching views start (cluster nodes, redis-server, HAProxy): what
is still running when the interpreter exits is terminated, however the app ends (qasync's loop.stop()
emits aboutToQuit on every run_until_complete, so that signal cannot mean "the app quits")."""

import atexit
import contextlib
from collections.abc import Iterator
from typing import Protocol


class Terminable(Protocol):
    def terminate(self) -> None:
        """SIGTERM everything it started, without waiting."""


_LIVE: dict[int, Terminable] = {}  # by id(): dataclasses are not hashable


def track(thing: Terminable) -> None:
    _LIVE[id(thing)] = thing


def untrack(thing: Terminable) -> None:
    _LIVE.pop(id(thing), None)


@contextlib.contextmanager
def tracked(thing: Terminable) -> Iterator[None]:
    """Registered while the block runs (a comparison that starts and stops its own processes)."""
    track(thing)
    try:
        yield
    finally:
        untrack(thing)


def live() -> list[Terminable]:
    return list(_LIVE.values())


@atexit.register
def terminate_all() -> None:
    for thing in live():
        untrack(thing)
        with contextlib.suppress(Exception):
            thing.terminate()
