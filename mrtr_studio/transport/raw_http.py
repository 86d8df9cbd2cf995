"""A lean HTTP/1.1 keep-alive client for load generation: one connection per worker, requests written
as bytes, responses read by Content-Length or chunked framing without header objects.

httpx costs about 1.4 ms of CPU per request on the project's machine (tools/bench_client.py), more
than the servers being measured, so a load generator built on it measures itself (tools/bench_load.py
shows the ratio). Everything read is bounded: the status line and each header line (the stream
reader's limit), the header count, the body (`max_body_bytes`). Plain http only; https is httpx's.
"""

import asyncio
import contextlib
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_HEADER_LINES = 100
_LINE_LIMIT = 64 * 1024


class RawHttpError(ConnectionError):
    """The peer sent something that is not an HTTP/1.1 response within the bounds."""


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes


class RawConnection:
    def __init__(self, url: str, max_body_bytes: int) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http":
            raise ValueError(f"the raw HTTP client speaks http:// only, not {url!r}")
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.max_body_bytes = max_body_bytes
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, body: bytes, headers: dict[str, str]) -> RawResponse:
        if self.writer is None or self.writer.is_closing():
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port, limit=_LINE_LIMIT)
        assert self.reader is not None
        head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        self.writer.write(f"POST {self.target} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{head}"
                          f"Content-Length: {len(body)}\r\n\r\n".encode("latin-1") + body)
        try:
            return await self._response(self.reader)
        except BaseException:
            await self.close()  # a half-read response leaves the connection unusable
            raise

    async def _response(self, reader: asyncio.StreamReader) -> RawResponse:
        status_line = await reader.readline()
        parts = status_line.split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise RawHttpError(f"not an HTTP response: {status_line[:80]!r}")
        headers: dict[str, str] = {}
        for _ in range(MAX_HEADER_LINES + 1):
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.partition(b":")
            headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
        else:
            raise RawHttpError(f"more than {MAX_HEADER_LINES} header lines")
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = await self._chunks(reader)
        else:
            length = headers.get("content-length", "")
            if not length.isdigit():
                raise RawHttpError("a response with neither Content-Length nor chunked framing")
            if int(length) > self.max_body_bytes:
                raise RawHttpError(f"a body of {length} bytes, over the limit of {self.max_body_bytes}")
            body = await reader.readexactly(int(length))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return RawResponse(int(parts[1]), headers, body)

    async def _chunks(self, reader: asyncio.StreamReader) -> bytes:
        out = bytearray()
        while True:
            size_text = (await reader.readline()).split(b";")[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise RawHttpError(f"a bad chunk size {size_text[:20]!r}") from None
            if size == 0:
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return bytes(out)
            if len(out) + size > self.max_body_bytes:
                raise RawHttpError(f"a body over the limit of {self.max_body_bytes} bytes")
            out += await reader.readexactly(size)
            await reader.readline()

    async def close(self) -> None:
        writer, self.writer, self.reader = self.writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
