"""Open a client transport for a ServerEntry (in memory to the embedded engine, Streamable HTTP, or stdio),
and say in one sentence why a connection failed.

A failed connect is reported once: the four listings failing with the same server error become one
message, and a transport error that already names the server is not wrapped in a second "cannot
connect to ..." (people read the first clause and stop).
"""

import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ..transport.base import ClientTransport, TransportError
from ..transport.memory import MemoryTransport
from .identities import Identity
from .server_entries import ServerEntry

if TYPE_CHECKING:
    from .controller import Studio

TransportFactory = Callable[[ServerEntry, Identity, "Studio"], Awaitable[ClientTransport]]


async def default_transport_factory(entry: ServerEntry, identity: Identity, studio: "Studio") -> ClientTransport:
    if entry.kind == "embedded":
        return MemoryTransport(studio.engine, user=identity.user)
    if entry.kind == "http":
        from ..transport.http_client import HttpClientTransport  # httpx loads with the first HTTP server

        # No static token: a 401 runs the OAuth flow (the Auth view shows each of its exchanges).
        auth = None if identity.bearer else studio.auth.flow_for(entry.url)
        return HttpClientTransport(entry.url, bearer_token=identity.bearer, headers=entry.headers, auth=auth)
    if entry.kind == "stdio":
        from ..transport.stdio_client import StdioClientTransport

        stdio = StdioClientTransport([entry.command, *entry.args],
                                     env={**os.environ, **entry.env} if entry.env else None, cwd=entry.cwd)
        await stdio.start()
        return stdio
    raise ValueError(f"unknown connection kind {entry.kind!r}")


#: Failures whose message is the explanation itself; any other exception keeps its type name.
_PLAIN_FAILURES = (TransportError, ConnectionError, RuntimeError, TimeoutError, OSError, ValueError)


def connect_error(label: str, exc: BaseException) -> str:
    """"cannot connect to LABEL: why", said once."""
    text = str(exc).strip() or type(exc).__name__
    if not isinstance(exc, _PLAIN_FAILURES):
        text = f"{type(exc).__name__}: {text}"
    prefix = f"cannot connect to {label}"
    if text.startswith(prefix):
        return text
    return f"{prefix}: {text}"


def listing_failure(failures: list[tuple[str, str, str]]) -> str:
    """Why no listing worked, from (what, method, error text); one reason when they all say the same."""
    reasons = [text.removeprefix(f"{method}: ") for _what, method, text in failures]
    if reasons and all(reason == reasons[0] for reason in reasons):
        return f"the server answered every listing ({', '.join(m for _w, m, _t in failures)}) with {reasons[0]}"
    return "no listing worked: " + "; ".join(f"{what}: {reason}" for (what, _m, _t), reason in
                                            zip(failures, reasons, strict=True))
