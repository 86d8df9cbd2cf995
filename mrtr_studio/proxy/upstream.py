"""The proxy's upstream leg: a keep-alive pool of raw HTTP/1.1 connections (upstream_connection).

A relay needs none of what an HTTP client library adds per request: httpx's URL merging, auth and
redirect handling and cookie jar (which a proxy must not keep anyway: one client's Set-Cookie would
ride on another client's requests), default headers the client did not send, httpcore's anyio
streams and per-request liveness polls. Measured, they were about half of the relay's CPU. Here a
request is one write of bytes built once, the response is parsed in C (httptools), and the
connection goes back to the pool when its response was read to the end.
"""

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from .upstream_connection import (
    ConnectError,
    ConnectTimeout,
    PoolTimeout,
    ReadError,
    ReadTimeout,
    RemoteProtocolError,
    UpstreamConnection,
    UpstreamFailure,
    WriteTimeout,
)

__all__ = ["ConnectError", "ConnectTimeout", "PoolTimeout", "ReadError", "ReadTimeout", "RemoteProtocolError",
           "Upstream", "UpstreamError", "UpstreamResponse", "UpstreamTimeouts", "WriteTimeout"]

#: What an upstream that cannot be reached, or breaks off, raises (the relay answers 502).
UpstreamError = UpstreamFailure
#: Methods whose empty body is still announced as `Content-Length: 0`.
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
#: Seconds an idle pooled connection is kept.
KEEPALIVE_SECONDS = 5.0


@dataclass(frozen=True)
class UpstreamTimeouts:
    """Seconds to connect, to wait for each read (None: as long as it takes), to write, to get a connection."""

    connect: float
    read: float | None
    write: float
    pool: float


class UpstreamResponse:
    """Status, headers and the raw (undecoded) body of one upstream response."""

    def __init__(self, upstream: "Upstream", key: tuple[str, str, int], connection: UpstreamConnection,
                 status: int, headers: list[tuple[bytes, bytes]], read_timeout: float | None) -> None:
        self._upstream, self._key, self._connection = upstream, key, connection
        self._read_timeout = read_timeout
        self.status_code = status
        self.headers = httpx.Headers(headers)  # case-insensitive reads; `.raw` keeps them as sent
        self._released = False

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        while True:
            chunk = await self._connection.read(self._read_timeout)
            if not chunk:
                return
            yield chunk

    async def aclose(self) -> None:
        if not self._released:
            self._released = True
            self._upstream.release(self._key, self._connection)


class Upstream:
    """Keep-alive connections to the upstream origin(s), at most `max_connections` at once."""

    def __init__(self, max_connections: int) -> None:
        self._idle: dict[tuple[str, str, int], list[tuple[float, UpstreamConnection]]] = {}
        self._slots = asyncio.Semaphore(max_connections)
        self._ssl: ssl.SSLContext | None = None

    async def send(self, method: str, url: str, headers: list[tuple[bytes, bytes]], body: bytes,
                   timeouts: UpstreamTimeouts) -> UpstreamResponse:
        """Send one request; the response's body is streamed (read it, then `aclose()` it)."""
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]  # never the userinfo
        key = (parts.scheme, parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        head = [f"{method} {target} HTTP/1.1\r\n".encode("ascii"),
                b"host: " + (host.encode("ascii") if host.isascii() else host.encode("idna")) + b"\r\n"]
        head += [name + b": " + value + b"\r\n" for name, value in headers]
        if body or method in _BODY_METHODS:
            head.append(b"content-length: " + str(len(body)).encode() + b"\r\n")
        data = b"".join(head) + b"\r\n" + body
        try:
            await asyncio.wait_for(self._slots.acquire(), timeouts.pool)
        except TimeoutError:
            raise PoolTimeout(f"no upstream connection free within {timeouts.pool:g} s") from None
        connection = None
        try:
            connection = self._pooled(key) or await self._connect(key, timeouts.connect)
            status, response_headers = await connection.exchange(data, method, timeouts.write, timeouts.read)
        except BaseException:
            if connection is not None:
                connection.close()
            self._slots.release()
            raise
        return UpstreamResponse(self, key, connection, status, response_headers, timeouts.read)

    def release(self, key: tuple[str, str, int], connection: UpstreamConnection) -> None:
        """A response is done with: its connection back to the pool when it may be reused, else closed."""
        self._slots.release()
        if connection.reusable:
            self._idle.setdefault(key, []).append((asyncio.get_running_loop().time(), connection))
        else:
            connection.close()

    def _pooled(self, key: tuple[str, str, int]) -> UpstreamConnection | None:
        idle = self._idle.get(key)
        now = asyncio.get_running_loop().time()
        while idle:
            since, connection = idle.pop()
            if not connection.closed and now - since < KEEPALIVE_SECONDS:
                return connection
            connection.close()
        return None

    async def _connect(self, key: tuple[str, str, int], timeout: float) -> UpstreamConnection:
        scheme, host, port = key
        if scheme == "https" and self._ssl is None:
            self._ssl = httpx.create_ssl_context()
        loop = asyncio.get_running_loop()
        try:
            _, connection = await asyncio.wait_for(loop.create_connection(
                UpstreamConnection, host, port, ssl=self._ssl if scheme == "https" else None), timeout)
        except TimeoutError:
            raise ConnectTimeout(f"no connection to {host}:{port} within {timeout:g} s") from None
        except OSError as exc:
            raise ConnectError(exc.strerror or str(exc)) from None
        return connection

    async def aclose(self) -> None:
        for idle in self._idle.values():
            for _, connection in idle:
                with contextlib.suppress(Exception):
                    connection.close()
        self._idle.clear()
