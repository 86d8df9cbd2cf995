"""The traffic around the calls: one "session" operation per session a recorder watches.

A pair's handshake and housekeeping (`initialize`, `notifications/initialized`, `server/discover`,
`tools/list`, `ping`, `logging/setLevel`, a notification between calls, ...) belongs to no MRTR flow,
yet every message must be recorded. One operation per request would bury the few calls under a
list of `tools/list` rows; so each session gets ONE operation, method "session", whose rounds are its
requests in order (a notification joins the latest round), and it reads in the diagram as the
session's timeline. Its outcome is "complete" whenever nothing in it waits for an answer.

A session is the legacy `Mcp-Session-Id`; an `initialize` always opens a new session operation (it
carries no id yet: the id arrives on its response, `response_session` in the proxy's metadata,
and from then on names that operation). Traffic with no session id (stdio, a modern stateless
client) goes to the session operation of `None`: the latest initialize without an id, else one
opened for it. The capabilities a legacy client declared in `initialize` are kept per session, so
the lint can flag a server asking for one the client never declared (trace.lint).
"""

from dataclasses import dataclass, field
from typing import Any

from ..protocol.versions import META_PROTOCOL_VERSION, MODERN_VERSION
from ..trace import TraceStore
from ..trace.model import params_of

MAX_SESSIONS = 10_000


@dataclass
class _Session:
    operation: str
    declared: dict[str, Any] | None = None  # ClientCapabilities from initialize, when seen
    open_rounds: int = 0


@dataclass
class SessionOps:
    store: TraceStore
    server_label: str
    label: str = ""
    _by_key: dict[Any, _Session] = field(default_factory=dict)
    _by_operation: dict[str, _Session] = field(default_factory=dict)

    def is_session_op(self, operation_id: str) -> bool:
        return operation_id in self._by_operation

    def declared(self, session: Any) -> dict[str, Any] | None:
        """The capabilities the client of `session` declared in its initialize, or None if unseen."""
        known = self._by_key.get(session)
        return known.declared if known is not None else None

    def request(self, message: dict[str, Any], session: Any) -> tuple[str, int]:
        """Place a request outside any call: the next round of its session operation."""
        if message.get("method") == "initialize":
            params = params_of(message)
            era = "modern" if params.get("protocolVersion") == MODERN_VERSION else "legacy"
            caps = params.get("capabilities")
            existing = self._by_key.get(session)
            # a new session, unless this one was opened (by a legacy SSE stream's endpoint) without one yet
            fresh = session is None or existing is None or existing.declared is not None
            known = self._open(session, era, fresh=fresh)
            known.declared = caps if isinstance(caps, dict) else {}
        else:
            meta = params_of(message).get("_meta")
            modern = message.get("method") == "server/discover" or \
                (isinstance(meta, dict) and meta.get(META_PROTOCOL_VERSION) == MODERN_VERSION)
            known = self._open(session, "modern" if modern else "legacy")
        known.open_rounds += 1
        op = self.store.operation(known.operation)
        if op.outcome != "running":
            op.outcome, op.ended = "running", None
        return known.operation, op.rounds + 1

    def other(self, session: Any) -> tuple[str, int]:
        """Where a notification (or an unmatched answer) outside any call goes: the latest round."""
        known = self._open(session, "legacy")
        op = self.store.operation(known.operation)
        return known.operation, max(op.rounds, 1)

    def answered(self, operation_id: str, response_session: Any) -> None:
        """A request of the session operation got its answer; an initialize's answer names the session."""
        known = self._by_operation.get(operation_id)
        if known is None:
            return
        if isinstance(response_session, str) and self._by_key.get(response_session) is not known:
            self._by_key[response_session] = known
            self.store.update_request(operation_id, response_session, None)  # told to the views and journal
            self._bound()
        known.open_rounds = max(known.open_rounds - 1, 0)
        if known.open_rounds == 0:
            self.store.finish_operation(operation_id, "complete")

    def _open(self, session: Any, era: str, fresh: bool = False) -> _Session:
        known = None if fresh else self._by_key.get(session)
        if known is not None:
            return known
        label = f"{self.label}: session" if self.label else "session"
        op = self.store.begin_operation("session", session if isinstance(session, str) else "", {}, era,
                                        self.server_label, label)
        known = _Session(op.id)
        self._by_operation[op.id] = known
        self._by_key[session] = known
        self._bound()
        return known

    def _bound(self) -> None:
        while len(self._by_key) > MAX_SESSIONS:
            del self._by_key[next(iter(self._by_key))]
        while len(self._by_operation) > MAX_SESSIONS:
            del self._by_operation[next(iter(self._by_operation))]
