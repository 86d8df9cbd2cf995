"""The inspector's view of a state in another format than the studio's (an SDK's, a JWT, an opaque one).

The studio's own states keep their detailed view (state_analysis); any other is decoded by
`states`, with the keys the person gave for that server (the keyring) and the request it came
with, so its checks say pass, fail or cannot-check with why. Qt-free.
"""

from typing import Any

from ..engine.state_inspect import Check as EngineCheck
from ..engine.state_inspect import Inspection
from ..states import Decoded, RequestContext, decode_state, parse_key
from ..trace import TraceMessage, TraceStore
from ..trace.diagram_layout import request_state_of
from ..trace.model import params_of


def keys_for(studio: Any, server: str, state_keys: Any = None) -> list[bytes]:
    """The keys for `server`: its remembered key (the keyring), then the external secrets given."""
    keys: list[bytes] = []
    store = state_keys if state_keys is not None else getattr(studio, "state_keys", None)
    if store is not None and hasattr(store, "keys_for"):
        keys += store.keys_for(server)
    for secret in getattr(studio, "external_secrets", None) or []:
        if isinstance(secret, str) and secret:
            try:
                keys.append(parse_key(secret))
            except ValueError:
                continue
    return keys


def request_context(request: TraceMessage | None) -> RequestContext | None:
    if request is None:
        return None
    params = params_of(request.message)
    name = params.get("uri") if request.method == "resources/read" else params.get("name")
    return RequestContext(method=str(request.method), name=None if name is None else str(name),
                          arguments=params.get("arguments") or {})


def issued_rounds(store: TraceStore, operation_id: str) -> list[str]:
    """The states the server issued in this operation, oldest first (the opaque decoder compares them)."""
    return [t for m in store.messages_of(operation_id) if m.kind == "input_required"
            for t in [request_state_of(m)] if t]


def echoes(store: TraceStore, operation_id: str) -> list[tuple[str, str]]:
    """(issued, sent back on the next request) for each round that has both."""
    messages = store.messages_of(operation_id)
    pairs = []
    for index, message in enumerate(messages):
        issued = request_state_of(message) if message.kind == "input_required" else None
        if not issued:
            continue
        retry = next((m for m in messages[index + 1:] if m.kind == "request"), None)
        sent = request_state_of(retry) if retry is not None else None
        if sent is not None:
            pairs.append((issued, sent))
    return pairs


def decode_foreign(store: TraceStore, entry: TraceMessage, token: str, request: TraceMessage | None,
                   studio: Any, server: str, state_keys: Any = None) -> Decoded:
    return decode_state(token, keys_for(studio, server, state_keys), request=request_context(request),
                        rounds=issued_rounds(store, entry.operation_id), echoes=echoes(store, entry.operation_id))


def as_inspection(token: str, decoded: Decoded) -> Inspection:
    """The engine-shaped inspection the rest of the view reads (cannot-check is the engine's unknown)."""
    checks = [EngineCheck(c.name, "unknown" if c.status == "cannot-check" else c.status, c.why)
              for c in decoded.checks]
    return Inspection(token, decoded.payload, checks)
