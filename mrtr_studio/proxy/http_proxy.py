"""The recording reverse proxy: a client's Streamable HTTP traffic relayed to the real server, as it
arrives, with every JSON-RPC message copied to a tap.

Both eras pass: POSTs answered with JSON or with an SSE stream (relayed chunk by chunk, never
buffered), the legacy standalone GET stream, DELETE, `Mcp-Session-Id` and every other header,
except the hop-by-hop ones (RFC 9110 7.6.1: Connection, the names it lists, Keep-Alive, TE, Trailer,
Transfer-Encoding, Upgrade, Proxy-*) and Host, which names the upstream. The upstream is asked for
`Accept-Encoding: identity`: what the proxy records must be what it relays, readable.

Recording never delays the relay: what was relayed is queued and recorded (decoded, stitched,
linted, journaled) when the event loop is next free, in arrival order, so a request is on its way
upstream and a response is on its way to the client before either is linted. Every read is
bounded: the request body by size and time, one SSE event or JSON body by `max_body_bytes` (past
it the relay goes on and the recording notes what it skipped), silence on a POST's response by
`idle_timeout`. The standalone GET stream may be quiet for as long as the client keeps it open.
"""

import asyncio
import contextlib
import itertools
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..protocol import jsonrpc, wire_json
from ..protocol.errors import INTERNAL_ERROR, INVALID_REQUEST
from ..trace.redaction import Redaction
from ..transport.base import Tap
from ..transport.sse import Receive, Send, dumps, send_bytes
from ..transport.sse_reader import SseParser, SseTooLarge
from .host_guard import HostGuard
from .http_meta import answered_session, peer_of, sse_session_of
from .intercept import Intercept
from .upstream import Upstream, UpstreamError, UpstreamResponse, UpstreamTimeouts

HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
                        "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"})
#: JSON-RPC code the proxy answers with when the upstream cannot be reached (server error range).
UPSTREAM_UNREACHABLE = -32001


#: (direction, raw bytes or a note, exchange, meta): one relayed message for a recorder elsewhere.
Sink = Callable[[str, bytes | str, int, dict[str, Any]], None]


@dataclass(frozen=True)
class ProxyLimits:
    max_body_bytes: int = 16 * 1024 * 1024
    max_depth: int = wire_json.MAX_DEPTH
    #: Seconds a client may take to send a request body once its headers are in.
    body_timeout: float = 30.0
    #: Silence allowed on an upstream POST response (the standalone GET stream has none).
    idle_timeout: float = 300.0
    connect_timeout: float = 10.0
    max_connections: int = 200


def forwardable(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """Headers minus the hop-by-hop ones (and those a Connection header names), Host and Content-Length."""
    named = {part.strip().lower() for name, value in headers if name.lower() == b"connection"
             for part in value.decode("latin-1").split(",")}
    dropped = HOP_BY_HOP | named | {"host", "content-length"}
    return [(name, value) for name, value in headers if name.decode("latin-1").lower() not in dropped]


class ProxyApp:
    """ASGI app relaying every request to `upstream`; `tap` sees each message with an `exchange` key."""

    def __init__(self, upstream: str, tap: Tap, limits: ProxyLimits | None = None, sink: "Sink | None" = None,
                 allowed_hosts: Iterable[str] = (), redaction: Redaction | None = None) -> None:
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"the upstream must be an http(s) URL, got {upstream!r}")
        self.upstream = upstream
        self.path = parts.path or "/"
        self._origin = f"{parts.scheme}://{parts.netloc}"
        self.tap = tap
        #: Host and Origin of the listening side (421 / 403 before anything is relayed).
        self.guard = HostGuard(allowed_hosts)  # raises ValueError for a malformed --allow-host
        #: How headers and the query string are masked in what is recorded.
        self.redaction = redaction or Redaction()
        self.limits = limits or ProxyLimits()
        self._client = Upstream(self.limits.max_connections)
        limits_now = self.limits
        #: POSTs and DELETEs wait `idle_timeout` for each read; the standalone GET stream as long as it lasts.
        self._timeouts = {verb: UpstreamTimeouts(limits_now.connect_timeout, None if verb == "GET" else
                                                 limits_now.idle_timeout, limits_now.body_timeout,
                                                 limits_now.connect_timeout) for verb in ("GET", "POST")}
        self._exchanges = itertools.count(1)
        self.relayed = 0
        #: Breakpoints: while `intercept.enabled`, each message waits to be forwarded, edited or dropped.
        self.intercept = Intercept()
        #: Where relayed messages go instead of this process's tap (the recorder process of `proxy`).
        self.sink = sink
        self._queue: deque[tuple[str, bytes | str, int, dict[str, Any]]] = deque()
        self._draining = False

    async def aclose(self) -> None:
        self.flush()
        await self._client.aclose()

    def target_of(self, scope: dict[str, Any]) -> str:
        path = scope.get("path", "/")
        query = scope.get("query_string", b"").decode("latin-1")
        base = self.upstream if path.rstrip("/") == self.path.rstrip("/") else self._origin + path
        return base + (("&" if "?" in base else "?") + query if query else "")

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return
        refused = self.guard.check(scope["headers"], scope.get("server"))
        if refused is not None:
            await _proxy_error(send, refused[0], INVALID_REQUEST, refused[1])
            return
        exchange = next(self._exchanges)
        try:
            body = await asyncio.wait_for(self._body(receive), self.limits.body_timeout)
        except TimeoutError:
            await _proxy_error(send, 408, INVALID_REQUEST, "request timeout: the body did not arrive within "
                               f"{self.limits.body_timeout:g} s")
            return
        if body is None:
            await _proxy_error(send, 413, INVALID_REQUEST,
                               f"request too large for the proxy: the limit is {self.limits.max_body_bytes} bytes")
            return
        headers = [(n, v) for n, v in forwardable(scope["headers"]) if n.lower() != b"accept-encoding"]
        headers.append((b"accept-encoding", b"identity"))
        shown = self.redaction.headers({n.decode("latin-1").lower(): v.decode("latin-1") for n, v in scope["headers"]})
        query = scope.get("query_string", b"").decode("latin-1")
        where = {"http_path": scope.get("path", "/") + ("?" + self.redaction.query(query) if query else ""),
                 **peer_of(scope), **sse_session_of(query)}
        if body and self.intercept.enabled:
            held = await self._hold_request(body, exchange, shown, send)
            if held is None:
                return
            body = held
        timeouts = self._timeouts["GET" if scope["method"] == "GET" else "POST"]
        if body:
            self._record("client->server", body, exchange, request_headers=shown, http_method=scope["method"],
                         **where)
        # The client may leave while the upstream still thinks: its disconnect cancels the upstream request.
        watcher = asyncio.create_task(_disconnected(receive))
        sending = asyncio.create_task(self._client.send(scope["method"], self.target_of(scope), headers, body,
                                                        timeouts))
        try:
            await asyncio.wait({watcher, sending}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not sending.done():
                sending.cancel()
                with contextlib.suppress(BaseException):
                    await sending
        if watcher.done():  # the client left first: nothing to relay to
            if not sending.cancelled() and sending.exception() is None:
                await sending.result().aclose()
            return
        try:
            upstream = sending.result()
        except UpstreamError as exc:
            watcher.cancel()
            named = self.redaction.url(self.target_of(scope))
            await _proxy_error(send, 502, UPSTREAM_UNREACHABLE, f"the proxy cannot reach {named}: "
                               f"{type(exc).__name__}: {exc}")
            return
        self.relayed += 1
        # What arrives on the standalone GET stream belongs to no POST: the stitcher needs the stream's
        # session (its request headers) to place it.
        origin = {"http_method": "GET", "request_headers": shown} if scope["method"] == "GET" else {}
        relay = asyncio.create_task(self._relay(upstream, send, exchange, origin))
        try:
            await asyncio.wait({watcher, relay}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (watcher, relay):
                task.cancel()
            with contextlib.suppress(BaseException):
                await relay
            await upstream.aclose()

    async def _hold_request(self, body: bytes, exchange: int, shown: dict[str, str], send: Send) -> bytes | None:
        """The body to send upstream after the breakpoint, or None when it was dropped (answered here)."""
        try:
            message = wire_json.loads(body, max_bytes=self.limits.max_body_bytes, max_depth=self.limits.max_depth)
        except wire_json.WireJsonError:
            return body  # not JSON: nothing to edit, it passes
        decided = await self.intercept.hold("client->server", message)
        if decided is not None:
            return body if decided is message else dumps(decided)
        self._record("client->server", body, exchange, request_headers=shown, intercepted="dropped")
        msg_id = message.get("id") if isinstance(message, dict) else None
        if isinstance(message, dict) and "method" in message and msg_id is not None:
            reply = jsonrpc.error(msg_id, UPSTREAM_UNREACHABLE, "dropped at a breakpoint of the studio's proxy")
            self._record("server->client", dumps(reply), exchange, http_status=502, intercepted="proxy answer")
            await send_bytes(send, 502, dumps(reply))
        else:
            await send_bytes(send, 202, b"")
        return None

    async def _body(self, receive: Receive) -> bytes | None:
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return bytes(body)
            body += message.get("body", b"")
            if len(body) > self.limits.max_body_bytes:
                return None
            if not message.get("more_body"):
                return bytes(body)

    async def _relay(self, upstream: UpstreamResponse, send: Send, exchange: int,
                     origin: dict[str, Any] | None = None) -> None:
        content_type = upstream.headers.get("content-type", "").split(";")[0].strip().lower()
        # The listening side sends its own Date: the upstream's would make two.
        head = [(n, v) for n, v in forwardable(upstream.headers.raw) if n.lower() != b"date"]
        streaming = content_type == "text/event-stream"
        if self.intercept.enabled:
            await self._relay_held(upstream, send, exchange, head, streaming, content_type, origin or {})
            return
        if not streaming and "content-length" in upstream.headers:
            head.append((b"content-length", upstream.headers["content-length"].encode("latin-1")))
        await send({"type": "http.response.start", "status": upstream.status_code, "headers": head})
        meta = {"http_status": upstream.status_code, "content_type": content_type, **(origin or {}),
                "response_headers": self.redaction.headers(dict(upstream.headers)),  # masked, for HAR exports
                **answered_session(upstream.headers)}
        if streaming:
            await self._relay_stream(upstream, send, exchange, meta)
        else:
            await self._relay_body(upstream, send, exchange, meta)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _relay_body(self, upstream: UpstreamResponse, send: Send, exchange: int, meta: dict[str, Any]) -> None:
        kept = bytearray()
        over = False
        async for chunk in upstream.aiter_raw():
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if not over:
                kept += chunk
                over = len(kept) > self.limits.max_body_bytes
        if over:
            self._record("server->client", f"({len(kept)}+ bytes, not recorded)", exchange,
                         error="body too large", framing="json", **meta)
        elif kept.strip():
            self._record("server->client", bytes(kept), exchange, framing="json", **meta)
        elif upstream.status_code >= 400:  # a refusal without a body still answers the request
            self._record("server->client", "", exchange, error=f"HTTP {upstream.status_code} with no body", **meta)

    async def _relay_stream(self, upstream: UpstreamResponse, send: Send, exchange: int,
                            meta: dict[str, Any]) -> None:
        async def relayed() -> AsyncIterator[bytes]:
            async for chunk in upstream.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                yield chunk

        chunks = relayed()
        parser = SseParser(self.limits.max_body_bytes)
        try:
            async for event in parser.events(chunks):
                if event.has_data and event.data.strip():
                    extra = {"event_id": event.id} if event.id else {}
                    if event.event not in ("", "message"):  # the legacy HTTP+SSE transport's `endpoint`
                        extra["sse_event"] = event.event
                    self._record("server->client", event.data, exchange, framing="sse", **meta, **extra)
        except SseTooLarge as exc:
            self._record("server->client", f"({exc})", exchange, error="SSE event too large", **meta)
            async for _ in chunks:  # the relay goes on; only the recording stopped
                pass

    async def _relay_held(self, upstream: UpstreamResponse, send: Send, exchange: int, head: list[tuple[bytes, bytes]],
                          streaming: bool, content_type: str, origin: dict[str, Any]) -> None:
        """The response with a breakpoint on each message: SSE events re-framed one by one, a JSON body
        read whole (bounded) and sent with its new length."""
        meta = {"http_status": upstream.status_code, "content_type": content_type, **origin,
                "response_headers": self.redaction.headers(dict(upstream.headers))}
        if streaming:
            await send({"type": "http.response.start", "status": upstream.status_code, "headers": head})
            parser = SseParser(self.limits.max_body_bytes)
            try:
                async for event in parser.events(upstream.aiter_raw()):
                    named = event.event not in ("", "message")  # the legacy HTTP+SSE `endpoint` keeps its name
                    frame = await self._held_frame(event.data if event.has_data else "", exchange,
                                                   {**meta, "sse_event": event.event} if named else meta)
                    prefix = (f"event: {event.event}\n" if named else "").encode() + \
                        (f"id: {event.id}\n".encode() if event.id else b"")
                    if frame is not None or prefix:
                        framed = prefix + (b"data: " + frame + b"\n" if frame is not None else b"") + b"\n"
                        await send({"type": "http.response.body", "body": framed, "more_body": True})
            except SseTooLarge as exc:
                self._record("server->client", f"({exc})", exchange, error="SSE event too large", **meta)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        body = bytearray()
        async for chunk in upstream.aiter_raw():
            body += chunk
            if len(body) > self.limits.max_body_bytes:
                await _proxy_error(send, 502, UPSTREAM_UNREACHABLE, "the upstream's body is over the proxy's limit")
                return
        frame = await self._held_frame(bytes(body), exchange, meta) if bytes(body).strip() else bytes(body)
        if frame is None:
            frame = b""
        await send_bytes(send, upstream.status_code, frame, (upstream.headers.get("content-type") or
                                                             "application/json").encode("latin-1"),
                         [(n, v) for n, v in head if n.lower() != b"content-type"])

    async def _held_frame(self, data: bytes | str, exchange: int, meta: dict[str, Any]) -> bytes | None:
        """One server message through the breakpoint: its bytes to send on, or None when dropped."""
        raw = data.encode() if isinstance(data, str) else data
        if not raw.strip():
            return None
        try:
            message = wire_json.loads(raw, max_bytes=self.limits.max_body_bytes, max_depth=self.limits.max_depth)
        except wire_json.WireJsonError:
            self._record("server->client", raw, exchange, **meta)
            return raw
        decided = await self.intercept.hold("server->client", message)
        if decided is None:
            self._record("server->client", raw, exchange, intercepted="dropped", error="dropped at a breakpoint",
                         **meta)
            return None
        out = raw if decided is message else dumps(decided)
        self._record("server->client", out, exchange, **meta, **({} if decided is message else
                                                                   {"intercepted": "edited"}))
        return out

    def _record(self, direction: str, raw: bytes | str, exchange: int, **meta: Any) -> None:
        """Queue one relayed message for recording once the loop is free (order kept)."""
        if self.sink is not None:
            self.sink(direction, raw, exchange, meta)
            return
        self._queue.append((direction, raw, exchange, meta))
        if not self._draining:
            self._draining = True
            asyncio.get_running_loop().call_soon(self._drain)

    def _drain(self) -> None:
        self._draining = False
        while self._queue:
            direction, raw, exchange, meta = self._queue.popleft()
            self._record_now(direction, raw, exchange, **meta)

    def flush(self) -> None:
        """Record what is still queued (before the trace is written)."""
        self._drain()

    def _record_now(self, direction: str, raw: bytes | str, exchange: int, **meta: Any) -> None:
        if "error" in meta:  # a note about what was relayed but not kept
            self.tap.emit(direction, raw, exchange=exchange, transport="http-proxy", **meta)  # type: ignore[arg-type]
            return
        try:
            message = wire_json.loads(raw, max_bytes=self.limits.max_body_bytes, max_depth=self.limits.max_depth)
        except wire_json.WireJsonError as exc:
            text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
            self.tap.emit(direction, text[:65536], exchange=exchange, transport="http-proxy",  # type: ignore[arg-type]
                          error=f"not JSON: {exc}", **meta)
            return
        items = message if isinstance(message, list) else [message]  # a batch: each message on its own
        for item in items:
            self.tap.emit(direction, item, exchange=exchange, transport="http-proxy", **meta)  # type: ignore[arg-type]


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _proxy_error(send: Send, status: int, code: int, message: str) -> None:
    await send_bytes(send, status, dumps(jsonrpc.error(None, code if code else INTERNAL_ERROR, message)))
