"""The direct lane: a request whose headers and whole body arrive in one read goes to the endpoint
without ASGI, and its answer leaves in one write.

Nearly every MCP request is a small POST whose headers and body arrive together. For those, uvicorn's
request/response cycle (an ASGI scope, a cycle object with its event, a task running the ASGI
wrapper, `receive` and `send` message dicts, the body's deadline timer) was a third of `serve`'s CPU
per request (`tools/bench.py` measures it against a bare uvicorn app). So the connection protocol
(`http_connections`) hands such a request straight to the endpoint's `request(scope, out, body)`, with
a `DirectResponder` that formats a complete JSON answer itself and writes it at once.

Anything unusual takes uvicorn's path, unchanged: another method than POST, no Content-Length or one
past the endpoint's limit, `Expect: 100-continue`, HTTP/1.0, an upgrade, a pipelined request, the
concurrency limit reached, or a body still to come when the read ends (it then continues as an ASGI
request from what has arrived, under the body deadline). An answer that streams (SSE), has no body
(204, 304) or names a header uvicorn acts on is handed to a uvicorn cycle made for it at that moment,
which also tells the endpoint when the client goes away.
"""

import asyncio
import logging
from typing import Any
from urllib.parse import unquote

import httptools

from .one_write import OneWriteCycle, whole_answer

log = logging.getLogger("uvicorn.error")


class _NoEvent:
    """uvicorn's connection sets its cycle's `message_event` when the client goes; a direct request
    has nobody waiting on it (its body is whole), so the call does nothing."""

    __slots__ = ()

    def set(self) -> None:
        pass


_NO_EVENT = _NoEvent()


class DirectCycle:
    """What the connection protocol holds as its `cycle` while a direct request is read and answered:
    the few fields uvicorn's connection code reads and writes on a cycle."""

    __slots__ = ("body", "disconnected", "keep_alive", "more_body", "response_complete")
    message_event = _NO_EVENT

    def __init__(self, keep_alive: bool) -> None:
        self.body = bytearray()
        self.more_body = True
        self.response_complete = False
        self.disconnected = False
        self.keep_alive = keep_alive


class DirectResponder:
    """The endpoint's `Responder` for a direct request: a whole answer formatted and written here, as
    uvicorn would write it (its status lines, default headers and header checks); a stream or an
    unusual answer through a uvicorn cycle made for it."""

    __slots__ = ("_cycle", "_protocol", "_real", "_scope", "task")

    def __init__(self, protocol: Any, cycle: DirectCycle, scope: dict[str, Any]) -> None:
        self._protocol = protocol
        self._cycle = cycle
        self._scope = scope
        self._real: OneWriteCycle | None = None
        #: The task serving the request (set by `complete` as it starts it): what a stream's end cancels.
        self.task: asyncio.Task[Any] | None = None

    @property
    def started(self) -> bool:
        real = self._real
        return self._cycle.response_complete if real is None else real.response_started

    async def whole(self, status: int, body: bytes, content_type: bytes = b"application/json",
                    headers: list[tuple[bytes, bytes]] | None = None) -> None:
        head = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()), *(headers or ())]
        cycle = self._cycle
        if self._real is None:
            if cycle.disconnected or cycle.response_complete:
                return  # as uvicorn: an answer to a client that has gone is dropped
            protocol = self._protocol
            if protocol.flow.write_paused:
                await protocol.flow.drain()
            data = whole_answer(status, protocol.server_state.default_headers, head, body, cycle.keep_alive)
            if data is not None:
                protocol.transport.write(data)
                cycle.response_complete = True
                protocol.on_response_complete()
                if not cycle.keep_alive:
                    protocol.transport.close()
                return
        await self.start(status, head)  # not the usual answer: uvicorn's cycle writes it, or refuses it
        await self.chunk(body, False)

    async def start(self, status: int, headers: list[tuple[bytes, bytes]]) -> None:
        await self._uvicorn().send({"type": "http.response.start", "status": status, "headers": headers})

    async def chunk(self, body: bytes, more: bool) -> None:
        await self._uvicorn().send({"type": "http.response.body", "body": body, "more_body": more})

    async def receive(self) -> dict[str, Any]:
        """ASGI's receive: the body was whole, so what is left to hear is the client going away."""
        message: dict[str, Any] = await self._uvicorn().receive()  # type: ignore[assignment]  # ASGI's TypedDicts
        return message

    def _uvicorn(self) -> OneWriteCycle:
        """A uvicorn cycle for the rest of this request, made at the first need, its body already read;
        it becomes the connection's cycle, so it hears of a disconnect and ends the response as uvicorn does."""
        if self._real is None:
            protocol, cycle = self._protocol, self._cycle
            real = uvicorn_cycle(protocol, self._scope, cycle.keep_alive)
            real.more_body = False
            real.disconnected = cycle.disconnected
            real.response_complete = cycle.response_complete
            if protocol.cycle is cycle:
                protocol.cycle = real
            self._real = real
        return self._real


def uvicorn_cycle(protocol: Any, scope: Any, keep_alive: bool) -> OneWriteCycle:
    """The cycle uvicorn's connection would have made for this request (written in one go, as
    `http_connections` makes every cycle)."""
    return OneWriteCycle(
        scope=scope, transport=protocol.transport, flow=protocol.flow, logger=protocol.logger,
        access_logger=protocol.access_logger, access_log=protocol.access_log,
        default_headers=protocol.server_state.default_headers, message_event=asyncio.Event(),
        expect_100_continue=False, keep_alive=keep_alive, on_response=protocol.on_response_complete)


async def serve_direct(protocol: Any, scope: dict[str, Any], out: DirectResponder, body: bytes) -> None:
    """Run the endpoint on one direct request, failing as uvicorn's ASGI wrapper does: a 500 when
    nothing was answered, the connection closed when an answer was under way."""
    try:
        await protocol.app.request(scope, out, body)
    except BaseException as exc:
        if not isinstance(exc, Exception):
            raise
        log.error("Exception in ASGI application\n", exc_info=exc)
        if not out.started:
            await out.whole(500, b"Internal Server Error", b"text/plain; charset=utf-8")
        else:
            protocol.transport.close()
    else:
        if not out.started:
            log.error("ASGI callable returned without starting response.")
            await out.whole(500, b"Internal Server Error", b"text/plain; charset=utf-8")


def begin(protocol: Any) -> bool:
    """At the end of a request's headers: take it on the direct lane (True) when it is the usual
    small POST, filling in the scope as uvicorn would; False leaves it to uvicorn."""
    limit = protocol.direct_body_limit
    if not limit or protocol.expect_100_continue:
        return False
    parser = protocol.parser
    if parser.get_method() != b"POST" or parser.get_http_version() != "1.1" or parser.should_upgrade():
        return False
    current = protocol.cycle
    if current is not None and not current.response_complete:
        return False  # pipelined: uvicorn queues it
    most = protocol.limit_concurrency
    if most is not None and (len(protocol.connections) >= most or len(protocol.tasks) >= most):
        return False  # uvicorn's 503
    declared = None
    for name, value in protocol.headers:
        if name == b"content-length":
            if declared is not None:
                return False
            declared = value
        elif name == b"transfer-encoding":
            return False
    if declared is None or not declared.isdigit() or int(declared) > limit:
        return False
    target = _targets.get((protocol.root_path, protocol.url))
    if target is None:
        target = _target(protocol.root_path, protocol.url)
    scope = protocol.scope
    scope["method"] = "POST"
    scope["path"], scope["raw_path"], scope["query_string"] = target
    protocol.cycle = DirectCycle(parser.should_keep_alive())
    return True


#: (root path, request target) -> the scope's path, raw_path and query_string: a client posts to the same
#: URL every time, so each is parsed once (bounded: targets past the bound are parsed every time).
_targets: dict[tuple[str, bytes], tuple[str, bytes, bytes]] = {}
_MOST_TARGETS = 256


def _target(root_path: str, url: bytes) -> tuple[str, bytes, bytes]:
    """The request target's path (percent-decoded, as uvicorn gives it), raw path and query."""
    parsed = httptools.parse_url(url)
    path = parsed.path.decode("ascii")
    if "%" in path:
        path = unquote(path)
    target = (root_path + path, root_path.encode("ascii") + parsed.path, parsed.query or b"")
    if len(_targets) < _MOST_TARGETS:
        _targets[(root_path, url)] = target
    return target


def body(protocol: Any, data: bytes) -> bool:
    """Part of a direct request's body (True), or not a direct request (False: uvicorn's)."""
    cycle = protocol.cycle
    if type(cycle) is not DirectCycle:
        return False
    if not cycle.response_complete:
        cycle.body += data
    return True


def complete(protocol: Any) -> bool:
    """A direct request's body is whole: the endpoint runs in a task uvicorn's shutdown waits for."""
    cycle = protocol.cycle
    if type(cycle) is not DirectCycle:
        return False
    if cycle.more_body and not cycle.response_complete:
        cycle.more_body = False
        scope = protocol.scope
        out = DirectResponder(protocol, cycle, scope)
        out.task = task = protocol.loop.create_task(serve_direct(protocol, scope, out, bytes(cycle.body)))
        task.add_done_callback(protocol.tasks.discard)
        protocol.tasks.add(task)
    return True


def after_read(protocol: Any) -> None:
    """A read ended with a direct request's body still to come: it continues as uvicorn's ASGI
    request from what has arrived, the rest (and its deadline) read through `receive`."""
    cycle = protocol.cycle
    if type(cycle) is not DirectCycle or not cycle.more_body or cycle.response_complete:
        return
    real = uvicorn_cycle(protocol, protocol.scope, cycle.keep_alive)
    real.body = cycle.body
    real.disconnected = cycle.disconnected
    protocol.cycle = real
    protocol._start_asgi_task(real, protocol.app)
