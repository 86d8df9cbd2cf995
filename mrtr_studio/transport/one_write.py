"""One socket write per response: the status line, the headers and the body leave together.

uvicorn's cycle writes a response's head when the app sends `http.response.start` and its body when
the app sends `http.response.body`: two `write` calls, so two system calls and (TCP_NODELAY being on)
two segments for every small JSON answer. On loopback each write also pays the receiver's network
stack, so the second write was a tenth of `serve`'s CPU per request. This cycle holds the head back
until the first body message and hands both to the transport at once. Everything else (header
checks, Content-Length accounting, keep-alive, `connection: close`) stays uvicorn's own: the held
messages go through uvicorn's `send` unchanged, with a transport that collects instead of writing.

The connection protocol (`http_connections`) turns each cycle uvicorn creates into this one.
"""

from typing import Any

from uvicorn.protocols.http.httptools_impl import RequestResponseCycle


class _Collect:
    """Stands in for the transport while uvicorn formats one response: keeps what it writes and
    whether it asked to close, so both happen, in that order, on the real transport."""

    __slots__ = ("parts", "closing", "real")

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
            # written with the first body message (an SSE stream's first frame); a second start while
            # one is held is uvicorn's 500 for an app that failed before its body: it replaces the head
            self._held = message
            return
        held = self._held
        if held is None:
            await super().send(message)
            return
        self._held = None
        real = self.transport
        collect = _Collect(real)
        self.transport = collect  # type: ignore[assignment]
        try:
            await super().send(held)
            await super().send(message)
        finally:
            self.transport = real
        collect.flush()
