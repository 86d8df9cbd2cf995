"""The legacy (2025-11-25) sessions one HTTP endpoint opened: bounded in number, reaped when idle.

A legacy `initialize` makes server-side state that lives until the client says DELETE, and most
clients never do: without a bound, a loop of `initialize` calls grows the server without limit.
So every session has an idle deadline (no request on it for `idle_seconds`) and the table a cap
(`initialize` past it is answered 503 by the caller). Expiry runs on one timer handle of the event
loop, armed for the oldest session's deadline: it needs no request to fire, and there is no task
to leak (a handle left behind by a stopped loop is dropped with the loop). A session serving a
request is never reaped under it; it counts as used when the request ends.
"""

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator

from ..engine import McpServer, Session


class LegacySessions:
    """Open, find, use and end the endpoint's legacy sessions; the engine keeps the Session objects."""

    def __init__(self, server: McpServer, idle_seconds: float, max_sessions: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.server = server
        self.idle_seconds = idle_seconds
        self.max_sessions = max_sessions
        self._clock = clock
        #: session id -> when it was last used, oldest first.
        self._last_used: OrderedDict[str, float] = OrderedDict()
        #: session id -> requests being served on it now.
        self._busy: dict[str, int] = {}
        self._timer: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        return len(self._last_used)

    def full(self) -> bool:
        """True when no session may be opened now (expired ones are reaped first)."""
        self.reap()
        return len(self._last_used) >= self.max_sessions

    def retry_after(self) -> int:
        """Seconds until the oldest idle session expires: what a refused client should wait."""
        if not self._last_used:
            return 1
        oldest = next(iter(self._last_used.values()))
        return max(1, int(oldest + self.idle_seconds - self._clock()) + 1)

    def open(self, user: str) -> Session:
        session = self.server.open_session(user=user)
        self._last_used[session.id] = self._clock()
        self._arm()
        return session

    def find(self, session_id: str | None, principal: str) -> Session | None:
        """The session, if it is still open and belongs to `principal` (anyone else: as if it did not exist)."""
        if not session_id or session_id not in self._last_used:
            return None
        session = self.server.sessions.get(session_id)
        if session is None:  # closed by the engine itself
            self._forget(session_id)
            return None
        if session.user != principal:
            return None
        self._touch(session_id)
        return session

    def close(self, session_id: str) -> None:
        self._forget(session_id)
        self.server.close_session(session_id)

    @contextlib.contextmanager
    def using(self, session_id: str) -> Iterator[None]:
        """Mark the session busy while a request on it is served (it cannot expire under the request)."""
        self._busy[session_id] = self._busy.get(session_id, 0) + 1
        try:
            yield
        finally:
            left = self._busy.pop(session_id) - 1
            if left:
                self._busy[session_id] = left
            if session_id in self._last_used:
                self._touch(session_id)

    def reap(self) -> int:
        """End every session idle past its deadline; returns how many."""
        now = self._clock()
        reaped = 0
        while self._last_used:
            session_id, last = next(iter(self._last_used.items()))
            if now - last < self.idle_seconds:
                break
            if session_id in self._busy:
                self._touch(session_id)
                continue
            self.close(session_id)
            reaped += 1
        return reaped

    def stop(self) -> None:
        """Cancel the expiry timer (the endpoint is shutting down)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # --- internals ---------------------------------------------------------------------------------

    def _touch(self, session_id: str) -> None:
        self._last_used[session_id] = self._clock()
        self._last_used.move_to_end(session_id)

    def _forget(self, session_id: str) -> None:
        self._last_used.pop(session_id, None)
        if not self._last_used:
            self.stop()

    def _arm(self) -> None:
        if self._timer is not None or not self._last_used:
            return
        oldest = next(iter(self._last_used.values()))
        delay = max(0.05, oldest + self.idle_seconds - self._clock())
        self._timer = asyncio.get_running_loop().call_later(delay, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self.reap()
        self._arm()
