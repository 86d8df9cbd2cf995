"""Legacy `resources/subscribe` / `resources/unsubscribe` and `notifications/resources/updated`.

A 2025-11-25 session subscribes to a resource URI; when the server author reports a change
(`await server.notify_resource_updated(uri)`) every subscribed session is told on its channel for
server-to-client messages (`Session.outbound`). 2026-07-28 removed both methods (its clients
listen with `subscriptions/listen`), so the dispatcher answers a modern request for them -32601.
"""

import logging
from collections.abc import Iterable
from typing import Any

from ..protocol import jsonrpc
from ..protocol.errors import INVALID_PARAMS, RESOURCE_NOT_FOUND, McpError
from .registry import Registry
from .server_session import Session

log = logging.getLogger(__name__)

#: One session cannot make the server remember more URIs than this.
MAX_SUBSCRIPTIONS = 256


def _uri(params: dict[str, Any]) -> str:
    uri = params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise McpError(INVALID_PARAMS, "Invalid params: uri must be a non-empty string")
    return uri


def subscribe(registry: Registry, params: dict[str, Any], session: Session) -> dict[str, Any]:
    """Remember the URI for this session; -32002 when no resource or template serves it."""
    uri = _uri(params)
    if registry.find_resource(uri) is None:
        raise McpError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri})
    if uri not in session.subscriptions and len(session.subscriptions) >= MAX_SUBSCRIPTIONS:
        raise McpError(INVALID_PARAMS, f"Invalid params: a session may subscribe to at most "
                       f"{MAX_SUBSCRIPTIONS} resources")
    session.subscriptions.add(uri)
    return {}


def unsubscribe(params: dict[str, Any], session: Session) -> dict[str, Any]:
    """Forget the URI for this session; unsubscribing from something never subscribed is not an error."""
    session.subscriptions.discard(_uri(params))
    return {}


async def notify_updated(sessions: Iterable[Session], uri: str) -> int:
    """Send `notifications/resources/updated` to each subscribed session that has a channel; how many got it."""
    delivered = 0
    for session in list(sessions):
        if uri not in session.subscriptions or session.outbound is None:
            continue
        try:
            await session.outbound(jsonrpc.notification("notifications/resources/updated", {"uri": uri}))
        except Exception:  # one gone client must not stop the others from hearing about the change
            log.warning("could not tell session %s that %s changed", session.id, uri, exc_info=True)
            continue
        delivered += 1
    return delivered
