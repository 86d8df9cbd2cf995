"""Store events delivered on the GUI thread, and quick lookups the views share.

The store calls its listeners on whatever thread writes to it (the asyncio loop, which qasync runs
on the GUI thread). A bridge hands each event to its slots on the thread the bridge lives in: at
once when the store is written from that thread, through a queued Qt signal from any other one, so
views can treat every event as if it came from their own thread.

The direct path calls the slots itself rather than emitting a Qt signal: a window holds a dozen
bridges, and a Qt emit per bridge per message (a few microseconds each) made opening a
100,000-message trace cost seconds in signal dispatch alone.
"""

import bisect
import sys
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

from ..trace import StoreEvent, TraceMessage, TraceStore

Slot = Callable[[StoreEvent], Any]


class _Slots:
    """What `bridge.storeEvent` is: `connect(slot)`, `disconnect(slot)`, `emit(event)`, like a signal."""

    def __init__(self) -> None:
        self.slots: list[Slot] = []

    def connect(self, slot: Slot) -> None:
        self.slots.append(slot)

    def disconnect(self, slot: Slot) -> None:
        if slot in self.slots:
            self.slots.remove(slot)

    def emit(self, event: StoreEvent) -> None:
        for slot in list(self.slots):
            try:
                slot(event)
            except Exception:  # as a Qt slot's would: reported, and the other listeners still run
                sys.excepthook(*sys.exc_info())


class StoreBridge(QObject):
    _queued = Signal(object)  # StoreEvent, from another thread

    def __init__(self, store: TraceStore, parent: QObject | None = None, *, bulk: bool = True) -> None:
        super().__init__(parent)
        self.store = store
        self.storeEvent = _Slots()
        self._thread = threading.get_ident()
        slots, home = self.storeEvent, self._thread
        queued = self._queued
        self._queued.connect(slots.emit, Qt.ConnectionType.QueuedConnection)

        def deliver(event: StoreEvent) -> None:
            if threading.get_ident() == home:
                slots.emit(event)
            else:
                queued.emit(event)

        unsubscribe: Callable[[], None] = store.subscribe(deliver, bulk=bulk)
        self._unsubscribe = unsubscribe
        # Not a bound method: when Qt destroys the bridge, `self` must not be touched any more.
        self.destroyed.connect(lambda *_: unsubscribe())

    def close(self) -> None:
        self._unsubscribe()


def message_by_seq(store: TraceStore, seq: int) -> TraceMessage | None:
    """The message with `seq` (messages are kept in seq order, so a direct hit or a bisect)."""
    messages = store.messages
    if 0 <= seq < len(messages) and messages[seq].seq == seq:
        return messages[seq]
    index = bisect.bisect_left(messages, seq, key=lambda m: m.seq)
    return messages[index] if index < len(messages) and messages[index].seq == seq else None


__all__ = ["StoreBridge", "StoreEvent", "message_by_seq"]
