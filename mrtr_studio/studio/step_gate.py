"""The step gate: a ClientSession step hook that can hold each outgoing message until a person lets it go.

While holding, `pending` is the exact message about to be sent; it may be replaced (edited, or
tampered with) before `release()`. Everything happens on the asyncio loop: holding is an awaited
future, never a blocking wait, so the window stays alive.
"""

import asyncio
import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]


@dataclass
class PendingSend:
    round: int
    #: What will be sent on release; edit it in place or replace it with `StepGate.edit`.
    message: Message
    #: What the client built, before any edit (to show a diff, or to undo).
    original: Message
    operation_id: str | None = None


class StepGate:
    def __init__(self, on_hold: Callable[[PendingSend], None] | None = None,
                 on_release: Callable[[PendingSend, Message | None], None] | None = None) -> None:
        #: Hold the next send (True in step mode; Continue turns it off).
        self.stepping = False
        self.pending: PendingSend | None = None
        #: Applied to every message before it is held or sent (one-shot tampers, for example).
        self.transforms: list[Callable[[Message, int], Message]] = []
        self.operation_id: Callable[[], str | None] = lambda: None
        self._future: asyncio.Future[Message | None] | None = None
        self._on_hold = on_hold
        self._on_release = on_release

    async def __call__(self, message: Message, round_number: int) -> Message | None:
        for transform in list(self.transforms):
            message = transform(message, round_number)
        if not self.stepping:
            return message
        self._future = asyncio.get_running_loop().create_future()
        pending = PendingSend(round_number, copy.deepcopy(message), copy.deepcopy(message), self.operation_id())
        self.pending = pending
        if self._on_hold:
            self._on_hold(pending)
        try:
            sent = await self._future
        finally:
            self.pending = None
            self._future = None
        if self._on_release:
            self._on_release(pending, sent)
        return sent

    @property
    def holding(self) -> bool:
        return self._future is not None and not self._future.done()

    def edit(self, message: Message) -> None:
        if self.pending is None:
            raise RuntimeError("nothing is waiting to be sent")
        if not isinstance(message, dict):
            raise ValueError("the message must be a JSON object")
        self.pending.message = message

    def release(self, send: bool = True) -> None:
        """Send the (possibly edited) pending message, or with `send=False` drop it and stop the run."""
        if self._future is None or self._future.done() or self.pending is None:
            raise RuntimeError("nothing is waiting to be sent")
        self._future.set_result(copy.deepcopy(self.pending.message) if send else None)
