"""How long a client transport waits: an idle window per response and a running count of bytes per request.

The idle window restarts with every chunk that arrives and pauses while the client itself is
answering a server request (a person may take their time); it restarts, full, when the last answer
is out. The overall deadline of a request is a plain `asyncio.timeout` around the whole exchange,
never restarted, so a server that drips one event a second still ends within it.
"""

import asyncio
import time
from types import TracebackType

from .base import ServerRequestPool, TransportError


class IdleWindow:
    """`async with IdleWindow(pool, seconds) as window:` ... `window.touch()` on every chunk."""

    def __init__(self, pool: ServerRequestPool, seconds: float) -> None:
        self.pool = pool
        self.seconds = seconds
        self._timeout = asyncio.timeout(None)

    async def __aenter__(self) -> "IdleWindow":
        await self._timeout.__aenter__()
        self.rearm(self.pool.busy)
        self.pool.watchers.add(self.rearm)
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        self.pool.watchers.discard(self.rearm)
        await self._timeout.__aexit__(kind, exc, tb)  # raises TimeoutError when the window expired
        return None

    def rearm(self, busy: bool) -> None:
        if self._timeout.expired():
            return  # already firing: the request ends with the idle error, nothing left to move
        self._timeout.reschedule(None if busy else asyncio.get_running_loop().time() + self.seconds)

    def touch(self) -> None:
        if not self.pool.busy:
            self.rearm(False)

    def expired(self) -> bool:
        return self._timeout.expired()


class Progress:
    """What one request received so far: bytes against the stream limit, events, and when."""

    def __init__(self, url: str, max_stream_bytes: int) -> None:
        self.url = url
        self.max_stream_bytes = max_stream_bytes
        self.started = time.monotonic()
        self.bytes = 0
        self.events = 0
        self.last_at: float | None = None

    def count(self, size: int) -> None:
        self.bytes += size
        self.last_at = time.monotonic()
        if self.bytes > self.max_stream_bytes:
            raise TransportError(f"the response from {self.url} is over the limit of {self.max_stream_bytes} bytes "
                                 "for one request (max_stream_bytes); stopped reading")

    def elapsed_ms(self) -> float:
        return round((time.monotonic() - self.started) * 1000, 1)

    def summary(self) -> str:
        if not self.events and not self.bytes:
            return "nothing arrived"
        ago = f", the last {time.monotonic() - self.last_at:.1f} s ago" if self.last_at is not None else ""
        return f"{self.events} event(s) and {self.bytes} bytes arrived{ago}"
