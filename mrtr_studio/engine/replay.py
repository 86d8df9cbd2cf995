"""At-most-once use of a requestState, for operations that must not run twice.

MRTR bounds replay with expiry and bindings but cannot by itself make a state single-use; the spec
says servers that need that must enforce it server-side. This guard remembers the nonces of states
that completed an operation until they expire. It is per instance: a cluster needs a shared store
(`shared_store.ReplayStore`, `redis_store.RedisReplayStore`).
"""

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class ReplayGuard:
    clock: Callable[[], float] = time.time
    #: Nonce -> expiry, oldest first (states share one TTL, so insertion order is expiry order).
    _used: "OrderedDict[str, float]" = field(default_factory=OrderedDict)
    _in_flight: set[str] = field(default_factory=set)

    def claim(self, nonce: str, most: int | None = None) -> bool | None:
        """Reserve a nonce for one handler run; False if it completed before or is running now, None
        (nothing reserved) when `most` nonces are held already. Expired nonces are forgotten first."""
        self._forget_expired()
        if nonce in self._used or nonce in self._in_flight:
            return False
        if most is not None and len(self._used) + len(self._in_flight) >= most:
            return None
        self._in_flight.add(nonce)
        return True

    def settle(self, nonce: str, expires: float, consumed: bool) -> None:
        """After the run: remember the nonce until it expires if the operation completed, else free it."""
        self._in_flight.discard(nonce)
        if consumed:
            self._used[nonce] = expires

    def remembered(self) -> int:
        """Nonces held now (completed and unexpired, or running): what bounds this guard's memory."""
        self._forget_expired()
        return len(self._used) + len(self._in_flight)

    def _forget_expired(self) -> None:
        """Drop expired nonces from the oldest end: amortized O(1) per claim, not a scan of all of them.

        An expired nonce that lingers behind a younger one costs only memory: its state fails the
        expiry check before any claim.
        """
        now = self.clock()
        used = self._used
        while used:
            oldest = next(iter(used))
            if used[oldest] > now:
                return
            used.popitem(last=False)
