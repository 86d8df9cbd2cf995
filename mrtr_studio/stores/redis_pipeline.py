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
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader()
        self.waiting: deque[asyncio.Future[Any]] = deque()
        self.outgoing: list[bytes] = []
        self.lost = False

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
            future = self.waiting.popleft()
            if not future.done():
                if isinstance(reply, hiredis.ReplyError):
                    future.set_exception(PipelineError(f"Redis refused: {reply}"))
                else:
                    future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(PipelineError(f"the Redis connection was lost{f': {exc}' if exc else ''}"))

    def send(self, command: bytes) -> "asyncio.Future[Any]":
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting.append(future)
        if not self.outgoing:
            asyncio.get_running_loop().call_soon(self.flush)
        self.outgoing.append(command)
        return future

    def flush(self) -> None:
        if self.outgoing and self.transport is not None and not self.lost:
            self.transport.write(b"".join(self.outgoing))
        self.outgoing.clear()

    def fail(self, error: Exception) -> None:
        self.lost = True
        while self.waiting:
            future = self.waiting.popleft()
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
        connection = await self._connected()
        future = connection.send(encode(*parts))
        try:
            return await asyncio.wait_for(future, self.reply_timeout)
        except TimeoutError:
            connection.fail(PipelineError(f"Redis did not answer within {self.reply_timeout:g} s"))
            raise PipelineError(f"Redis did not answer within {self.reply_timeout:g} s") from None

    async def _connected(self) -> _Connection:
        if self._connection is not None and not self._connection.lost:
            return self._connection
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
            _, connection = await asyncio.wait_for(
                loop.create_connection(_Connection, self.host, self.port), self.connect_timeout)
        except TimeoutError:
            raise PipelineError(f"no connection to Redis within {self.connect_timeout:g} s") from None
        except OSError as exc:
            raise PipelineError(f"cannot connect to Redis: {exc.strerror or exc}") from None
        for hello in self._hello:  # AUTH and SELECT before anything else is sent on it
            future = connection.send(hello)
            try:
                await asyncio.wait_for(future, self.reply_timeout)
            except (TimeoutError, PipelineError) as exc:
                connection.fail(PipelineError(str(exc)))
                raise PipelineError(f"Redis refused the connection's setup: {exc}") from None
        self._connection = connection
        return connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.fail(PipelineError("closed"))
            self._connection = None
