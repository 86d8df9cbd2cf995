"""Small hostile (or merely different) MCP servers over raw HTTP/1.1 on 127.0.0.1, for client probes.

`with HostileServer(behaviour) as url:` runs the server in a thread of its own (so both async tests
and the synchronous `call` command can talk to it) and stops it on exit; every endless answer is
also capped in bytes and seconds, so nothing outlives a test even if a client misbehaves. A
behaviour is an async function `(request, conn) -> None` that writes the answer with `conn`'s helpers;
the bytes are written by hand so the probes control exactly what goes on the wire.
"""

import asyncio
import contextlib
import json
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

#: No endless answer runs longer or writes more than this, whatever the client does.
MAX_SECONDS = 20.0
MAX_BYTES = 2 * 1024**3


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class Conn:
    """One connection: helpers that write a whole response, or a stream a piece at a time."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.written = 0
        self.keep_open = True

    async def raw(self, data: bytes) -> None:
        self.written += len(data)
        if self.written > MAX_BYTES:
            raise ConnectionError("hostile server: byte cap reached")
        self.writer.write(data)
        await self.writer.drain()

    async def json(self, body: Any, status: int = 200, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        head = {"Content-Type": "application/json", "Content-Length": str(len(data)), **(headers or {})}
        await self.raw(self._head(status, head) + data)

    async def empty(self, status: int = 202, headers: dict[str, str] | None = None) -> None:
        await self.raw(self._head(status, {"Content-Length": "0", **(headers or {})}))

    async def start_stream(self, content_type: str = "text/event-stream", headers: dict[str, str] | None = None,
                           status: int = 200) -> None:
        """Chunked body from here on; `chunk` writes pieces, `end` finishes it."""
        head = {"Content-Type": content_type, "Transfer-Encoding": "chunked", **(headers or {})}
        await self.raw(self._head(status, head))

    async def chunk(self, data: bytes) -> None:
        if data:
            await self.raw(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    async def event(self, message: Any = None, event_id: str | None = None, retry: int | None = None) -> None:
        lines = []
        if event_id is not None:
            lines.append(f"id: {event_id}")
        if retry is not None:
            lines.append(f"retry: {retry}")
        lines.append("data: " + ("" if message is None else json.dumps(message)))
        await self.chunk(("\n".join(lines) + "\n\n").encode())

    async def end(self) -> None:
        await self.raw(b"0\r\n\r\n")

    @staticmethod
    def _head(status: int, headers: dict[str, str]) -> bytes:
        lines = [f"HTTP/1.1 {status} X"] + [f"{k}: {v}" for k, v in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode()


Behaviour = Callable[[Request, Conn], Awaitable[None]]


@dataclass
class HostileServer:
    behaviour: Behaviour
    url: str = ""
    requests: list[Request] = field(default_factory=list)
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _ready: threading.Event = field(default_factory=threading.Event)
    _stop: asyncio.Event | None = None

    def __enter__(self) -> str:
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the hostile server did not start")
        return self.url

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        tasks: set[asyncio.Task[None]] = set()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            assert task is not None
            tasks.add(task)
            try:
                async with asyncio.timeout(MAX_SECONDS):
                    await self._serve(reader, writer)
            except (Exception, asyncio.CancelledError):
                pass
            finally:
                tasks.discard(task)
                writer.close()

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"
        self._ready.set()
        async with server:
            await self._stop.wait()
            server.close()
            for task in list(tasks):
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = Conn(writer)
        while conn.keep_open:
            line = await reader.readline()
            if not line:
                return
            method, path, _ = line.decode().split(" ", 2)
            headers: dict[str, str] = {}
            while (header := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = header.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            request = Request(method, path, headers, body)
            self.requests.append(request)
            await self.behaviour(request, conn)


def result(request_id: Any, **body: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": body}


async def legacy_handshake(request: Request, conn: Conn, session: str = "s-1") -> bool:
    """Answer initialize / initialized / GET 405 / DELETE as a plain 2025-11-25 server; True when handled."""
    if request.method == "GET":
        await conn.empty(405)
        return True
    if request.method == "DELETE":
        await conn.empty(200)
        return True
    message = request.json()
    if message.get("method") == "initialize":
        await conn.json(result(message["id"], protocolVersion="2025-11-25", capabilities={"tools": {}},
                               serverInfo={"name": "hostile", "version": "1"}), headers={"Mcp-Session-Id": session})
        return True
    if "id" not in message or "method" not in message:
        await conn.empty(202)  # notifications and the client's answers
        return True
    return False


async def sleep_until_closed(conn: Conn, seconds: float = MAX_SECONDS) -> None:
    with contextlib.suppress(Exception):
        await asyncio.sleep(seconds)
    conn.keep_open = False
