"""The replay guard's hot command (`SET key token NX EX ttl`) on one pipelined Redis connection.

Every completed single-use flow claims its nonce, so a cluster node pays that command once per
flow. Through redis-py's asyncio client it cost about 64 us of CPU (pool checkout and its lock,
connection health bookkeeping, command packing, a parser per reply); here the command is RESP bytes
built in one join, the commands of one event-loop turn go out in one write, and replies are parsed by
hiredis's C reader and handed to waiting futures in order. Everything else the store does (the
compare-and-delete script, ping, close) stays on redis-py.

Bounded like the rest of the store: connecting waits CONNECT_TIMEOUT, a reply SOCKET_TIMEOUT; a
connection that fails or times out is dropped (later replies could not be matched to their
commands) and the next command connects afresh, so the guard recovers by itself once Redis answers.
`redis://` URLs only (password, username and database from the URL); TLS and unix sockets use
redis-py's path.
"""

import asyncio
from collections import deque
from typing import Any
from urllib.parse import unquote, urlsplit

import hiredis


class PipelineError(ConnectionError):
    """Redis did not answer (connect, timeout, lost connection) or answered with an error."""


def supports(url: str) -> bool:
    return urlsplit(url).scheme == "redis"


def encode(*parts: bytes) -> bytes:
    """One RESP command (an array of bulk strings)."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out.append(b"$%d\r\n%s\r\n" % (len(part), part))
    return b"".join(out)


class _Connection(asyncio.Protocol):
    """One connection's commands in flight, in order, each with the moment its reply is due; one
    timer per connection checks the oldest (a timer per command cost more than the command)."""

    def __init__(self, reply_timeout: float = 1.0) -> None:
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader()
        self.waiting: deque[tuple[asyncio.Future[Any], float]] = deque()
        self.outgoing: list[bytes] = []
        self.lost = False
        self.reply_timeout = reply_timeout
        self._loop = asyncio.get_running_loop()
        self._sweeper: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while True:
            try:
                reply = self.reader.gets()
            except hiredis.ProtocolError as exc:
                self.fail(PipelineError(f"Redis sent an invalid reply: {exc}"))
                return
            if reply is False:
                return
            if not self.waiting:
                self.fail(PipelineError("Redis sent a reply nobody asked for"))
                return
            future = self.waiting.popleft()[0]
            if not future.done():
                if isinstance(reply, hiredis.ReplyError):
                    future.set_exception(PipelineError(f"Redis refused: {reply}"))
                else:
                    future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(PipelineError(f"the Redis connection was lost{f': {exc}' if exc else ''}"))

    def send(self, command: bytes) -> "asyncio.Future[Any]":
        loop = self._loop
        future: asyncio.Future[Any] = loop.create_future()
        self.waiting.append((future, loop.time() + self.reply_timeout))
        if not self.outgoing:
            loop.call_soon(self.flush)
        self.outgoing.append(command)
        if self._sweeper is None:
            self._sweeper = loop.call_later(self._tick(), self._sweep)
        return future

    def flush(self) -> None:
        if self.outgoing and self.transport is not None and not self.lost:
            self.transport.write(b"".join(self.outgoing))
        self.outgoing.clear()

    def _tick(self) -> float:
        return min(1.0, self.reply_timeout / 4)

    def _sweep(self) -> None:
        """The oldest command past its moment: Redis did not answer in time, so the connection is
        dropped (its later replies could not be matched) and every waiting command fails."""
        self._sweeper = None
        if self.waiting and self.waiting[0][1] <= self._loop.time():
            self.fail(PipelineError(f"Redis did not answer within {self.reply_timeout:g} s"))
        elif self.waiting and not self.lost:
            self._sweeper = self._loop.call_later(self._tick(), self._sweep)

    def fail(self, error: Exception) -> None:
        self.lost = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        while self.waiting:
            future = self.waiting.popleft()[0]
            if not future.done():
                future.set_exception(error)
        if self.transport is not None:
            self.transport.close()


class PipelinedRedis:
    """Commands on one lazily (re)connected connection; `call` returns the decoded reply or raises PipelineError."""

    def __init__(self, url: str, connect_timeout: float, reply_timeout: float) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 6379
        self.connect_timeout, self.reply_timeout = connect_timeout, reply_timeout
        self._hello: list[bytes] = []
        if parts.password is not None:
            user = [unquote(parts.username).encode()] if parts.username else []
            self._hello.append(encode(b"AUTH", *user, unquote(parts.password).encode()))
        db = parts.path.strip("/")
        if db and db != "0":
            self._hello.append(encode(b"SELECT", db.encode()))
        self._connection: _Connection | None = None
        self._connecting: asyncio.Future[_Connection] | None = None

    async def call(self, *parts: bytes) -> Any:
        connection = self._connection
        if connection is None or connection.lost:
            connection = await self._connected()
        return await connection.send(encode(*parts))

    async def _connected(self) -> _Connection:
        """A new connection, when `call` found none alive."""
        if self._connecting is None:  # one connect for every command waiting on it
            self._connecting = asyncio.ensure_future(self._connect())
        try:
            return await asyncio.shield(self._connecting)
        finally:
            if self._connecting is not None and self._connecting.done():
                self._connecting = None

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        try:
            _, connection = await asyncio.wait_for(loop.create_connection(
                lambda: _Connection(self.reply_timeout), self.host, self.port), self.connect_timeout)
        except TimeoutError:
            raise PipelineError(f"no connection to Redis within {self.connect_timeout:g} s") from None
        except OSError as exc:
            raise PipelineError(f"cannot connect to Redis: {exc.strerror or exc}") from None
        for hello in self._hello:  # AUTH and SELECT before anything else is sent on it
            try:
                await connection.send(hello)
            except PipelineError as exc:
                connection.fail(PipelineError(str(exc)))
                raise PipelineError(f"Redis refused the connection's setup: {exc}") from None
        self._connection = connection
        return connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.fail(PipelineError("closed"))
            self._connection = None
