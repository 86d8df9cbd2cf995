"""Breakpoints on a proxy, like mitmproxy's intercept: a message from either side is held until
someone forwards it (as it was, or edited) or drops it.

The proxy calls `await intercept.hold(direction, message)` for every JSON-RPC message while the
intercept is on; the answer is the message to send on, or None to drop it. Holding is bounded:
past MAX_HELD messages waiting, new ones pass unchanged (a flood cannot pile up without end), and
turning the intercept off forwards everything still held, unchanged.
"""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_HELD = 100


@dataclass(eq=False)
class Held:
    direction: str
    message: Any
    future: "asyncio.Future[Any]" = field(repr=False)


class Intercept:
    def __init__(self, on_change: Callable[[], None] | None = None, max_held: int = MAX_HELD) -> None:
        self.enabled = False
        self.held: list[Held] = []
        self.on_change = on_change
        self.max_held = max_held
        self.passed_unheld = 0

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    async def hold(self, direction: str, message: Any) -> Any:
        if not self.enabled:
            return message
        if len(self.held) >= self.max_held:
            self.passed_unheld += 1
            return message
        held = Held(direction, message, asyncio.get_running_loop().create_future())
        self.held.append(held)
        self._changed()
        try:
            return await held.future
        finally:
            if held in self.held:
                self.held.remove(held)
                self._changed()

    def forward(self, held: Held, message: Any = None) -> None:
        """Send it on: `message` replaces it when given (the edited version)."""
        if not held.future.done():
            held.future.set_result(held.message if message is None else message)

    def drop(self, held: Held) -> None:
        if not held.future.done():
            held.future.set_result(None)

    def set_enabled(self, on: bool) -> None:
        self.enabled = on
        if not on:
            for held in list(self.held):
                self.forward(held)
        self._changed()
