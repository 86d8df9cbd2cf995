"""The stdio wrapper: a desktop client launches it in place of the server; it starts the server,
relays stdin and stdout byte for byte, and copies every JSON-RPC line to a tap (and a live feed).

The relay comes first: each chunk is written through before it is looked at, and nothing the
recorder does (a line too long, not JSON, a slow studio) changes a byte that passes. The relay only
splits lines and puts them on the recorder process's bounded queue (proxy.recorder_process):
decoding, stitching, linting, journaling and the live feed run on another core, and a recorder
that falls behind drops lines (counted on stderr) instead of slowing the relay. stderr is the
server's own, inherited. Lines are bounded by MAX_LINE: a longer one is relayed whole and noted in
the recording as skipped.

Exchanges on a pipe are JSON-RPC ids: a client request with id X and the server's response with id
X share `("c", X)`; a server-initiated request belongs to the client request most recently opened
and still unanswered (on stdio a legacy server asks during the call it is serving).
"""

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from ..protocol import wire_json
from ..transport.base import Tap

MAX_LINE = 16 * 1024 * 1024
CHUNK = 65536


#: (direction, a complete line's bytes or a note's text, exchange (None: the recorder pairs it), meta)
Sink = Callable[[str, bytes | str, Any, dict[str, Any]], None]


class LineSplitter:
    """Bytes of one direction in, one complete line (bounded) handed to the sink. Only splitting
    happens on the relay's path; decoding, pairing and recording happen in the recorder
    (`LineDecoder`, in the recorder process)."""

    def __init__(self, direction: str, sink: Sink) -> None:
        self.direction = direction
        self.sink = sink
        self._buffer = bytearray()
        self._skipping = False

    def feed_bytes(self, chunk: bytes) -> None:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            self._line(chunk[start:end])
            start = end + 1
        rest = chunk[start:]
        if self._skipping:
            return
        self._buffer += rest
        if len(self._buffer) > MAX_LINE:
            self._note(f"a line of more than {MAX_LINE} bytes: relayed, not recorded")
            self._buffer.clear()
            self._skipping = True

    def _line(self, tail: bytes) -> None:
        if self._skipping:
            self._skipping = False
            self._buffer.clear()
            return
        line = bytes(self._buffer + tail) if self._buffer else tail
        self._buffer.clear()
        if line.strip():
            self.sink(self.direction, line, None, {})

    def _note(self, error: str, text: str = "") -> None:
        self.sink(self.direction, text, None, {"error": error})


class LineDecoder:
    """In the recorder: each line decoded, paired with its exchange, put on the tap and, when a studio
    listens, streamed to it (proxy.feed_socket)."""

    def __init__(self, tap: Tap, stream_command: str | None = None) -> None:
        from .feed_socket import FeedSocket

        self.tap = tap
        self.exchanges = Exchanges()
        self.feed: FeedSocket | None = None
        if stream_command is not None:
            feed = FeedSocket()
            self.feed = feed if feed.connect(stream_command) else None

    def __call__(self, direction: str, raw: bytes | str, meta: dict[str, Any]) -> None:
        if "error" in meta:
            self.tap.emit(direction, raw, transport="stdio-wrap", **meta)  # type: ignore[arg-type]
            return
        try:
            message = wire_json.loads(raw, max_bytes=MAX_LINE)
        except wire_json.WireJsonError as exc:
            text = raw[:65536].decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw[:65536]
            self.tap.emit(direction, text, transport="stdio-wrap", error=f"not JSON: {exc}")  # type: ignore[arg-type]
            return
        exchange = self.exchanges.of(direction, message)
        self.tap.emit(direction, message, exchange=exchange, transport="stdio-wrap")  # type: ignore[arg-type]
        if self.feed is not None:
            self.feed.send(direction, exchange, message)

    def close(self) -> None:
        if self.feed is not None:
            self.feed.close()
            if self.feed.dropped:
                print(f"mrtr-studio wrap: the studio fell behind; {self.feed.dropped} message(s) not streamed "
                      "(all are in the trace file)", file=sys.stderr, flush=True)


class Exchanges:
    """Which request/response pair a message on a pipe belongs to (see the module docstring)."""

    def __init__(self) -> None:
        self._open: list[Any] = []

    def of(self, direction: str, message: Any) -> Any:
        if not isinstance(message, dict):
            return None
        msg_id = message.get("id")
        key = ("c", msg_id) if isinstance(msg_id, str | int) else None
        if direction == "client->server":
            if "method" in message and key is not None:
                self._open.append(key)
                del self._open[:-1000]  # requests never answered are forgotten, oldest first
                return key
            return self._open[-1] if self._open and "method" not in message else None
        if "method" in message:  # a server request or notification: the call it was sent from
            return self._open[-1] if self._open else None
        if key in self._open:
            self._open.remove(key)
        return key


async def relay(command: list[str], sink: Sink) -> int:
    """Run `command`, relaying our stdin to it and its stdout to ours; returns its exit status. Each
    complete line goes to `sink` after it was relayed (the recorder process's queue)."""
    try:
        proc = await asyncio.create_subprocess_exec(*command, stdin=asyncio.subprocess.PIPE,
                                                    stdout=asyncio.subprocess.PIPE, stderr=None)
    except OSError as exc:
        print(f"mrtr-studio wrap: cannot start {command[0]!r}: {exc}", file=sys.stderr)
        return 127
    upstream = LineSplitter("client->server", sink)
    downstream = LineSplitter("server->client", sink)
    loop = asyncio.get_running_loop()
    stdin_fd, stdout_fd = sys.stdin.fileno(), sys.stdout.fileno()

    chunks: asyncio.Queue[bytes] = asyncio.Queue(maxsize=64)

    def read_stdin() -> None:  # a daemon thread: a blocked read never keeps the wrapper alive
        while True:
            try:
                chunk = os.read(stdin_fd, CHUNK)
            except OSError:
                chunk = b""
            done = asyncio.run_coroutine_threadsafe(chunks.put(chunk), loop)
            try:
                done.result()
            except Exception:  # the loop is gone: the wrapper is exiting
                return
            if not chunk:
                return

    async def pump_in() -> None:
        assert proc.stdin is not None
        threading.Thread(target=read_stdin, name="mrtr-wrap-stdin", daemon=True).start()
        try:
            while True:
                chunk = await chunks.get()
                if not chunk:
                    break
                proc.stdin.write(chunk)
                await proc.stdin.drain()
                upstream.feed_bytes(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with contextlib.suppress(Exception):
                proc.stdin.close()

    async def pump_out() -> None:
        assert proc.stdout is not None
        while True:
            chunk = await proc.stdout.read(CHUNK)
            if not chunk:
                break
            view = memoryview(chunk)
            while view:
                written = os.write(stdout_fd, view)
                view = view[written:]
            downstream.feed_bytes(chunk)

    reader = asyncio.create_task(pump_in())
    try:
        await pump_out()
        return await proc.wait()
    finally:
        reader.cancel()
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
            try:  # a bounded wait: 5 s, or less when told to stop at once (cancelled again)
                await asyncio.wait_for(proc.wait(), 5)
            except TimeoutError:
                pass
            finally:
                if proc.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
                    # Reaped here, while the loop runs: a transport left to the garbage collector after
                    # the loop closed says "Exception ignored ... Loop is closed" on stderr.
                    with contextlib.suppress(BaseException):
                        await asyncio.wait_for(proc.wait(), 2)
