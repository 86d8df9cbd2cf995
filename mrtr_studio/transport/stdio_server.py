"""Serving an McpServer on standard input and output: one JSON-RPC message per line, both eras.

The counterpart of `stdio_client`: what a client that spawns its server (`stdio:COMMAND`) talks to.
Every line is read within a size bound (a longer line is answered with a parse error and skipped,
never buffered whole) and decoded by the one bounded reader (wire_json); requests are served
concurrently, so a legacy handler awaiting the client's answer to its server-initiated request
does not block the line that carries that answer. End of input, SIGINT or SIGTERM ends the loop.
"""

import asyncio
import contextlib
import os
import signal
import sys
from typing import Any, BinaryIO

from ..engine import McpServer
from ..protocol import jsonrpc, wire_json
from ..protocol.errors import INVALID_REQUEST, PARSE_ERROR
from .sse import dumps

MAX_LINE_BYTES = 4 * 1024 * 1024


async def serve_stdio(server: McpServer, user: str = "", reader: asyncio.StreamReader | None = None,
                      output: BinaryIO | None = None, max_line_bytes: int = MAX_LINE_BYTES,
                      drain_seconds: float = 10.0) -> None:
    """Serve `server` until end of input (or SIGINT/SIGTERM when serving the process's own stdin)."""
    loop = asyncio.get_running_loop()
    out = output or sys.stdout.buffer
    if reader is None:
        reader = asyncio.StreamReader(limit=max_line_bytes + 1)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(
            os.dup(sys.stdin.fileno()), "rb"))
        stop = asyncio.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
    else:
        stop = asyncio.Event()

    def write(message: dict[str, Any]) -> None:
        out.write(dumps(message) + b"\n")
        out.flush()

    async def outbound(message: dict[str, Any]) -> None:
        write(message)

    session = server.open_session(user=user, outbound=outbound)
    tasks: set[asyncio.Task[None]] = set()

    async def serve(message: Any) -> None:
        reply = await server.handle(message, session)
        if reply is not None:
            write(reply)

    async def lines() -> None:
        while True:
            try:
                line = await reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as end:
                if end.partial.strip():
                    await _one(end.partial)
                return
            except asyncio.LimitOverrunError as over:
                await _skip_long_line(reader, over.consumed)
                write(jsonrpc.error(None, INVALID_REQUEST, f"Invalid request: a line over {max_line_bytes} bytes"))
                continue
            if line.strip():
                await _one(line)

    async def _one(line: bytes) -> None:
        try:
            message = wire_json.loads(line, max_bytes=max_line_bytes)
        except wire_json.WireJsonError as exc:
            write(jsonrpc.error(None, PARSE_ERROR if exc.reason == "syntax" else INVALID_REQUEST, f"{exc}"))
            return
        task = asyncio.create_task(serve(message))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    reading = asyncio.create_task(lines())
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if reading.done() and tasks:  # end of input: let what was asked be answered, for a while
        answered = asyncio.ensure_future(asyncio.wait(set(tasks)))
        await asyncio.wait({stopping, answered}, timeout=drain_seconds, return_when=asyncio.FIRST_COMPLETED)
        answered.cancel()
    for task in (reading, stopping, *tasks):
        task.cancel()
    for task in (reading, stopping, *tasks):
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
    server.close_session(session.id)


async def _skip_long_line(reader: asyncio.StreamReader, consumed: int) -> None:
    """Drop the rest of a line that is over the limit, without holding it."""
    await reader.readexactly(consumed)
    while True:
        try:
            await reader.readuntil(b"\n")
            return
        except asyncio.LimitOverrunError as over:
            await reader.readexactly(over.consumed)
        except asyncio.IncompleteReadError:
            return
