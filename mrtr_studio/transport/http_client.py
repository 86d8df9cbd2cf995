"""Streamable HTTP client (httpx) for both eras, recording every message through the tap.

Modern (2026-07-28): every POST carries MCP-Protocol-Version, Mcp-Method and Mcp-Name mirrored
from the body, no session. Legacy (2025-11-25 and older): the Mcp-Session-Id from `initialize` and
the negotiated version ride along, and the server may send its own requests on a response's SSE
stream; those are answered by POSTing the client's response while the stream keeps being read.
A 4xx whose body is a JSON-RPC error is returned as a response (the era probe needs to read it);
anything unusable becomes a TransportError saying what went wrong, never a hang.

Every read is bounded (TransportLimits): one body or event by `max_body_bytes`, one request's
streams by `max_stream_bytes`, silence by the idle window and the whole request by an overall
deadline. A 2025-11-25 server with resumability primes its streams with an event that has an id
and no data: the id is kept, and when the stream closes before the response, the client waits the
server's `retry` and reconnects with GET and `Last-Event-ID`. After a legacy initialize the client
opens the standalone GET stream (unless the server answers 405) and answers what arrives there.
"""

import asyncio
import contextlib
import contextvars
import itertools
import logging
from collections.abc import AsyncIterator, Coroutine
from typing import Any, TypeVar

import httpx

from ..auth.challenge import refusal
from ..auth.exchanges import Exchange, exchange_sink
from ..protocol import param_headers
from ..protocol.wire_json import WireJsonError
from ..trace.redaction import DEFAULT
from .base import (
    Direction,
    RequestAuth,
    ServerRequestHandler,
    ServerRequestPool,
    Tap,
    TransportError,
    TransportLimits,
)
from .mcp_headers import ACCEPT, is_modern, modern_headers
from .patience import IdleWindow, Progress
from .server_timing import server_timing_ms
from .sse_reader import SseParser, SseTooLarge

#: Reconnection delay when a resumable stream closes and the server gave no `retry:` (milliseconds).
DEFAULT_RETRY_MS = 1000
#: Reconnections with Last-Event-ID tried for one request before giving up.
MAX_RESUMES = 3
#: Graceful closes of the standalone GET stream reconnected in one session.
MAX_LISTENER_RECONNECTS = 20
#: Bodies the client reads only to report them (an acknowledgement, a refused GET): kept short.
SMALL_BODY = 64 * 1024
#: Times one request may be refused with 401/403 and sent again after the auth flow ran.
MAX_AUTH_CHALLENGES = 3
#: Tags the answers to requests heard on the standalone GET stream (no client request owns them).
LISTENER = object()
_T = TypeVar("_T")


class HttpClientTransport:
    def __init__(self, url: str, bearer_token: str | None = None, tap: Tap | None = None, timeout: float = 30.0,
                 headers: dict[str, str] | None = None, client: httpx.AsyncClient | None = None,
                 limits: TransportLimits | None = None, listen: bool = True, auth: RequestAuth | None = None,
                 ) -> None:
        self.url = url
        #: The URL as records and error messages show it (a `?api_key=` or password masked).
        self.shown = DEFAULT.url(url)
        self.bearer_token = bearer_token
        #: Consulted for the Authorization header and when a request is refused (OAuth); None: bearer_token only.
        self.auth = auth
        self.tap = tap or Tap()
        self.limits = limits or TransportLimits(idle_timeout=timeout)
        self.timeout = self.limits.idle_timeout
        self.extra_headers = dict(headers or {})
        self.session_id: str | None = None
        self.legacy_version: str | None = None
        #: `x-mcp-header` parameters per tool, learnt from tools/list results that passed through here.
        self.header_params: dict[str, list[param_headers.HeaderParam]] = {}
        #: Tools dropped from tools/list because their annotations break the rules (name -> why).
        self.rejected_tools: dict[str, str] = {}
        #: Whether to open the legacy standalone GET stream after initialize, and what became of it.
        self.listen = listen
        self.listening = "not opened"
        # Reads are timed by deadlines of our own (see send): the idle one pauses while a person answers.
        self._client = client or httpx.AsyncClient(timeout=httpx.Timeout(self.timeout, read=None))
        self._pool = ServerRequestPool(self.limits, self._post_reply)
        self._listener: asyncio.Task[None] | None = None
        #: The sender's context per request in flight: what the standalone stream hears is recorded there.
        self._contexts: dict[int, contextvars.Context] = {}
        self._sends = itertools.count()

    def on_server_request(self, handler: ServerRequestHandler) -> None:
        self._pool.set_handler(handler)

    def headers_for(self, message: dict[str, Any]) -> dict[str, str]:
        headers = {"Accept": ACCEPT, "Content-Type": "application/json", **self._common_headers("POST")}
        if "method" in message and is_modern(message):
            headers.update(modern_headers(message, self.header_params))
            return headers
        return {**headers, **self._session_headers(message.get("method") != "initialize")}

    def _common_headers(self, method: str) -> dict[str, str]:
        headers = {"Accept-Encoding": "identity", **self.extra_headers}  # no decompression bombs
        authorization = self.auth.authorization() if self.auth is not None else None
        if authorization:
            headers["Authorization"] = authorization
            dpop = self.auth.proof(method, self.url) if self.auth is not None else None
            if dpop:
                headers["DPoP"] = dpop  # a fresh proof per request (sender-constrained token)
        elif self.bearer_token:
            headers["Authorization"] = f"Bearer {self.bearer_token}"
        return headers

    def _session_headers(self, with_version: bool = True) -> dict[str, str]:
        headers: dict[str, str] = {}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if self.legacy_version and with_version:
            headers["MCP-Protocol-Version"] = self.legacy_version
        return headers

    async def send(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Send one message; a 401/403 with an `auth` runs its flow (outside the request's deadline) and
        sends the message again, at most MAX_AUTH_CHALLENGES times."""
        challenges = 0
        if self.auth is not None:
            with contextlib.suppress(Exception):  # a failed refresh leaves the server's 401 to run the flow
                await self._authorizing(self.auth.prepare())
        while True:
            try:
                return await self._send_once(message)
            except _Challenged as refused:
                challenges += 1
                if self.auth is None or challenges > MAX_AUTH_CHALLENGES:
                    raise TransportError(refusal(refused.status, self.shown, refused.www_authenticate,
                                                 challenges - 1)) from None
                try:
                    again = await self._authorizing(self.auth.challenged(
                        refused.status, refused.www_authenticate, refused.sent, dpop_nonce=refused.dpop_nonce))
                except Exception as exc:
                    raise TransportError(f"HTTP {refused.status} from {self.shown}; authorization failed: {exc}") \
                        from exc
                if not again:
                    raise TransportError(refusal(refused.status, self.shown, refused.www_authenticate)) from None

    async def _authorizing(self, step: Coroutine[Any, Any, _T]) -> _T:
        """Run a step of the auth flow with its exchanges going onto this transport's tap (into the trace
        of the request that needed them), each marked `auth_phase`."""
        token = exchange_sink.set(self._auth_exchange)
        try:
            return await step
        finally:
            exchange_sink.reset(token)

    def _auth_exchange(self, exchange: Exchange) -> None:
        direction: Direction = "server->client" if exchange.method == "REDIRECT" else "client->server"
        self.tap.emit(direction, exchange.as_dict(), transport="http", url=self.shown, auth_phase=exchange.phase)

    async def _send_once(self, message: dict[str, Any]) -> dict[str, Any] | None:
        headers = self.headers_for(message)
        shown = DEFAULT.headers(headers)
        self.tap.emit("client->server", message, transport="http", url=self.shown, request_headers=shown)
        progress = Progress(self.shown, self.limits.max_stream_bytes)
        number = next(self._sends)
        self._contexts[number] = contextvars.copy_context()
        owner = object()
        overall = asyncio.timeout(self.limits.request_timeout)
        try:
            async with overall:
                reply = await self._exchange(message, headers, progress, owner)
        except TimeoutError as exc:
            if overall.expired():
                raise TransportError(f"no complete response from {self.shown} within the overall deadline of "
                                     f"{self.limits.request_timeout:g} s ({progress.summary()})") from exc
            raise TransportError(f"no response from {self.shown} within {self.timeout:g} s") from exc
        except httpx.TimeoutException as exc:
            raise TransportError(f"no response from {self.shown} within {self.timeout:g} s ({type(exc).__name__})") \
                from exc
        except httpx.ConnectError as exc:
            raise TransportError(f"cannot connect to {self.shown}: {exc}") from exc
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise TransportError(f"connection to {self.shown} dropped before a response: {exc}") from exc
        except httpx.HTTPError as exc:
            raise TransportError(f"HTTP failure talking to {self.shown}: {type(exc).__name__}: {exc}") from exc
        finally:
            self._contexts.pop(number, None)
            self._pool.cancel(owner)  # answers still in flight are moot once the request ended
        if message.get("method") == "initialize" and isinstance(reply, dict) and isinstance(reply.get("result"), dict):
            self.legacy_version = str(reply["result"].get("protocolVersion") or "") or None
        if message.get("method") == "tools/list" and isinstance(reply, dict) and isinstance(reply.get("result"), dict):
            reply = self._learn_tools(reply)
        if message.get("method") == "notifications/initialized":
            await self._open_listener()
        return reply

    def _learn_tools(self, reply: dict[str, Any]) -> dict[str, Any]:
        """Remember each tool's header parameters; drop tools whose annotations are invalid (a client MUST).

        The trace already holds the listing as it came over the wire; only the caller's copy is filtered."""
        tools = reply["result"].get("tools")
        if not isinstance(tools, list):
            return reply
        kept = []
        for tool in tools:
            name = tool.get("name") if isinstance(tool, dict) else None
            try:
                self.header_params[str(name)] = param_headers.annotations(
                    tool.get("inputSchema") if isinstance(tool, dict) else None)
            except param_headers.InvalidAnnotation as exc:
                self.rejected_tools[str(name)] = str(exc)
                logging.getLogger(__name__).warning("rejected tool %r: %s", name, exc)
                continue
            kept.append(tool)
        if len(kept) == len(tools):
            return reply
        return {**reply, "result": {**reply["result"], "tools": kept}}

    # --- one request: its POST, then any resumption ------------------------------------------

    async def _exchange(self, message: dict[str, Any], headers: dict[str, str], progress: Progress,
                        owner: object) -> dict[str, Any] | None:
        expects_reply = "method" in message and "id" in message
        parser = SseParser(self.limits.max_body_bytes)
        async with IdleWindow(self._pool, self.timeout) as window, \
                self._client.stream("POST", self.url, json=message, headers=headers) as response:
            if self.auth is not None and response.status_code in (401, 403):
                text = await self._small_text(response)
                challenge = response.headers.get("www-authenticate")
                refusal = Exchange("challenge", "POST", self.shown, DEFAULT.headers(headers), message,
                                   response.status_code, {"www-authenticate": challenge or ""}, text or None)
                self.tap.emit("server->client", refusal.as_dict(), **self._meta(response),
                              www_authenticate=challenge, auth_phase="challenge")
                raise _Challenged(response.status_code, challenge, headers.get("Authorization"),
                                  response.headers.get("dpop-nonce"))
            if response.headers.get("mcp-session-id"):
                self.session_id = response.headers["mcp-session-id"]
            meta = self._meta(response)
            if meta["content_type"] != "text/event-stream":
                return await self._read_json(response, meta, expects_reply, progress, window)
            reply = await self._read_stream(response, meta, parser, progress, window, owner, message.get("id"))
        resumes = 0
        while reply is None:
            if parser.last_event_id is None or resumes >= MAX_RESUMES:
                tried = f" after {resumes} reconnection(s) with Last-Event-ID" if resumes else ""
                raise TransportError(f"the SSE stream from {self.shown} ended without a response to id "
                                     f"{message.get('id')!r}{tried}")
            resumes += 1
            reply = await self._resume(message, parser, progress, owner)
        return reply

    async def _resume(self, message: dict[str, Any], parser: SseParser, progress: Progress,
                      owner: object) -> dict[str, Any] | None:
        """The stream closed before the response: wait `retry`, then GET with Last-Event-ID (SEP-1699)."""
        await asyncio.sleep((parser.retry_ms if parser.retry_ms is not None else DEFAULT_RETRY_MS) / 1000)
        headers = {"Accept": "text/event-stream", **self._common_headers("GET"), **self._session_headers(),
                   "Last-Event-ID": str(parser.last_event_id)}
        logging.getLogger(__name__).info("resuming the stream of id %r with Last-Event-ID %r", message.get("id"),
                                         parser.last_event_id)
        async with IdleWindow(self._pool, self.timeout) as window, \
                self._client.stream("GET", self.url, headers=headers) as response:
            meta = {**self._meta(response), "resumed": True}
            if response.status_code != 200 or meta["content_type"] != "text/event-stream":
                text = await self._small_text(response)
                self.tap.emit("server->client", text, **meta, error="cannot resume the stream")
                raise TransportError(f"the SSE stream from {self.shown} ended without a response to id "
                                     f"{message.get('id')!r}, and resuming it with GET and Last-Event-ID "
                                     f"{parser.last_event_id!r} got HTTP {response.status_code}")
            return await self._read_stream(response, meta, parser, progress, window, owner, message.get("id"))

    def _meta(self, response: httpx.Response) -> dict[str, Any]:
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        meta = {"transport": "http", "http_status": response.status_code, "content_type": content_type,
                "response_headers": DEFAULT.headers(dict(response.headers))}  # masked: HAR exports show them
        server_ms = server_timing_ms(response.headers.get("server-timing"))
        return meta if server_ms is None else {**meta, "server_ms": server_ms}

    # --- reading, bounded ----------------------------------------------------------------------

    async def _chunks(self, response: httpx.Response, progress: Progress, window: IdleWindow | None,
                      ) -> AsyncIterator[bytes]:
        async for chunk in response.aiter_bytes():
            progress.count(len(chunk))
            if window is not None:
                window.touch()
            yield chunk

    async def _read_json(self, response: httpx.Response, meta: dict[str, Any], expects_reply: bool,
                         progress: Progress, window: IdleWindow) -> dict[str, Any] | None:
        status, limit = response.status_code, self.limits.max_body_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            self.tap.emit("server->client", f"({declared} bytes, not read)", **meta, error="body too large")
            raise TransportError(f"HTTP {status} from {self.shown}: the body of {declared} bytes is over the limit of "
                                 f"{limit} bytes ({self.limits.body_limit_name}); not read")
        body = bytearray()
        async for chunk in self._chunks(response, progress, window):
            body += chunk
            if len(body) > limit:
                self.tap.emit("server->client", f"({len(body)}+ bytes, not kept)", **meta, error="body too large")
                raise TransportError(f"HTTP {status} from {self.shown}: the body is over the limit of {limit} bytes "
                                     f"({self.limits.body_limit_name}); stopped reading")
        meta.update(framing="json", duration_ms=progress.elapsed_ms())
        text = body.decode("utf-8", errors="replace")
        if not text.strip():
            if status < 300 and not expects_reply:
                return None
            self.tap.emit("server->client", text, **meta, error="empty body")
            raise TransportError(f"HTTP {status} from {self.shown} with an empty body"
                                 + (" (expected a JSON-RPC response)" if status < 300 else ""))
        try:
            parsed = self.limits.decode(bytes(body))
        except WireJsonError as exc:
            self.tap.emit("server->client", text[:SMALL_BODY], **meta, error=exc.described("not JSON"))
            if exc.reason == "syntax":
                raise TransportError(f"HTTP {status} from {self.shown}: the body is not JSON: {text[:80]!r}") from None
            raise TransportError(f"HTTP {status} from {self.shown}: {exc}") from None
        self.tap.emit("server->client", parsed, **meta)
        if not isinstance(parsed, dict) or not ("result" in parsed or "error" in parsed):
            raise TransportError(f"HTTP {status} from {self.shown}: the body is not a JSON-RPC response")
        return parsed

    async def _read_stream(self, response: httpx.Response, meta: dict[str, Any], parser: SseParser,
                           progress: Progress, window: IdleWindow | None, owner: object,
                           request_id: Any = None) -> dict[str, Any] | None:
        """Read SSE events until the response to `request_id` (returned) or the stream's end (None)."""
        meta = {**meta, "framing": "sse"}
        try:
            async for event in parser.events(self._chunks(response, progress, window)):
                progress.events += 1
                if not event.has_data or not event.data.strip():
                    continue  # a priming event (an id, maybe a retry, no message): its id is kept by the parser
                stamp = {**meta, "duration_ms": progress.elapsed_ms(), **({"event_id": event.id} if event.id else {})}
                try:
                    item = self.limits.decode(event.data)
                except WireJsonError as exc:
                    self.tap.emit("server->client", event.data[:SMALL_BODY], **stamp,
                                  error=exc.described("SSE data is not JSON"))
                    if exc.reason == "syntax":
                        raise TransportError(f"SSE event from {self.shown} is not JSON: {event.data[:80]!r}") from None
                    raise TransportError(f"SSE event from {self.shown}: {exc}") from None
                if isinstance(item, dict) and "method" in item and "id" in item:
                    self.tap.emit("server->client", item, **stamp, server_initiated=True)
                    refused = self._pool.submit(item, contextvars.copy_context(), owner)
                    if refused is not None:
                        await self._post_reply(refused)
                    continue
                self.tap.emit("server->client", item, **stamp)
                if request_id is not None and isinstance(item, dict) and ("result" in item or "error" in item) \
                        and item.get("id") == request_id:
                    return item
        except SseTooLarge as exc:
            self.tap.emit("server->client", f"({exc})", **meta, error="SSE event too large")
            raise TransportError(f"SSE stream from {self.shown}: {exc} ({self.limits.body_limit_name}); stopped "
                                 "reading") from None
        return None

    async def _small_text(self, response: httpx.Response) -> str:
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > SMALL_BODY:
                break
        return body[:SMALL_BODY].decode("utf-8", errors="replace")

    # --- answers to server requests ------------------------------------------------------------

    async def _post_reply(self, reply: dict[str, Any]) -> None:
        """POST the client's response to a legacy server request; a refusal is recorded, not raised."""
        headers = self.headers_for(reply)
        self.tap.emit("client->server", reply, transport="http", url=self.shown, server_initiated=True)
        try:
            async with asyncio.timeout(self.timeout):
                async with self._client.stream("POST", self.url, json=reply, headers=headers) as answered:
                    text = await self._small_text(answered)
        except (httpx.HTTPError, TimeoutError):
            return  # the request's own stream reports the failure
        if answered.status_code >= 300:
            self.tap.emit("server->client", text, transport="http", http_status=answered.status_code,
                          error="the server refused the client's response")

    # --- the standalone GET stream (legacy) ----------------------------------------------------

    async def _open_listener(self) -> None:
        """After initialize, open the GET stream a legacy server may send unrelated requests on.

        Waits until the server accepted or refused it (405: it offers none), so a request sent next
        cannot race ahead of the stream its server requests will travel on."""
        if not self.listen or self._listener is not None or not self.session_id:
            return
        opened: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._listener = asyncio.create_task(self._listen(opened))
        try:
            async with asyncio.timeout(self.timeout):
                await asyncio.shield(opened)  # `listening` says what became of it
        except TimeoutError:
            self.listening = f"no answer to the GET within {self.timeout:g} s"

    async def _listen(self, opened: asyncio.Future[str]) -> None:
        """Keep the standalone stream open: a graceful close is reconnected (with Last-Event-ID when the
        server gave ids) after its `retry`, at most MAX_LISTENER_RECONNECTS times; a refusal or an error
        ends it, recorded in `listening`."""
        parser = SseParser(self.limits.max_body_bytes)
        reconnects = 0
        try:
            while True:
                state = await self._listen_once(parser, opened)
                if state != "open":
                    self.listening = state
                    return
                reconnects += 1
                if reconnects > MAX_LISTENER_RECONNECTS:
                    self.listening = f"closed by the server {reconnects} times; not reconnected again"
                    return
                self.listening = "reconnecting"
                await asyncio.sleep((parser.retry_ms if parser.retry_ms is not None else DEFAULT_RETRY_MS) / 1000)
        finally:
            if not opened.done():
                opened.set_result("closed")

    async def _listen_once(self, parser: SseParser, opened: asyncio.Future[str]) -> str:
        """One GET stream, read to its end: "open" when it ended gracefully, else what happened."""
        headers = {"Accept": "text/event-stream", **self._common_headers("GET"), **self._session_headers()}
        if parser.last_event_id is not None:
            headers["Last-Event-ID"] = parser.last_event_id
        try:
            async with self._client.stream("GET", self.url, headers=headers) as response:
                meta = {**self._meta(response), "standalone": True}
                if response.status_code != 200 or meta["content_type"] != "text/event-stream":
                    await self._small_text(response)
                    state = f"refused (HTTP {response.status_code})"
                    self.listening = state
                    if not opened.done():
                        opened.set_result(state)
                    return state
                self.listening = "open"
                if not opened.done():
                    opened.set_result("open")
                progress = Progress(self.shown, 2**62)  # a session-long stream: each event is bounded instead
                async for item in self._standalone(response, meta, parser, progress):
                    self._latest_context().run(self.tap.emit, "server->client", item, **meta)
            return "open"
        except (httpx.HTTPError, TransportError) as exc:
            logging.getLogger(__name__).info("standalone GET stream of %s ended: %s", self.url, exc)
            state = f"failed: {type(exc).__name__}: {exc}"
            self.listening = state
            if not opened.done():
                opened.set_result(state)
            return state

    async def _standalone(self, response: httpx.Response, meta: dict[str, Any], parser: SseParser,
                          progress: Progress) -> AsyncIterator[Any]:
        """What the GET stream carries: server requests are answered (in the latest request's context)."""
        try:
            async for event in parser.events(self._chunks(response, progress, None)):
                if not event.has_data or not event.data.strip():
                    continue
                try:
                    item = self.limits.decode(event.data)
                except WireJsonError as exc:
                    self._latest_context().run(self.tap.emit, "server->client", event.data[:SMALL_BODY], **meta,
                                               error=exc.described("SSE data is not JSON"))
                    continue
                if isinstance(item, dict) and "method" in item and "id" in item:
                    context = self._latest_context()
                    context.run(self.tap.emit, "server->client", item, **meta, server_initiated=True)
                    refused = self._pool.submit(item, context.copy(), LISTENER)
                    if refused is not None:
                        await context.run(self._post_reply, refused)
                    continue
                yield item
        except SseTooLarge as exc:
            self._latest_context().run(self.tap.emit, "server->client", f"({exc})", **meta,
                                       error="SSE event too large")

    def _latest_context(self) -> contextvars.Context:
        return next(reversed(self._contexts.values()), contextvars.copy_context())

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
        await self._pool.close()
        if self.session_id:
            with contextlib.suppress(httpx.HTTPError):
                await self._client.delete(self.url, headers={"Mcp-Session-Id": self.session_id}, timeout=2.0)
        await self._client.aclose()


class _Challenged(Exception):
    """A request refused with 401/403 while an auth flow can answer it (caught in `send`)."""

    def __init__(self, status: int, www_authenticate: str | None, sent: str | None,
                 dpop_nonce: str | None = None) -> None:
        super().__init__(status)
        self.status = status
        self.www_authenticate = www_authenticate
        self.sent = sent
        self.dpop_nonce = dpop_nonce
