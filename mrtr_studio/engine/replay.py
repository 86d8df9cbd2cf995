"""At-most-once use of a requestState, for operations that must not run twice.

MRTR bounds replay with expiry and bindings but cannot by itself make a state single-use; the spec
says servers that need that must enforce it server-side. This guard remembers the nonces of states
that completed an operation until they expire. It is per instance: a cluster needs a shared store.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class ReplayGuard:
    clock: Callable[[], float] = time.time
    _used: dict[str, float] = field(default_factory=dict)
    _in_flight: set[str] = field(default_factory=set)

    def claim(self, nonce: str) -> bool:
        """Reserve a nonce for one handler run; False if it completed before or is running now."""
        self._forget_expired()
        if nonce in self._used or nonce in self._in_flight:
            return False
        self._in_flight.add(nonce)
        return True

    def settle(self, nonce: str, expires: float, consumed: bool) -> None:
        """After the run: remember the nonce until it expires if the operation completed, else free it."""
        self._in_flight.discard(nonce)
        if consumed:
            self._used[nonce] = expires

    def _forget_expired(self) -> None:
        now = self.clock()
        for nonce in [n for n, exp in self._used.items() if exp <= now]:
            del self._used[nonce]
