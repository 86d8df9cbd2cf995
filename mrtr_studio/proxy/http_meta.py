"""What the recording proxy adds to a message's metadata for the stitcher (proxy.stitch): which client
connection it came on, and the session the upstream's answer named. Kept out of the relay's module so
the relay stays about relaying."""

from typing import Any
from urllib.parse import parse_qsl

import httpx


def peer_of(scope: dict[str, Any]) -> dict[str, str]:
    """`{"peer": "HOST:PORT"}` for the client's TCP connection (ASGI `client`), `{}` when unknown. A
    keep-alive client sends its retries on a connection it reuses: a hint for the stitcher that
    never overrides a state or a session."""
    client = scope.get("client")
    if isinstance(client, list | tuple) and len(client) == 2:
        return {"peer": f"{client[0]}:{client[1]}"}
    return {}


def answered_session(headers: httpx.Headers) -> dict[str, str]:
    """`{"response_session": ID}` when the upstream answered with an Mcp-Session-Id (the legacy
    initialize names its session there); the stitcher reads it and does not record it."""
    session = headers.get("mcp-session-id")
    return {"response_session": session[:256]} if session else {}


def sse_session_of(query: str) -> dict[str, str]:
    """`{"sse_session": ID}` for a POST of the legacy HTTP+SSE transport (`/messages?sessionId=ID`, the
    Python SDK's `session_id`): the only link between it and the answer on the GET stream. The
    recorded `http_path` has it masked; the stitcher reads this unmasked copy and does not record it."""
    named = dict(parse_qsl(query[:4096]))
    session = named.get("sessionId") or named.get("session_id")
    return {"sse_session": session[:256]} if session else {}
