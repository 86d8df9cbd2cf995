"""The HTTP connection as accepted: TCP_NODELAY, a deadline for request headers, a bounded number.

uvicorn closes idle keep-alive connections and answers 503 past `limit_concurrency`, but it never
times out a connection that opens and sends nothing, or sends its headers a byte at a time
(slowloris): each holds a file descriptor forever, and once the process runs out of them no real
client gets in. So the protocol class adds, per connection, a header deadline (from the connection,
or from the first byte after a response, to the end of the headers; one sweeping timer per server
enforces them all, to a quarter of the deadline, instead of a timer per request), and per server a bound on
connections: past it, the oldest connection still waiting for its headers is closed to make room,
so slow connections cannot crowd out clients that send a request at once (those get uvicorn's 503
when every connection is busy serving). The bound also stays under the process's file limit.

The keep-alive timeout is uvicorn's, kept with one timer per idle period instead of one per response:
uvicorn arms a fresh `call_later` when each response completes and cancels it when the next request
arrives, about 1.8 us of uvloop timer work a request (`tools/bench.py` at 32 connections: 6-10% of
`serve`'s CPU per flow). Here a response only notes when the connection went idle; the one timer a
connection holds checks that time when it fires and closes the connection once it has been idle for
the whole timeout, or waits for the rest of it (a busy connection re-arms nothing).

TCP_NODELAY is set explicitly on every connection: uvicorn's h11 protocol writes the status line,
the body and the end of a response separately, and with Nagle on, a small second write waits for
the peer's delayed ACK (tens of milliseconds on loopback). `tools/bench.py` measures both ways.
"""

import asyncio
import resource
import socket
from collections import OrderedDict
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from . import direct_lane
from .header_limits import MAX_HEADER_BYTES, MAX_HEADER_FIELDS, HeadCounter, refusal_431, whole_head

#: File descriptors kept out of the connection budget (the listening socket, logs, files the server opens).
RESERVED_FDS = 64


def connection_budget(wanted: int) -> int:
    """`wanted`, lowered to what the process's open-file limit leaves for connections."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return wanted
    return max(1, min(wanted, soft - RESERVED_FDS))


def _parser_protocol() -> type[Any]:
    """uvicorn's httptools protocol when httptools is installed (its C parser), else the pure-Python h11."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - httptools is a dependency; h11 is uvicorn's own fallback
        return H11Protocol
    return HttpToolsProtocol


def protocol_class(nodelay: bool, header_timeout: float, max_connections: int,
                   max_header_bytes: int = MAX_HEADER_BYTES, max_header_fields: int = MAX_HEADER_FIELDS) -> type[Any]:
    """A protocol class for one server (its waiting-connections table is shared by that server only);
    each request's header section is bounded by `max_header_bytes` and `max_header_fields` (431).

    Pair it with uvicorn's `limit_concurrency=max_connections + 1`: uvicorn counts the connection
    asking too, so that is what lets `max_connections` connections be served at once."""
    base = _parser_protocol()
    if base is H11Protocol:  # pragma: no cover - the hooks below are httptools'; h11 gets TCP_NODELAY only
        header_timeout = 0.0
    else:
        from .one_write import OneWriteCycle, RequestResponseCycle
    #: Connections whose request headers are not complete yet -> their deadline, oldest first.
    waiting: OrderedDict[Any, float] = OrderedDict()
    sweeper: list[asyncio.TimerHandle | None] = [None]
    tick = min(1.0, header_timeout / 4)

    def sweep(loop: asyncio.AbstractEventLoop) -> None:
        sweeper[0] = None
        now = loop.time()
        while waiting:
            connection, deadline = next(iter(waiting.items()))
            if deadline > now:
                break
            connection._close_waiting()
        if waiting:
            sweeper[0] = loop.call_later(tick, sweep, loop)

    # `_IdleTimer` (below) replaces the httptools protocol's per-response keep-alive timer; h11's keeps its own
    bases = (base,) if base is H11Protocol else (_IdleTimer, base)

    class Protocol(*bases):  # type: ignore[misc]
        def connection_made(self, transport: Any) -> None:
            sock = transport.get_extra_info("socket")
            if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, int(nodelay))
            # an endpoint that takes whole requests without ASGI says how big one may be (direct_lane)
            self.direct_body_limit = getattr(self.app, "direct_body_limit", 0) if base is not H11Protocol else 0
            super().connection_made(transport)
            self._start_header_deadline()
            self._make_room()

        _head: HeadCounter | None = None
        direct_body_limit = 0

        def data_received(self, data: bytes) -> None:
            self._idle_since = None  # a request is coming: the keep-alive timeout no longer runs
            if self.transport.is_closing():  # refused (431) or closing: nothing more is parsed
                return
            cycle = self.cycle
            refused = None
            if self._head is None and (cycle is None or (cycle.response_complete and not cycle.more_body)):
                # a new request: the usual one brings its whole header section in this read, which the
                # parser then completes before this call returns, so it needs no deadline and no counter
                whole, refused = whole_head(data, max_header_bytes, max_header_fields)
                if not whole:
                    self._start_header_deadline()
                    self._head = HeadCounter(max_header_bytes, max_header_fields)
                    refused = self._head.feed(data)
            else:
                if cycle is None or cycle.response_complete:  # between requests: headers coming
                    self._start_header_deadline()
                if self._head is not None:
                    refused = self._head.feed(data)
            if refused is not None:  # answered before the parser holds any more of it
                self._head = None
                self._end_header_deadline()
                self.transport.write(refusal_431(refused))
                self.transport.close()
                return
            super().data_received(data)
            if self.direct_body_limit:
                direct_lane.after_read(self)

        def on_headers_complete(self) -> None:
            self._head = None
            self._end_header_deadline()
            if self.direct_body_limit and direct_lane.begin(self):
                return
            super().on_headers_complete()
            # the cycle uvicorn just made (its task has not run yet) writes each response at once
            if base is not H11Protocol and type(self.cycle) is RequestResponseCycle:
                self.cycle.__class__ = OneWriteCycle

        def on_body(self, body: bytes) -> None:
            if not direct_lane.body(self, body):
                super().on_body(body)

        def on_message_complete(self) -> None:
            if not direct_lane.complete(self):
                super().on_message_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._end_header_deadline()
            super().connection_lost(exc)

        def _make_room(self) -> None:
            excess = len(self.connections) - max_connections
            while excess > 0 and waiting:
                oldest = next(iter(waiting))
                if oldest is self:
                    break
                oldest._close_waiting()
                excess -= 1

        def _start_header_deadline(self) -> None:
            if header_timeout > 0 and self not in waiting:
                waiting[self] = self.loop.time() + header_timeout
                if sweeper[0] is None:
                    sweeper[0] = self.loop.call_later(tick, sweep, self.loop)

        def _end_header_deadline(self) -> None:
            waiting.pop(self, None)

        def _close_waiting(self) -> None:
            """Headers too slow, or room needed: this connection has sent no complete request to answer."""
            self._end_header_deadline()
            self.connections.discard(self)  # counted out now, not when the loop reports the close
            if not self.transport.is_closing():
                self.transport.close()

    return Protocol


class _IdleTimer:
    """uvicorn's keep-alive timeout for its httptools protocol (mixed in before it), timed from when the
    connection went idle by one timer per idle period, not one per response (the module says why)."""

    _idle_since: float | None = None
    _idle_timer: asyncio.TimerHandle | None = None

    def on_response_complete(self: Any) -> None:
        """uvicorn's (0.45 to 0.55, unchanged): count the request, resume reading, start a pipelined request;
        with none waiting, the connection is idle from now, instead of arming a timer for it."""
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self._unset_keepalive_if_required()
        self.flow.resume_reading()
        if self.pipeline:
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
            return
        self._idle_since = self.loop.time()
        if self._idle_timer is None:
            self._idle_timer = self.loop.call_later(self.timeout_keep_alive, self._idle_check)

    def _idle_check(self: Any) -> None:
        """The timer fired: close a connection idle for the whole timeout (uvicorn's handler), wait for
        the rest of it when the connection went idle later, and arm nothing while a request runs (its
        response starts the next idle period)."""
        self._idle_timer = None
        if self._idle_since is None:
            return
        left = self._idle_since + self.timeout_keep_alive - self.loop.time()
        if left > 0:
            self._idle_timer = self.loop.call_later(left, self._idle_check)
        else:
            self.timeout_keep_alive_handler()

    def connection_lost(self: Any, exc: Exception | None) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        super().connection_lost(exc)  # type: ignore[misc]
