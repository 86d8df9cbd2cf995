"""What must be shared across the nodes of a cluster: the replay guard's consumed nonces.

A single-use state ("servers for which a given requestState must be consumed at most once MUST
enforce that invariant server-side") is only single-use across a cluster if every node asks the
same store. `ReplayStore` is that store's interface: claim a nonce before the handler runs, then
settle it (keep it until the state expires if the operation completed, free it otherwise). The
default keeps nonces in this process's memory, as one node needs; `redis_store.RedisReplayStore`
shares them. A store that cannot answer raises `StoreUnavailable`, which the engine turns into a
JSON-RPC error: a replay is never accepted because the store was down.
"""

from collections.abc import Callable
from typing import Protocol

from ..protocol.errors import INTERNAL_ERROR, McpError
from .replay import ReplayGuard

#: The error a request that needs the store gets while the store is down (README: "Scaling out").
STORE_UNAVAILABLE_MESSAGE = "Shared store unavailable"
STORE_UNAVAILABLE_REASON = "store_unavailable"
#: A nonce is minted by the engine itself (a few dozen characters); anything longer is refused unread.
MAX_NONCE_LENGTH = 128
#: Unexpired nonces one process remembers; past it, single-use completions are refused until some expire.
DEFAULT_MEMORY_NONCES = 200_000


class StoreUnavailable(Exception):
    """The store could not answer (down, too slow, full); `detail` is safe to show a client."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def store_unavailable_error(problem: StoreUnavailable) -> McpError:
    """The documented wire error: -32603, `data.reason` = `store_unavailable`, nothing accepted."""
    return McpError(INTERNAL_ERROR, STORE_UNAVAILABLE_MESSAGE,
                    {"reason": STORE_UNAVAILABLE_REASON, "detail": problem.detail})


class ReplayStore(Protocol):
    """At-most-once consumption of requestState nonces, possibly shared by several processes."""

    #: Shown in logs and the studio ("memory", "redis://127.0.0.1:6379/0").
    description: str

    async def claim(self, nonce: str, expires: float) -> bool:
        """Reserve `nonce` for one handler run; False if it completed before or is running now.

        `expires` (unix seconds) is the state's expiry: a shared store forgets the nonce then, since
        the state fails verification from that moment anyway. Raises StoreUnavailable.
        """
        ...

    async def settle(self, nonce: str, expires: float, consumed: bool) -> None:
        """Keep the nonce until `expires` if the operation completed, else free it for a new round."""
        ...

    async def close(self) -> None:
        """Release connections; the store is not used after this."""
        ...


def check_nonce(nonce: str) -> None:
    if not nonce or len(nonce) > MAX_NONCE_LENGTH:
        raise StoreUnavailable(f"a requestState nonce must be 1 to {MAX_NONCE_LENGTH} characters")


class MemoryReplayStore:
    """The default: this process's memory (a single node), bounded to `max_nonces` unexpired nonces."""

    description = "memory"

    def __init__(self, clock: Callable[[], float], max_nonces: int = DEFAULT_MEMORY_NONCES) -> None:
        self.guard = ReplayGuard(clock=clock)
        self.max_nonces = max_nonces

    async def claim(self, nonce: str, expires: float) -> bool:
        check_nonce(nonce)
        claimed = self.guard.claim(nonce, self.max_nonces)
        if claimed is None:
            raise StoreUnavailable(f"the replay guard holds {self.max_nonces} unexpired states; "
                                   "retry when some have expired")
        return claimed

    async def settle(self, nonce: str, expires: float, consumed: bool) -> None:
        self.guard.settle(nonce, expires, consumed)

    async def close(self) -> None:
        return None

    def __repr__(self) -> str:
        return f"MemoryReplayStore({self.guard.remembered()} nonces)"
