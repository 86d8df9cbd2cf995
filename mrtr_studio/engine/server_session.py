"""A session: one client connection as the server sees it.

Modern requests are stateless, so each gets a fresh session; a legacy `initialize` makes a
session that lives until the transport closes it and remembers what the handshake declared.
Server-initiated requests (legacy only) go out through `outbound` and come back through
`McpServer.handle`, which resolves the pending future.
"""

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..protocol.versions import Era
from .entropy import random_bytes

Outbound = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(slots=True)
class Session:
    """One client connection (legacy) or one request (modern), as handlers and the engine see it.
    Slotted: a modern request makes one, so its creation is on every call's path."""

    id: str = field(default_factory=lambda: random_bytes(16).hex())  # as unguessable as uuid4, cheaper
    #: The authenticated user the transport established (bearer token, in-memory identity), "" if none.
    user: str = ""
    era: Era | None = None
    protocol_version: str | None = None
    client_capabilities: dict[str, Any] = field(default_factory=dict)
    client_info: dict[str, Any] = field(default_factory=dict)
    initialized: bool = False
    outbound: Outbound | None = None
    #: The server serving this session, so handlers can send legacy requests (`session.server.request_…`).
    server: Any = field(default=None, repr=False)
    pending: dict[str | int, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    #: Legacy `logging/setLevel`: the least severe level still sent on this session (None: not set yet).
    log_level: str | None = None
    #: Legacy `resources/subscribe`: the URIs this session wants `notifications/resources/updated` for.
    subscriptions: set[str] = field(default_factory=set)
    #: Server-initiated requests sent on this session so far (their ids count up from 1).
    _sent: int = 0
    #: The transport decoded this one-request session's message from JSON text (HTTP's bounded reader)
    #: and counted this many brackets in it: its values are JSON by construction and nest no deeper
    #: than that, so `values.check_params` has little or nothing left to check. None: not decoded here.
    decoded_brackets: int | None = None

    def next_request_id(self) -> str:
        self._sent += 1
        return f"server-{self._sent}"

    @property
    def is_legacy(self) -> bool:
        return self.era is Era.LEGACY
