"""One socket write per response: the status line, the headers and the body leave together.

uvicorn's cycle writes a response's head when the app sends `http.response.start` and its body when
the app sends `http.response.body`: two `write` calls, so two system calls and (TCP_NODELAY being on)
two segments for every small JSON answer. On loopback each write also pays the receiver's network
stack, so the second write was a tenth of `serve`'s CPU per request. This cycle holds the head of
an answer with a Content-Length back until its body and hands both to the transport at once; a
stream's head (no length: SSE, a proxied body) is written at once, since its first bytes may be long
in coming. Everything else (header
checks, Content-Length accounting, keep-alive, `connection: close`) stays uvicorn's own: the held
messages go through uvicorn's `send` unchanged, with a transport that collects instead of writing.

The usual answer (a whole body with its Content-Length, nothing unusual in its headers) is written
by `_whole`, which formats exactly what uvicorn's `send` would, with uvicorn's own header checks and
status lines, without formatting it through two sends; anything else takes uvicorn's path.

The connection protocol (`http_connections`) turns each cycle uvicorn creates into this one.
"""

from collections.abc import Iterable
from typing import Any

from uvicorn.protocols.http.httptools_impl import HEADER_RE, HEADER_VALUE_RE, STATUS_LINE, RequestResponseCycle

#: Headers whose meaning uvicorn's `send` acts on beyond writing them: those answers take its path.
_UVICORN_ACTS_ON = frozenset({b"transfer-encoding", b"connection"})
#: Header names that passed uvicorn's name check, lowered: the endpoint sends the same few on every
#: answer, so each is checked once (bounded: names past the bound are checked every time).
_GOOD_NAMES: dict[bytes, bytes] = {}
_MOST_GOOD_NAMES = 256


class _Collect:
    """Stands in for the transport while uvicorn formats one response: keeps what it writes and
    whether it asked to close, so both happen, in that order, on the real transport."""

    __slots__ = ("closing", "parts", "real")

    def __init__(self, real: Any) -> None:
        self.real = real
        self.parts: list[bytes] = []
        self.closing = False

    def write(self, data: bytes) -> None:
        self.parts.append(data)

    def close(self) -> None:
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing or bool(self.real.is_closing())

    def flush(self) -> None:
        if self.parts:
            self.real.write(self.parts[0] if len(self.parts) == 1 else b"".join(self.parts))
        if self.closing:
            self.real.close()


class OneWriteCycle(RequestResponseCycle):
    """uvicorn's request/response cycle, writing the head together with the first body message."""

    _held: Any = None

    async def send(self, message: Any) -> None:
        if not self.response_started and message.get("type") == "http.response.start":
            if any(name.lower() == b"content-length" for name, _ in message.get("headers", ())):
                # a whole body follows: written with it. A second start while one is held is uvicorn's
                # 500 for an app that failed before its body: it replaces the head.
                self._held = message
                return
            # a stream (SSE, or a proxied body of unknown length) may wait long for its first bytes:
            # its head goes now, so the client sees the response start as it did
            self._held = None
        held = self._held
        if held is None:
            await super().send(message)
            return
        self._held = None
        if message.get("type") == "http.response.body" and not message.get("more_body", False) \
                and self._whole(held, message.get("body", b"")):
            return
        real = self.transport
        collect = _Collect(real)
        self.transport = collect  # type: ignore[assignment]
        try:
            await super().send(held)
            await super().send(message)
        finally:
            self.transport = real
        collect.flush()

    def _whole(self, start: Any, body: bytes) -> bool:
        """Write a complete answer in one go as uvicorn would; False (nothing done) when it is not the
        usual case, so uvicorn's `send` handles it, its errors and its logging included."""
        if self.disconnected or self.flow.write_paused or self.access_log or self.scope["method"] == "HEAD":
            return False
        data = whole_answer(start["status"], self.default_headers, start.get("headers", ()), body, self.keep_alive)
        if data is None:
            return False
        self.response_started = True
        self.waiting_for_100_continue = False
        self.transport.write(data)
        self.response_complete = True
        self.message_event.set()
        if not self.keep_alive:
            self.transport.close()
        self.on_response()
        return True


def whole_answer(status: int, own: Iterable[tuple[bytes, bytes]], given: Iterable[tuple[bytes, bytes]],
                 body: bytes, keep_alive: bool) -> bytes | None:
    """The bytes uvicorn's `send` writes for a complete answer: its status line, the server's `own`
    headers, the app's `given` ones (checked as uvicorn checks them, names lowered), `connection: close`
    when the connection ends, and the body. None when it is not the usual case (a status without a body
    or unknown to uvicorn, a header uvicorn refuses or acts on, a Content-Length missing, repeated or
    wrong): uvicorn's own path then answers, with its errors. `OneWriteCycle` and the direct lane
    (`direct_lane.DirectResponder`) both write what this returns."""
    if status in (204, 304) or status not in STATUS_LINE:
        return None
    content = [STATUS_LINE[status]]
    for name, value in own:
        content += (name, b": ", value, b"\r\n")
    length = -1
    for name, value in given:
        lowered = _GOOD_NAMES.get(name)
        if lowered is None:
            if HEADER_RE.search(name):
                return None  # uvicorn refuses it
            lowered = name.lower()
            if len(_GOOD_NAMES) < _MOST_GOOD_NAMES:
                _GOOD_NAMES[name] = lowered
        if lowered == b"content-length":
            if length >= 0 or not value.isdigit():  # digits only: nothing for the value check to find
                return None
            length = int(value)
            content += (lowered, b": ", value, b"\r\n")
            continue
        if HEADER_VALUE_RE.search(value):
            return None  # uvicorn refuses it
        if lowered in _UVICORN_ACTS_ON:
            return None
        content += (lowered, b": ", value, b"\r\n")
    if length != len(body):
        return None  # no length (chunked) or the wrong one (uvicorn's error)
    if not keep_alive:
        content.append(b"connection: close\r\n")
    content += (b"\r\n", body)
    return b"".join(content)
