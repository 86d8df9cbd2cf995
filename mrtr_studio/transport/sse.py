"""One HTTP reply that starts as plain JSON and turns into an SSE stream when the handler speaks early.

Streamable HTTP lets the server pick per request: a single `application/json` body, or a
`text/event-stream` that carries notifications (and, in the legacy era, server-initiated
requests) before the final response. Nothing is known until the handler runs, so the reply
commits to JSON only at the end, and to SSE at the first message that must go out before it.
"""

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import orjson

from ..protocol import jsonrpc

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]


def dumps(message: Any) -> bytes:
    """Single-line compact JSON: SSE frames and line-oriented readers need one message per line."""
    try:
        return orjson.dumps(message)  # compact, UTF-8, one line: what SSE `data:` lines need
    except TypeError:  # integers beyond 64 bits and other things only the stdlib encodes
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()


def sse_frame(message: Any) -> bytes:
    return b"event: message\ndata: " + dumps(message) + b"\n\n"


async def send_bytes(send: Send, status: int, body: bytes, content_type: bytes = b"application/json",
                     headers: list[tuple[bytes, bytes]] | None = None) -> None:
    head = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    if headers:
        head += headers
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


class AsgiResponder:
    """How the endpoint answers one request through ASGI's `send` and `receive` (any ASGI host).

    The endpoint speaks to a responder, never to `send` directly, so that the connection protocol can
    hand it a request without ASGI (`direct_lane.DirectResponder`, the same four operations)."""

    __slots__ = ("receive", "send")
    #: The task serving the request, when the host knows it (None: the reply asks asyncio).
    task: "asyncio.Task[Any] | None" = None

    def __init__(self, send: Send, receive: Receive) -> None:
        self.send = send
        self.receive = receive

    async def whole(self, status: int, body: bytes, content_type: bytes = b"application/json",
                    headers: list[tuple[bytes, bytes]] | None = None) -> None:
        """A complete answer with its Content-Length."""
        await send_bytes(self.send, status, body, content_type, headers)

    async def start(self, status: int, headers: list[tuple[bytes, bytes]]) -> None:
        """The head of a streamed answer (no Content-Length)."""
        await self.send({"type": "http.response.start", "status": status, "headers": headers})

    async def chunk(self, body: bytes, more: bool) -> None:
        """Part of a streamed answer; `more=False` ends it."""
        await self.send({"type": "http.response.body", "body": body, "more_body": more})


class Responder(Protocol):
    """What the endpoint answers through: ASGI's (`AsgiResponder`) or the connection's own
    (`direct_lane.DirectResponder`); `receive` is ASGI's, for a body still to come or a disconnect."""

    receive: Receive
    task: "asyncio.Task[Any] | None"

    async def whole(self, status: int, body: bytes, content_type: bytes = b"application/json",
                    headers: list[tuple[bytes, bytes]] | None = None) -> None: ...

    async def start(self, status: int, headers: list[tuple[bytes, bytes]]) -> None: ...

    async def chunk(self, body: bytes, more: bool) -> None: ...


class Reply:
    """The response to one POSTed request: JSON unless something must be streamed first."""

    def __init__(self, out: Responder, headers: list[tuple[bytes, bytes]] | None = None,
                 owner: "asyncio.Task[Any] | None" = None) -> None:
        self._out = out
        self._headers = headers or []
        #: Made by the first early message: an answer with none (the usual one) needs no lock.
        self._lock: asyncio.Lock | None = None
        self.streaming = False
        self.client_gone = False
        self._watcher: asyncio.Task[None] | None = None
        #: The task serving the request: what a closed stream cancels (the caller's, when it knows it).
        self._owner: asyncio.Task[Any] | None = owner or asyncio.current_task()

    async def event(self, message: dict[str, Any]) -> None:
        """Write one message before the final response, switching to SSE on the first one."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if not self.streaming:
                await self._start_stream()
            await self._out.chunk(sse_frame(message), True)

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        """A notification before the final response (the engine's `Notify`)."""
        await self.event(jsonrpc.notification(method, params))

    async def finish(self, message: dict[str, Any], status: int = 200,
                     extra: list[tuple[bytes, bytes]] | None = None) -> None:
        """The final response: the last SSE event (which ends the stream) or the whole JSON body (with
        `extra` headers, such as the Server-Timing only known now)."""
        headers = self._headers + extra if extra else self._headers
        if self._lock is None:  # nothing was streamed, nothing is being streamed
            await self._out.whole(status, dumps(message), headers=headers)
            return
        async with self._lock:
            self._stop_watching()
            if self.streaming:
                await self._out.chunk(sse_frame(message), False)
            else:
                await self._out.whole(status, dumps(message), headers=headers)

    async def _start_stream(self) -> None:
        self.streaming = True
        head = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"),
                (b"x-accel-buffering", b"no"), *self._headers]
        await self._out.start(200, head)
        # Closing the stream cancels the request (spec: Cancellation); only a stream can wait long.
        self._watcher = asyncio.create_task(self._watch_disconnect())

    async def _watch_disconnect(self) -> None:
        while True:
            message = await self._out.receive()
            if message["type"] == "http.disconnect":
                break
        self.client_gone = True
        if self._owner is not None:
            self._owner.cancel()

    def _stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()
            self._watcher = None
