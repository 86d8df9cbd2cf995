"""One keep-alive HTTP/1.1 connection to the proxy's upstream, as an asyncio protocol.

The relay's upstream leg is one request at a time per connection, the request written in one
piece, the response parsed by httptools (the C parser uvicorn uses) as bytes arrive and streamed to
the relay chunk by chunk. Reading stops (pause_reading) while more than HIGH_WATER bytes wait for
the relay, so a fast upstream and a slow client never pile the body up here. A connection whose
response was not read to its end, or that the upstream asked to close, is never reused.
"""

import asyncio
from collections import deque
from typing import Any

import httptools

#: Bytes of response body buffered for the relay before the socket stops being read.
HIGH_WATER = 256 * 1024
#: Bytes of a response's status line and headers accepted (the proxy's header bound elsewhere too).
MAX_HEAD_BYTES = 64 * 1024


class UpstreamFailure(Exception):
    """The upstream could not be reached, broke the protocol or went silent; the name says which."""


class ConnectError(UpstreamFailure):
    pass


class ConnectTimeout(UpstreamFailure):
    pass


class ReadTimeout(UpstreamFailure):
    pass


class WriteTimeout(UpstreamFailure):
    pass


class PoolTimeout(UpstreamFailure):
    pass


class RemoteProtocolError(UpstreamFailure):
    pass


class ReadError(UpstreamFailure):
    pass


class UpstreamConnection(asyncio.Protocol):
    """The protocol of one upstream socket; `exchange()` starts one request, the reads follow."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self._parser: Any = None
        self._status = 0
        self._headers: list[tuple[bytes, bytes]] = []
        self._head_bytes = 0
        self._head_done = False
        self._complete = False
        self._no_body = False
        self._keep_alive = False
        #: No Content-Length and not chunked: the body ends when the upstream closes the connection.
        self._until_close = False
        self._chunks: deque[bytes] = deque()
        self._buffered = 0
        self._paused = False
        self._failure: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._writable: asyncio.Future[None] | None = None

    # --- asyncio.Protocol ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self._parser is None:  # bytes nobody asked for: the connection cannot be trusted any more
            self._fail(RemoteProtocolError("the upstream sent data without a request"))
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail(RemoteProtocolError("the upstream switched protocols"))
        except httptools.HttpParserError as exc:
            self._fail(RemoteProtocolError(f"invalid HTTP response: {exc}"))

    def eof_received(self) -> bool | None:
        self._ended_by_close(None)
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._ended_by_close(exc)
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)

    def pause_writing(self) -> None:
        self._writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)
        self._writable = None

    # --- httptools callbacks ------------------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_bytes += len(name) + len(value) + 4
        if self._head_bytes > MAX_HEAD_BYTES:
            raise httptools.HttpParserError(f"the response headers are over {MAX_HEAD_BYTES} bytes")
        self._headers.append((name, value))

    def on_headers_complete(self) -> None:
        self._status = self._parser.get_status_code()
        if 100 <= self._status < 200 and self._status != 101:  # an interim response: the real one follows
            self._headers, self._head_bytes = [], 0
            return
        self._head_done = True
        self._keep_alive = bool(self._parser.should_keep_alive())  # read here: the parser forgets it at the end
        names = {name.lower() for name, _ in self._headers}
        self._until_close = b"content-length" not in names and b"transfer-encoding" not in names and \
            self._status not in (204, 304) and not self._no_body
        self._wake()

    def on_body(self, body: bytes) -> None:
        self._chunks.append(body)
        self._buffered += len(body)
        if self._buffered > HIGH_WATER and not self._paused and self.transport is not None:
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def on_message_complete(self) -> None:
        if not self._head_done:  # the end of an interim response
            return
        self._complete = True
        self._wake()

    # --- the relay's side ---------------------------------------------------------------------

    async def exchange(self, data: bytes, method: str, write_timeout: float, read_timeout: float | None,
                       ) -> tuple[int, list[tuple[bytes, bytes]]]:
        """Write one request and wait for the response's status and headers."""
        assert self.transport is not None
        self._parser = httptools.HttpResponseParser(self)
        self._status, self._headers, self._head_bytes = 0, [], 0
        self._head_done = self._complete = False
        self._chunks.clear()
        self._buffered = 0
        self._failure = None
        self._no_body = method == "HEAD"
        self.transport.write(data)
        if self._writable is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._writable), write_timeout)
            except TimeoutError:
                raise WriteTimeout(f"the upstream did not take the request within {write_timeout:g} s") from None
        while not self._head_done:
            await self._wait(read_timeout)
        return self._status, self._headers

    async def read(self, read_timeout: float | None) -> bytes:
        """The next piece of the body; b"" at its end."""
        while True:
            if self._chunks:
                chunk = self._chunks.popleft()
                self._buffered -= len(chunk)
                if self._paused and self._buffered <= HIGH_WATER // 2 and self.transport is not None:
                    self._paused = False
                    self.transport.resume_reading()
                return chunk
            if self._complete or self._no_body:
                return b""
            await self._wait(read_timeout)

    @property
    def reusable(self) -> bool:
        """Whether another request may be sent: the response ended and the upstream keeps the connection."""
        return (not self.closed and self._complete and not self._chunks and self._failure is None
                and self._keep_alive and not self._until_close)

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    async def _wait(self, timeout: float | None) -> None:
        if self._failure is not None:
            raise self._failure
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await asyncio.wait_for(self._waiter, timeout)
        except TimeoutError:
            self.close()
            raise ReadTimeout(f"the upstream sent nothing for {timeout:g} s") from None
        finally:
            self._waiter = None
        if self._failure is not None and not (self._chunks or self._complete or self._head_done):
            raise self._failure

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _ended_by_close(self, exc: Exception | None) -> None:
        """EOF: the end of a body framed by the close, else the upstream broke off."""
        if self._head_done and self._until_close and exc is None and not self._complete:
            self._complete = True
            self.closed = True
            self._wake()
            return
        self._fail(ReadError(f"the upstream closed the connection{f': {exc}' if exc else ''}"))

    def _fail(self, failure: BaseException) -> None:
        if self._complete:  # the response had ended: a close after it is the upstream's right
            self.closed = True
            return
        if self._failure is None:
            self._failure = failure
        self.closed = True
        if self.transport is not None:
            self.transport.close()
        self._wake()
