"""The live feed from `mrtr-studio wrap` to a running studio: a Unix socket only its user can reach.

The studio listens on `feed.sock` in the studio's home folder (`$MRTR_STUDIO_HOME`, else
`$XDG_STATE_HOME/mrtr-studio`, else `~/.local/state/mrtr-studio`), created 0700, and writes a fresh
random token to `feed.token` (0600, created exclusively) each time it starts listening. A wrapper
connects, sends the token in its first line, then one JSON line per message it relayed. The
studio drops a connection whose first line is not the token (constant-time compare), and a
wrapper refuses a token file that other users could read or that it does not own. Both sides
bound what they read: the hello at most HELLO_MAX bytes within HELLO_SECONDS, then a line at most
MAX_LINE bytes.

Wire lines after the hello: `{"d": "c"|"s", "x": exchange, "m": message}` (d: client->server or
server->client, as the wrapper saw it).
"""

import asyncio
import contextlib
import hmac
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol import wire_json
from ..trace import TraceStore
from ..transport.base import WireEvent
from .stitch import Stitcher

MAX_LINE = 16 * 1024 * 1024
#: The hello (the token and the command) is small: a peer that has not shown the token gets this much.
HELLO_MAX = 4096
HELLO_SECONDS = 5.0
SOCKET_NAME = "feed.sock"
TOKEN_NAME = "feed.token"


def studio_home() -> Path:
    explicit = os.environ.get("MRTR_STUDIO_HOME")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "mrtr-studio"


def private_dir(path: Path) -> Path:
    """The folder, created 0700 (and tightened to 0700 when it exists and is ours)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = path.stat()
    if info.st_uid != os.getuid():
        raise PermissionError(f"{path} belongs to another user")
    if stat.S_IMODE(info.st_mode) & 0o077:
        path.chmod(0o700)
    return path


def write_token(home: Path) -> str:
    token = secrets.token_urlsafe(32)
    path = private_dir(home) / TOKEN_NAME
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(token)
    return token


def read_token(home: Path) -> str:
    """The studio's token; PermissionError when the file is not ours alone."""
    path = home / TOKEN_NAME
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd) as handle:
        info = os.fstat(handle.fileno())
        if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
            raise PermissionError(f"{path} is readable by other users or not owned by this user; not used")
        return handle.read(256).strip()


Direction = str


class FeedServer:
    """The studio's end: each authenticated wrapper becomes its own stitched source in `store`."""

    def __init__(self, store: TraceStore, home: Path | None = None,
                 on_session: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.home = home or studio_home()
        self.on_session = on_session
        self.sessions = 0
        self.refused = 0
        self._server: asyncio.AbstractServer | None = None
        self._token = ""
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def socket_path(self) -> Path:
        return self.home / SOCKET_NAME

    async def start(self) -> Path:
        self._token = write_token(self.home)
        self.socket_path.unlink(missing_ok=True)
        old = os.umask(0o077)
        try:
            self._server = await asyncio.start_unix_server(self._serve, path=str(self.socket_path))
        finally:
            os.umask(old)
        return self.socket_path

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self.socket_path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            (self.home / TOKEN_NAME).unlink()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            lines = BoundedLines(reader, MAX_LINE)
            try:  # before the token checks out, a peer gets HELLO_MAX bytes and HELLO_SECONDS, no more
                hello = await asyncio.wait_for(lines.next(HELLO_MAX), HELLO_SECONDS)
                data = wire_json.loads(hello or b"", max_bytes=HELLO_MAX)
            except (TimeoutError, ValueError, LineTooLong):
                self.refused += 1
                return
            token = data.get("token") if isinstance(data, dict) else None
            if not isinstance(token, str) or not hmac.compare_digest(token.encode(), self._token.encode()):
                self.refused += 1
                return
            self.sessions += 1
            command = str(data.get("command", "?"))[:200]
            label = f"wrapped session {self.sessions}"
            stitch = Stitcher(self.store, f"wrap: {command}", label)
            if self.on_session is not None:
                self.on_session(label)
            await self._read(lines, stitch)
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            if task is not None:
                self._tasks.discard(task)

    async def _read(self, lines: "BoundedLines", stitch: Stitcher) -> None:
        while True:
            try:
                line = await lines.next(MAX_LINE)
            except LineTooLong:
                return  # a line over the bound: the connection is dropped, what came before is kept
            if line is None:
                return
            try:
                item = wire_json.loads(line, max_bytes=MAX_LINE)
            except wire_json.WireJsonError:
                continue
            if not isinstance(item, dict) or item.get("d") not in ("c", "s"):
                continue
            direction = "client->server" if item["d"] == "c" else "server->client"
            stitch(WireEvent(direction, item.get("m"), {"exchange": _hashable(item.get("x")),  # type: ignore[arg-type]
                                                        "transport": "stdio-wrap"}))


class LineTooLong(ValueError):
    """A line longer than the bound it was read with."""


class BoundedLines:
    """Lines from a stream, each bounded by the caller: the hello by HELLO_MAX, the rest by MAX_LINE.

    asyncio's `readline` buffers up to the stream's one limit, so an unauthenticated peer could make
    the studio hold 16 MiB per connection before its token was even read; here each read says its
    own bound, and bytes past the bound are never kept."""

    def __init__(self, reader: asyncio.StreamReader, chunk: int = 65536) -> None:
        self._reader = reader
        self._buffer = bytearray()
        self._chunk = chunk
        self._eof = False

    async def next(self, limit: int) -> bytes | None:
        """The next line without its newline (None at the end of the stream); LineTooLong past `limit`."""
        start = 0
        while True:
            end = self._buffer.find(b"\n", start)
            if 0 <= end <= limit:
                line = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                return line
            if end > limit or len(self._buffer) > limit:
                raise LineTooLong(f"a line of more than {limit} bytes")
            if self._eof:
                line, self._buffer = bytes(self._buffer), bytearray()
                return line or None
            start = len(self._buffer)
            chunk = await self._reader.read(min(self._chunk, limit + 1 - len(self._buffer)) or 1)
            if not chunk:
                self._eof = True
            self._buffer += chunk


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value
