"""What every client transport offers, and the recording tap at the transport seam.

The tap sees each message exactly once, as it crosses the seam, with its direction and the
transport's metadata (HTTP status, headers, SSE or JSON); the trace store listens to it.
"""

import asyncio
import contextvars
import inspect
import logging
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from .. import defaults
from ..protocol import jsonrpc, wire_json
from ..protocol.errors import INTERNAL_ERROR, INVALID_REQUEST

Direction = Literal["client->server", "server->client"]
ServerRequestHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass
class WireEvent:
    direction: Direction
    message: Any
    meta: dict[str, Any] = field(default_factory=dict)


TapListener = Callable[[WireEvent], None]


#: Told when a tap listener raises (a recorder, a view): the message still crossed the wire, but a
#: trace may now lack it, so this must never pass unseen. The window shows it in Problems; the tests fail.
ListenerFailureHook = Callable[[BaseException, WireEvent], None]
#: Bound methods are held weakly (a window's controller that goes away takes its hook with it).
_failure_hooks: list[Callable[[], ListenerFailureHook | None]] = []


def on_listener_failure(hook: ListenerFailureHook) -> Callable[[], None]:
    """Call `hook` whenever any tap's listener raises; returns the function that stops it."""
    ref: Callable[[], ListenerFailureHook | None] = \
        weakref.WeakMethod(hook) if inspect.ismethod(hook) else (lambda: hook)
    _failure_hooks.append(ref)
    return lambda: _failure_hooks.remove(ref) if ref in _failure_hooks else None


class Tap:
    """Fan-out of wire events to listeners. A failing listener never breaks the transport (the message
    is on the wire either way); its failure is reported to every `on_listener_failure` hook."""

    def __init__(self) -> None:
        self.listeners: list[TapListener] = []

    def listen(self, listener: TapListener) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener) if listener in self.listeners else None

    def emit(self, direction: Direction, message: Any, **meta: Any) -> None:
        event = WireEvent(direction, message, meta)
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception as exc:
                logging.getLogger(__name__).exception("tap listener failed")
                for ref in list(_failure_hooks):
                    hook = ref()
                    if hook is None:
                        _failure_hooks.remove(ref)
                    else:
                        hook(exc, event)


class RequestAuth(Protocol):
    """What an HTTP client transport consults for authorization (the OAuth flow implements it).

    `authorization()` is the Authorization header for the next request (None: send none); `prepare()`
    runs before each request (a token past its expiry is refreshed there);
    `challenged(status, www_authenticate, sent)` runs on a 401 or 403 (`sent`: the Authorization the
    refused request carried; `dpop_nonce`: the refusal's `DPoP-Nonce` header) and returns True when the
    request should be sent again (a new token or nonce is held). It may raise to stop with a reason."""

    def authorization(self) -> str | None: ...

    def proof(self, method: str, url: str) -> str | None:
        """The `DPoP` header for one request when the token is sender-constrained (RFC 9449), else None."""

    async def prepare(self) -> None:
        """Before each request: renew what is known to be stale (an expired access token)."""

    async def challenged(self, status: int, www_authenticate: str | None, sent: str | None = None,
                         dpop_nonce: str | None = None) -> bool: ...


async def answer_server_request(handler: ServerRequestHandler | None, request: dict[str, Any]) -> dict[str, Any]:
    """The client's JSON-RPC response to a legacy server-initiated request: the handler's result, or an
    error saying why there is none (every transport answers, so the server's await never hangs)."""
    if handler is None:
        return jsonrpc.error(request["id"], INTERNAL_ERROR, "client has no handler for server requests")
    try:
        return jsonrpc.result(request["id"], await handler(request))
    except Exception as exc:
        return jsonrpc.error(request["id"], INTERNAL_ERROR, f"client failed to answer: {exc}")


@dataclass(frozen=True)
class TransportLimits:
    """How much a client transport accepts from a server, in bytes, nesting and seconds.

    A debugger is pointed at half-written and hostile servers: every read is bounded by these,
    and every request ends, with an answer or with an error naming the limit that was hit.
    """

    #: One JSON body, one SSE event or one stdio line.
    max_body_bytes: int = defaults.PEER_MAX_BODY_BYTES
    #: What an error over `max_body_bytes` names: the setting, or the flag that set it (`call --max-body`).
    body_limit_name: str = "max_body_bytes"
    #: Everything one request's streams may carry (an endless stream of small events ends here).
    max_stream_bytes: int = 64 * 1024 * 1024
    max_depth: int = wire_json.MAX_DEPTH
    #: Silence allowed between two messages of one response (paused while the client answers).
    idle_timeout: float = defaults.CLIENT_IDLE_TIMEOUT
    #: The whole request, however many events keep arriving.
    request_timeout: float = defaults.REQUEST_TIMEOUT
    #: Legacy server-initiated requests answered at once, and how many more may wait for a turn.
    max_concurrent_answers: int = 8
    max_waiting_answers: int = 64

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_stream_bytes", "max_depth", "max_concurrent_answers"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.idle_timeout <= 0 or self.request_timeout <= 0:
            raise ValueError("timeouts must be positive")
        if self.max_waiting_answers < 0:
            raise ValueError("max_waiting_answers must not be negative")

    def decode(self, data: bytes | str) -> Any:
        """The one decode of what a server sends (raises wire_json.WireJsonError)."""
        return wire_json.loads(data, max_bytes=self.max_body_bytes, max_depth=self.max_depth)


def valid_id(value: Any) -> bool:
    """A JSON-RPC id a response can carry for a request: a string or an integer (never a bool)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


PostReply = Callable[[dict[str, Any]], Awaitable[None]]
BUSY = "client busy: too many server requests are waiting for an answer"


class ServerRequestPool:
    """Answers legacy server-initiated requests, a bounded number at a time.

    At most `max_concurrent_answers` handlers run together and `max_waiting_answers` more wait for a
    turn; a request beyond that gets a JSON-RPC error at once (`submit` returns it for the caller to
    send inline, which also slows a flooding server to the pace of the client's writes). `busy`
    says whether any answer is still in flight: the idle deadline of a response pauses meanwhile.
    """

    def __init__(self, limits: TransportLimits, post: PostReply) -> None:
        self.limits = limits
        self._post = post
        self._handler: ServerRequestHandler | None = None
        self._turns = asyncio.Semaphore(limits.max_concurrent_answers)
        self._tasks: dict[asyncio.Task[None], object] = {}
        self.refused = 0
        #: Called with `busy` on every change between "answers in flight" and "none".
        self.watchers: set[Callable[[bool], None]] = set()
        #: Set whenever no answer is in flight (the idle deadline waits on it).
        self.idle = asyncio.Event()
        self.idle.set()

    def set_handler(self, handler: ServerRequestHandler | None) -> None:
        self._handler = handler

    @property
    def busy(self) -> bool:
        return bool(self._tasks)

    def submit(self, request: dict[str, Any], context: contextvars.Context | None = None,
               owner: object = None) -> dict[str, Any] | None:
        """Queue one server request; returns the error reply to send now when the pool is full (or the
        request's id is no id).

        `owner` tags the answer with what it belongs to (the client request whose stream carried it),
        so `cancel(owner)` can drop the answers that became moot when that request ended."""
        if not valid_id(request.get("id")):  # nobody is asked a question that cannot be answered
            return jsonrpc.error(None, INVALID_REQUEST, "Invalid request: id must be a string or an integer")
        if len(self._tasks) >= self.limits.max_concurrent_answers + self.limits.max_waiting_answers:
            self.refused += 1
            return jsonrpc.error(request["id"], INTERNAL_ERROR, BUSY)
        task = asyncio.create_task(self._answer(request), context=context)
        self._tasks[task] = owner
        if self.idle.is_set():
            self.idle.clear()
            self._notify(True)
        task.add_done_callback(self._done)
        return None

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.pop(task, None)
        if not self._tasks:
            self.idle.set()
            self._notify(False)

    def _notify(self, busy: bool) -> None:
        for watcher in list(self.watchers):
            watcher(busy)

    async def _answer(self, request: dict[str, Any]) -> None:
        async with self._turns:
            reply = await answer_server_request(self._handler, request)
        await self._post(reply)

    def cancel(self, owner: object) -> None:
        for task, tag in list(self._tasks.items()):
            if tag is owner:
                task.cancel()

    async def close(self) -> None:
        """Cancel the answers still in flight (their requests are over) and wait for them to stop."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class TransportError(Exception):
    """The transport could not deliver a message or got no usable answer (not a JSON-RPC error)."""


class ClientTransport(Protocol):
    tap: Tap

    async def send(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Send a request (returns its response) or a notification (returns None)."""
        ...

    def on_server_request(self, handler: ServerRequestHandler) -> None:
        """Who answers legacy server-initiated requests (elicitation, sampling, roots)."""
        ...

    async def close(self) -> None: ...
