"""The leanest honest HTTP/1.1 client for measuring servers: one keep-alive connection per worker.

Requests are built once as bytes; responses are read by Content-Length (or chunked framing) with no
header objects. On this two-core machine httpx/httpcore spend about 1.4 ms of CPU per request
(measured), more than either server being measured, so a benchmark with them measures the client.
"""

import asyncio
import contextlib
import json
from typing import Any
from urllib.parse import urlsplit


class Connection:
    def __init__(self, url: str, headers: list[tuple[bytes, bytes]]) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        head = f"POST {parts.path or '/'} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n".encode()
        self.head = head + b"".join(k + b": " + v + b"\r\n" for k, v in headers)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def post(self, body: dict[str, Any]) -> dict[str, Any]:
        if self.writer is None:
            await self.open()
        assert self.reader is not None and self.writer is not None
        data = json.dumps(body, separators=(",", ":")).encode()
        self.writer.write(self.head + b"Content-Length: " + str(len(data)).encode() + b"\r\n\r\n" + data)
        status = await self.reader.readline()
        if not status.startswith(b"HTTP/1.1 "):
            raise ConnectionError(f"bad status line {status!r}")
        length, chunked, event_stream = -1, False, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            lowered = name.strip().lower()
            if lowered == b"content-length":
                length = int(value)
            elif lowered == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
            elif lowered == b"content-type" and b"text/event-stream" in value:
                event_stream = True
        payload = await (self._chunks() if chunked else self.reader.readexactly(length))
        if event_stream:  # take the last `data:` line carrying a JSON-RPC response
            lines = [ln[5:].strip() for ln in payload.splitlines() if ln.startswith(b"data:")]
            payload = lines[-1]
        return dict(json.loads(payload))

    async def _chunks(self) -> bytes:
        assert self.reader is not None
        out = bytearray()
        while True:
            size = int((await self.reader.readline()).split(b";")[0], 16)
            if size == 0:
                await self.reader.readline()
                return bytes(out)
            out += await self.reader.readexactly(size)
            await self.reader.readline()

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(ConnectionError):
                await self.writer.wait_closed()
