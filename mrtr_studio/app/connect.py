"""Open a client transport for a ServerEntry: in memory to the embedded engine, Streamable HTTP, or stdio."""

import importlib
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..transport.base import ClientTransport
from ..transport.memory import MemoryTransport
from .identities import Identity
from .server_entries import ServerEntry

if TYPE_CHECKING:
    from .studio import Studio

TransportFactory = Callable[[ServerEntry, Identity, "Studio"], Awaitable[ClientTransport]]


def _transport_class(module: str, names: tuple[str, ...]) -> Any:
    try:
        found = importlib.import_module(f"mrtr_studio.transport.{module}")
    except ImportError as exc:
        raise ConnectionError(f"the {module} transport is not available: {exc}") from exc
    for name in names:
        if hasattr(found, name):
            return getattr(found, name)
    raise ConnectionError(f"mrtr_studio.transport.{module} has none of {', '.join(names)}")


async def default_transport_factory(entry: ServerEntry, identity: Identity, studio: "Studio") -> ClientTransport:
    if entry.kind == "embedded":
        return MemoryTransport(studio.engine, user=identity.user)
    if entry.kind == "http":
        cls = _transport_class("http_client", ("HttpClientTransport",))
        transport: ClientTransport = cls(entry.url, bearer_token=identity.bearer, headers=entry.headers)
        return transport
    if entry.kind == "stdio":
        cls = _transport_class("stdio_client", ("StdioClientTransport",))
        stdio = cls([entry.command, *entry.args], env={**os.environ, **entry.env} if entry.env else None,
                    cwd=entry.cwd)
        await stdio.start()
        started: ClientTransport = stdio
        return started
    raise ValueError(f"unknown connection kind {entry.kind!r}")
