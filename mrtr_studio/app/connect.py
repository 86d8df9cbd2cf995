"""Open a client transport for a ServerEntry: in memory to the embedded engine, Streamable HTTP, or stdio."""

import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ..transport.base import ClientTransport
from ..transport.http_client import HttpClientTransport
from ..transport.memory import MemoryTransport
from ..transport.stdio_client import StdioClientTransport
from .identities import Identity
from .server_entries import ServerEntry

if TYPE_CHECKING:
    from .studio import Studio

TransportFactory = Callable[[ServerEntry, Identity, "Studio"], Awaitable[ClientTransport]]


async def default_transport_factory(entry: ServerEntry, identity: Identity, studio: "Studio") -> ClientTransport:
    if entry.kind == "embedded":
        return MemoryTransport(studio.engine, user=identity.user)
    if entry.kind == "http":
        return HttpClientTransport(entry.url, bearer_token=identity.bearer, headers=entry.headers)
    if entry.kind == "stdio":
        stdio = StdioClientTransport([entry.command, *entry.args],
                                     env={**os.environ, **entry.env} if entry.env else None, cwd=entry.cwd)
        await stdio.start()
        return stdio
    raise ValueError(f"unknown connection kind {entry.kind!r}")
