"""Streamable HTTP server: the engine at `/mcp` for both eras, as a lean ASGI application.

Modern (2026-07-28) requests are self-contained POSTs: the body's `_meta` says who and what, the
mirrored headers must agree with it, and each gets a fresh session. Legacy (2025-11-25) clients
`initialize` for an `Mcp-Session-Id`; their server-initiated requests (elicitation, sampling,
roots) ride the SSE stream of the pending request and the answers come back as POSTs.

The HTTP layer owns what the engine cannot see: host and origin (DNS-rebinding protection), size,
depth and read time of the body, content type, authentication, the header-versus-body checks, the
legacy sessions' lifetime and the mapping of JSON-RPC error codes to HTTP statuses. The hot path
is plain ASGI (no per-request framework objects) because throughput is one of the goals.
"""

import asyncio
import contextvars
import itertools
import os
import time
from typing import Any

from ..engine import McpServer, Session
from ..protocol import jsonrpc, param_headers, wire_json
from ..protocol.errors import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    McpError,
)
from ..protocol.versions import META_PROTOCOL_VERSION
from ..trace.redaction import DEFAULT
from .base import Tap
from .body_deadlines import BodyDeadlines
from .http_access import Access, Refusal
from .http_config import HttpServerConfig
from .legacy_sessions import LegacySessions
from .request_headers import decode_header_value, header_problem, parse_headers
from .server_timing import server_timing
from .sse import AsgiResponder, Receive, Reply, Responder, Send, dumps

#: Modern error codes and the HTTP status the 2026-07-28 transport gives them.
STATUS_OF_CODE = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    INVALID_PARAMS: 400,
    HEADER_MISMATCH: 400,
    MISSING_REQUIRED_CLIENT_CAPABILITY: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    METHOD_NOT_FOUND: 404,
}
__all__ = ["HttpServerConfig", "McpHttpApp", "decode_header_value"]
SESSION_HEADER = b"mcp-session-id"
#: Headers whose repeat would let two readers disagree on who, where or which session.
SINGLE_HEADERS = frozenset({"host", "origin", "authorization", "content-type", "content-length", "mcp-session-id"})
#: JSON-RPC code of "the server cannot take this now" (implementation-defined server error range).
SERVER_BUSY = -32000


class McpHttpApp:
    """The ASGI callable serving one McpServer; `tap` (optional) sees every message it handles."""

    def __init__(self, server: McpServer, config: HttpServerConfig | None = None, tap: Tap | None = None) -> None:
        self.server = server
        self.config = config or HttpServerConfig()
        self.tap = tap
        self._annotations: dict[str, tuple[Any, list[param_headers.HeaderParam]]] = {}
        self._exchanges = itertools.count(1)
        self.sessions = LegacySessions(server, self.config.session_idle_seconds, self.config.max_sessions)
        self._body_deadlines = BodyDeadlines(self.config.body_timeout)
        #: The endpoint's path without a trailing slash (`/mcp` and `/mcp/` both reach it).
        self._endpoint = self.config.path.rstrip("/")
        #: Who may ask: Host, Origin, bearer token or OAuth access token.
        self.access = Access(self.config)

    @property
    def direct_body_limit(self) -> int:
        """The connection may hand this endpoint a whole body up to this size without ASGI (`direct_lane`)."""
        return self.config.max_body_bytes

    def close(self) -> None:
        """Stop the legacy sessions' and body deadlines' timers (the host calls this when it stops serving)."""
        self.sessions.stop()
        self._body_deadlines.stop()

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        await self.request(scope, AsgiResponder(send, receive))

    async def request(self, scope: dict[str, Any], out: Responder, body: bytes | None = None) -> None:
        """One HTTP request, answered through `out`. `body`: the whole body when the connection already
        holds it (`direct_lane`: it arrived with the headers, within `max_body_bytes`); None: read it
        from `out.receive`, bounded in size and time."""
        headers, repeated = parse_headers(scope["headers"])
        host = headers.get("host")
        access = self.access
        if not access.host_allowed(host, scope.get("server")):
            await _error(out, 421, None, INVALID_REQUEST,
                         f"Misdirected request: Host {host!r} is not a name this server answers to")
            return
        verifier = self.config.verifier
        path = scope["path"]
        if verifier is not None and scope["method"] == "GET" and path in access.metadata_paths():
            await out.whole(200, dumps(verifier.metadata(access.resource(scope, host))),
                             content_type=b"application/json")
            return
        if path != self._endpoint and path.rstrip("/") != self._endpoint:
            await _error(out, 404, None, INVALID_REQUEST, f"Not found: the MCP endpoint is {self.config.path}")
            return
        twice = repeated & SINGLE_HEADERS if repeated else None
        if twice:
            await _error(out, 400, None, INVALID_REQUEST,
                         f"Bad request: the {', '.join(sorted(twice))} header is sent more than once")
            return
        origin = headers.get("origin")
        if origin is not None and not access.origin_allowed(origin):
            await _error(out, 403, None, INVALID_REQUEST, f"Forbidden: origin {origin!r} is not allowed")
            return
        verb = scope["method"]
        if verb not in ("POST", "DELETE"):
            await _error(out, 405, None, INVALID_REQUEST, f"Method not allowed: {verb} (POST and DELETE only)",
                         [(b"allow", b"POST, DELETE")])
            return
        if verifier is not None:
            verified = await access.verified(verifier, headers.get("authorization"), scope, host)
            if isinstance(verified, Refusal):
                await _error(out, verified.status, None, INVALID_REQUEST, verified.message, verified.headers)
                return
            principal: str | None = verified
        else:
            principal = access.principal(headers.get("authorization"))
        if principal is None:
            await _error(out, 401, None, INVALID_REQUEST, "Unauthorized: unknown bearer token",
                         [(b"www-authenticate", b'Bearer error="invalid_token"')])
            return
        if verb == "DELETE":
            await self._delete(headers.get("mcp-session-id"), principal, out)
            return
        content_type = headers.get("content-type", "")
        if content_type != "application/json" and \
                (content_type := content_type.split(";")[0].strip().lower()) != "application/json":
            await _error(out, 400, None, INVALID_REQUEST,
                         f"Bad request: Content-Type must be application/json, got {content_type or 'none'!r}")
            return
        try:
            if body is None:
                body = await self._read_body(headers, out.receive, asyncio.current_task())
        except TimeoutError:
            await _error(out, 408, None, INVALID_REQUEST,
                         f"Request timeout: the body did not arrive within {self.config.body_timeout:g} s",
                         [(b"connection", b"close")])
            return
        if body is None:
            await _error(out, 413, None, INVALID_REQUEST,
                         f"Request too large: the limit is {self.config.max_body_bytes} bytes")
            return
        try:
            message, brackets = wire_json.loads_counted(body, max_bytes=self.config.max_body_bytes,
                                                        max_depth=self.config.max_json_depth)
        except wire_json.WireJsonError as exc:
            code = PARSE_ERROR if exc.reason == "syntax" else INVALID_REQUEST
            label = "Parse error" if exc.reason == "syntax" else "Invalid request"
            await _error(out, 413 if exc.reason == "size" else 400, None, code, f"{label}: {exc}")
            return
        await self._dispatch(message, headers, repeated, principal, out, brackets)

    # --- dispatch -------------------------------------------------------------------------------

    async def _dispatch(self, message: Any, headers: dict[str, str], repeated: set[str] | None, principal: str,
                        out: Responder, brackets: int) -> None:
        """Route one decoded message (`brackets`: the `[` and `{` its text had, a bound on its depth)."""
        if isinstance(message, list):
            await _error(out, 400, None, INVALID_REQUEST, "Invalid request: batches are not supported")
            return
        try:
            kind = jsonrpc.kind_of(message)
        except McpError as exc:
            msg_id = message.get("id") if isinstance(message, dict) else None
            await _error(out, 400, msg_id if isinstance(msg_id, str | int) else None, exc.code, exc.message)
            return
        if self.tap is not None:  # the exchange number and masked headers are only for a listener
            _exchange.set(next(self._exchanges))
            self._emit("client->server", message, request_headers=DEFAULT.headers(headers))
        session_id = headers.get("mcp-session-id")
        if kind in ("result", "error", "notification"):
            session = self.sessions.find(session_id, principal) if session_id else Session(user=principal)
            if session is None:
                await self._reject(out, 404, None, INVALID_REQUEST, "Session not found")
                return
            await self.server.handle(message, session)
            problem = jsonrpc.response_problem(message) if kind in ("result", "error") else None
            if problem:
                await _error(out, 400, None, INVALID_REQUEST, problem)
                return
            await out.whole(202, b"")
            return
        params = message.get("params") or {}
        meta = params.get("_meta")
        modern = isinstance(meta, dict) and META_PROTOCOL_VERSION in meta
        if modern or (session_id is None and message["method"] != "initialize"):
            await self._modern(message, headers, repeated, principal, out, brackets)
        elif message["method"] == "initialize":
            await self._initialize(message, principal, out)
        else:
            legacy = self.sessions.find(session_id, principal)
            if legacy is None:
                await self._reject(out, 404, message["id"], INVALID_REQUEST, "Session not found: initialize again")
                return
            with self.sessions.using(legacy.id):
                await self._serve(message, legacy, out, modern=False)

    async def _modern(self, message: dict[str, Any], headers: dict[str, str], repeated: set[str] | None,
                      principal: str, out: Responder, brackets: int) -> None:
        problem = header_problem(message, headers, self._header_params(message), repeated)
        if problem:
            await self._reject(out, 400, message["id"], HEADER_MISMATCH, f"Header mismatch: {problem}")
            return
        # lives for this one request and is never looked up by id: unique is enough, unguessable is not needed
        session = Session(id=f"{_TRANSIENT}{next(_transient_ids)}", user=principal, server=self.server,
                          decoded_brackets=brackets)  # wire_json decoded its message
        await self._serve(message, session, out, modern=True)

    async def _initialize(self, message: dict[str, Any], principal: str, out: Responder) -> None:
        if self.sessions.full():
            await self._reject(out, 503, message["id"], SERVER_BUSY,
                               f"Server busy: {self.config.max_sessions} sessions are open; retry later",
                               [(b"retry-after", str(self.sessions.retry_after()).encode())])
            return
        session = self.sessions.open(principal)
        response = await self.server.handle(message, session)
        assert response is not None
        # the tap is told the session the response opens, so a recorder can tie later requests to this handshake
        self._emit("server->client", response,
                   **({} if "error" in response else {"response_headers": {SESSION_HEADER.decode(): session.id}}))
        if "error" in response:
            self.sessions.close(session.id)
            await out.whole(200, dumps(response))
            return
        await out.whole(200, dumps(response), headers=[(SESSION_HEADER, session.id.encode())])

    async def _serve(self, message: dict[str, Any], session: Session, out: Responder,
                     modern: bool) -> None:
        """Run the engine; anything sent before the response (notifications, legacy requests) streams."""
        reply = Reply(out, owner=out.task)
        if self.tap is None:
            emit, notify = reply.event, reply.notify
        else:
            emit = self._tapped(reply)
            notify = _notifier(emit)
        began = time.perf_counter()
        try:
            # legacy server-initiated requests ride this stream; a modern call has no legacy session to send on
            # _dispatch classified it: a request (the engine does not check its envelope again)
            response = await self.server.answer(message, session, notify, outbound=None if modern else emit)
        except BaseException:
            if reply.client_gone:  # the client closed the stream: that is cancellation, not a failure
                _uncancel()
                return
            raise
        if self.tap is not None:
            self._emit("server->client", response)
        status = STATUS_OF_CODE.get(response["error"]["code"], 200) if modern and "error" in response else 200
        await reply.finish(response, status, [server_timing((time.perf_counter() - began) * 1000)])

    def _header_params(self, message: dict[str, Any]) -> list[param_headers.HeaderParam]:
        """The tool's `x-mcp-header` parameters (cached per tool); none for other methods or unknown tools."""
        params = message.get("params")
        name = params.get("name") if message.get("method") == "tools/call" and isinstance(params, dict) else None
        tool = self.server.registry.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            return []
        cached = self._annotations.get(name)  # type: ignore[arg-type]
        if cached is None or cached[0] is not tool.input_schema:
            try:
                found = param_headers.annotations(tool.input_schema)
            except param_headers.InvalidAnnotation:
                found = []  # an invalid definition is the server author's bug; clients drop the tool
            cached = (tool.input_schema, found)
            self._annotations[name] = cached  # type: ignore[index]
        return cached[1]

    # --- sessions, identity, limits ---------------------------------------------------------------

    async def _delete(self, session_id: str | None, principal: str, out: Responder) -> None:
        """DELETE ends a legacy session, for its own principal only (anyone else: as if it did not exist)."""
        if not session_id:
            await _error(out, 400, None, INVALID_REQUEST, "Bad request: DELETE needs an Mcp-Session-Id header")
            return
        if self.sessions.find(session_id, principal) is None:
            await _error(out, 404, None, INVALID_REQUEST, "Session not found")
            return
        self.sessions.close(session_id)
        await out.whole(204, b"")

    async def _read_body(self, headers: dict[str, str], receive: Receive,
                         task: "asyncio.Task[Any] | None") -> bytes | None:
        """The whole body within `max_body_bytes` (None past it) and `body_timeout` (TimeoutError past it)."""
        limit = self.config.max_body_bytes
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            return None
        assert task is not None
        self._body_deadlines.started(task)
        try:
            return await _receive_body(receive, limit)
        except asyncio.CancelledError:
            if self._body_deadlines.expired(task) and task.uncancel() == 0:
                raise TimeoutError from None
            raise
        finally:
            self._body_deadlines.finished(task)

    # --- the tap ----------------------------------------------------------------------------------

    def _emit(self, direction: Any, message: Any, **meta: Any) -> None:
        """To the tap, tagged with the HTTP exchange it belongs to so a recorder can pair request and answer."""
        if self.tap is not None:
            self.tap.emit(direction, message, transport="http-server", exchange=_exchange.get(), **meta)

    async def _reject(self, out: Responder, status: int, msg_id: Any, code: int, message: str,
                      headers: list[tuple[bytes, bytes]] | None = None) -> None:
        """An error answer to a message the tap has seen: the tap sees the answer too."""
        body = jsonrpc.error(msg_id, code, message)
        self._emit("server->client", body, http_status=status)
        await out.whole(status, dumps(body), headers=headers)

    def _tapped(self, reply: Reply) -> Any:
        async def emit(message: dict[str, Any]) -> None:
            self._emit("server->client", message, sse=True)
            await reply.event(message)
        return emit


async def _receive_body(receive: Receive, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            return b""
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not event.get("more_body"):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _notifier(emit: Any) -> Any:
    async def notify(method: str, params: dict[str, Any]) -> None:
        await emit(jsonrpc.notification(method, params))
    return notify


def _uncancel() -> None:
    import asyncio

    task = asyncio.current_task()
    if task is not None:
        task.uncancel()


#: Ids of the one-request sessions of modern calls: this process's random prefix and a counter.
_TRANSIENT = f"call-{os.urandom(6).hex()}-"
_transient_ids = itertools.count(1)
#: Which HTTP request (exchange) the code running now serves; the tap pairs messages with it.
_exchange: contextvars.ContextVar[int | None] = contextvars.ContextVar("_exchange", default=None)


async def _error(out: Responder, status: int, msg_id: Any, code: int, message: str,
                 headers: list[tuple[bytes, bytes]] | None = None) -> None:
    await out.whole(status, dumps(jsonrpc.error(msg_id, code, message)), headers=headers)


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        event = await receive()
        if event["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif event["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
