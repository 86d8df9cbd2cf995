"""The one recorder: wire events from a transport's tap into the trace store, each recorded once.

Whoever sends a message usually knows where it belongs — the client's session, `check` and the lab
send each round themselves — and says so with `at(operation, round)` around the send. Where nobody
knows (a proxy or a wrapper watching someone else's traffic, housekeeping between operations), the
event goes to `unplaced`: the proxy's stitcher infers the operation and round from the traffic
itself, the session keeps an authorization flow for the operation it unlocks. Either way the store
links each response to its request as it records it (`TraceMessage.reply_to`).

The placement is a context variable of the recorder, so concurrent operations over one transport
(each in its own task) are recorded under their own operation.
"""

import contextlib
import contextvars
import itertools
from collections.abc import Callable, Iterator
from typing import Any

from .store import TraceStore

#: Something with a `tap.listen` (a ClientTransport's tap), typed loosely so trace/ knows no transport.
Unplaced = Callable[[Any], None]
_names = itertools.count(1)


class Recorder:
    """Records the events of every tap it is attached to into `store`."""

    def __init__(self, store: TraceStore, unplaced: Unplaced | None = None) -> None:
        self.store = store
        self.unplaced = unplaced
        self._where: contextvars.ContextVar[tuple[str, int] | None] = contextvars.ContextVar(
            f"recorder_{next(_names)}", default=None)

    def attach(self, tap: Any) -> Callable[[], None]:
        """Listen to `tap` (a transport's Tap); returns the function that stops listening."""
        unlisten: Callable[[], None] = tap.listen(self)
        return unlisten

    @contextlib.contextmanager
    def at(self, operation_id: str, round_number: int) -> Iterator[None]:
        """Record what crosses the wire inside this block under `operation_id`, round `round_number`."""
        token = self._where.set((operation_id, round_number))
        try:
            yield
        finally:
            self._where.reset(token)

    def where(self) -> tuple[str, int] | None:
        return self._where.get()

    def __call__(self, event: Any) -> None:
        where = self._where.get()
        if where is None:
            if self.unplaced is not None:
                self.unplaced(event)
            return
        self.store.record(where[0], where[1], event.direction, event.message, **event.meta)
