"""Store events delivered on the GUI thread, and quick lookups the views share.

The store calls its listeners on whatever thread writes to it (the asyncio loop); a Qt signal
with the default AutoConnection is direct on the GUI thread and queued from any other one, so
views can treat every event as if it came from their own thread.
"""

import bisect
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from ..trace import StoreEvent, TraceMessage, TraceStore


class StoreBridge(QObject):
    storeEvent = Signal(object)  # StoreEvent

    def __init__(self, store: TraceStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        unsubscribe: Callable[[], None] = store.subscribe(lambda event: self.storeEvent.emit(event))
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
