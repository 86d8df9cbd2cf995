"""stdio client: spawn a server command and talk newline-delimited JSON-RPC over its pipes.

One reader task routes responses to the waiting request by id, records notifications, and answers
legacy server-initiated requests with the client's handler. stderr is kept (the last lines) so a
crashing server's own words end up in the error. A line that is not JSON, the process exiting or a
silent server fail the waiting requests with a TransportError instead of hanging them.
"""

import asyncio
import contextlib
import contextvars
import json
import os
from collections import deque
from collections.abc import Sequence
from typing import Any

from .base import ServerRequestHandler, Tap, TransportError, answer_server_request

_LINE_LIMIT = 16 * 1024 * 1024


class StdioClientTransport:
    def __init__(self, command: Sequence[str], tap: Tap | None = None, timeout: float = 30.0,
                 env: dict[str, str] | None = None, cwd: str | None = None) -> None:
        if not command:
            raise ValueError("stdio: no command to run")
        self.command = list(command)
        self.tap = tap or Tap()
        self.timeout = timeout
        self.env = env
        self.cwd = cwd
        self.stderr_tail: deque[str] = deque(maxlen=20)
        self._proc: asyncio.subprocess.Process | None = None
        self._pending: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        #: The sender's context per pending id: what arrives is recorded where its request was sent.
        self._contexts: dict[Any, contextvars.Context] = {}
        self._handler: ServerRequestHandler | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._failure: str | None = None
        self._write_lock = asyncio.Lock()

    def on_server_request(self, handler: ServerRequestHandler) -> None:
        self._handler = handler

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode if self._proc else None

    async def start(self) -> None:
        if self._proc is not None:
            return
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env={**os.environ, **(self.env or {})}, cwd=self.cwd,
                limit=_LINE_LIMIT)
        except OSError as exc:
            raise TransportError(f"stdio: cannot start {self.command[0]!r}: {exc}") from exc
        self._spawn(self._read_stdout())
        self._spawn(self._read_stderr())

    def _spawn(self, coro: Any, context: contextvars.Context | None = None) -> None:
        task = asyncio.create_task(coro, context=context)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def send(self, message: dict[str, Any]) -> dict[str, Any] | None:
        await self.start()
        if self._failure:
            raise TransportError(self._failure)
        expects_reply = "method" in message and "id" in message
        future: asyncio.Future[dict[str, Any]] | None = None
        if expects_reply:
            future = asyncio.get_running_loop().create_future()
            self._pending[message["id"]] = future
            self._contexts[message["id"]] = contextvars.copy_context()
        self.tap.emit("client->server", message, transport="stdio", command=self.command[0])
        try:
            await self._write(message)
            if future is None:
                return None
            try:
                return await asyncio.wait_for(asyncio.shield(future), self.timeout)
            except TimeoutError:
                raise TransportError(f"stdio: no response to id {message['id']!r} within {self.timeout:g} s"
                                     + self._stderr_hint()) from None
        finally:
            if expects_reply:
                self._pending.pop(message["id"], None)
                self._contexts.pop(message["id"], None)

    async def _write(self, message: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        try:
            async with self._write_lock:
                self._proc.stdin.write(line.encode("utf-8"))
                await self._proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise TransportError(f"stdio: the server closed its input ({exc})" + self._stderr_hint()) from exc

    async def _read_stdout(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        while True:
            try:
                raw = await self._proc.stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                self._fail("stdio: the server wrote a line longer than 16 MiB")
                return
            if not raw:
                code = await self._proc.wait()
                self._fail(f"stdio: the server exited (code {code}) before answering" + self._stderr_hint())
                return
            text = raw.decode("utf-8", errors="replace").strip()
            if not text:
                continue
            try:
                item = json.loads(text)
            except ValueError:
                self._context_for(None).run(self.tap.emit, "server->client", text, transport="stdio",
                                            error="not JSON")
                self._fail(f"stdio: the server wrote a line that is not JSON: {text[:80]!r}")
                continue
            self._route(item)

    def _context_for(self, item: Any) -> contextvars.Context:
        """A response belongs to its request; anything else to the latest request in flight."""
        if isinstance(item, dict) and ("result" in item or "error" in item) and item.get("id") in self._contexts:
            return self._contexts[item.get("id")]
        return next(reversed(self._contexts.values()), contextvars.copy_context())

    def _route(self, item: Any) -> None:
        context = self._context_for(item)
        if isinstance(item, dict) and "method" in item and "id" in item:
            context.run(self.tap.emit, "server->client", item, transport="stdio", server_initiated=True)
            self._spawn(self._answer(item), context=context.copy())
            return
        context.run(self.tap.emit, "server->client", item, transport="stdio")
        if isinstance(item, dict) and ("result" in item or "error" in item):
            future = self._pending.get(item.get("id"))
            if future is not None and not future.done():
                future.set_result(item)

    def _fail(self, reason: str) -> None:
        """Fail every waiting request; later sends fail at once if the process is gone."""
        if self._proc is not None and self._proc.returncode is not None:
            self._failure = reason
        for future in self._pending.values():
            if not future.done():
                future.set_exception(TransportError(reason))

    async def _read_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        async for raw in self._proc.stderr:
            self.stderr_tail.append(raw.decode("utf-8", errors="replace").rstrip())

    def _stderr_hint(self) -> str:
        lines = [line for line in self.stderr_tail if line.strip()]
        return f"; stderr: {lines[-1]}" if lines else ""

    async def _answer(self, request: dict[str, Any]) -> None:
        reply = await answer_server_request(self._handler, request)
        self.tap.emit("client->server", reply, transport="stdio", server_initiated=True)
        with contextlib.suppress(TransportError):
            await self._write(reply)

    async def close(self) -> None:
        """Close stdin (the spec's polite shutdown), then terminate, then kill if it lingers."""
        proc = self._proc
        if proc is not None and proc.returncode is None:
            if proc.stdin is not None:
                with contextlib.suppress(Exception):
                    proc.stdin.close()
            for stop in (None, proc.terminate, proc.kill):
                if stop is not None:
                    with contextlib.suppress(ProcessLookupError):
                        stop()
                try:
                    await asyncio.wait_for(proc.wait(), 2.0)
                    break
                except TimeoutError:
                    continue
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
