"""stdio client: spawn a server command and talk newline-delimited JSON-RPC over its pipes.

One reader task routes responses to the waiting request by id, records notifications, and answers
legacy server-initiated requests with the client's handler (a bounded number at a time, see
ServerRequestPool). stderr is kept (the last lines) so a crashing server's own words end up in the
error. A line that is not JSON, too long, too deep, or a response whose id is not an id, is recorded
and fails the waiting requests with a TransportError saying so, and the reader goes on with the next
line; the process exiting, a silent server (the idle window) or a server that never finishes (the
overall deadline) fail them too, instead of hanging them.
"""

import asyncio
import contextlib
import contextvars
import json
import os
from collections import deque
from collections.abc import Sequence
from typing import Any

from ..protocol.wire_json import WireJsonError
from .base import ServerRequestHandler, ServerRequestPool, Tap, TransportError, TransportLimits, valid_id
from .patience import IdleWindow


class StdioClientTransport:
    def __init__(self, command: Sequence[str], tap: Tap | None = None, timeout: float = 30.0,
                 env: dict[str, str] | None = None, cwd: str | None = None,
                 limits: TransportLimits | None = None) -> None:
        if not command:
            raise ValueError("stdio: no command to run")
        self.command = list(command)
        self.tap = tap or Tap()
        self.limits = limits or TransportLimits(idle_timeout=timeout)
        self.timeout = self.limits.idle_timeout
        self.env = env
        self.cwd = cwd
        self.stderr_tail: deque[str] = deque(maxlen=20)
        self._proc: asyncio.subprocess.Process | None = None
        self._pending: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        #: The sender's context per pending id: what arrives is recorded where its request was sent.
        self._contexts: dict[Any, contextvars.Context] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._failure: str | None = None
        self._write_lock = asyncio.Lock()
        self._pool = ServerRequestPool(self.limits, self._post_reply)
        #: Idle windows of the requests waiting: any line from the server restarts them.
        self._windows: set[IdleWindow] = set()
        self.lines_read = 0

    def on_server_request(self, handler: ServerRequestHandler) -> None:
        self._pool.set_handler(handler)

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
                limit=self.limits.max_body_bytes)
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
            overall = asyncio.timeout(self.limits.request_timeout)
            window = IdleWindow(self._pool, self.timeout)
            try:
                async with overall, window:
                    self._windows.add(window)
                    return await asyncio.shield(future)
            except TimeoutError:
                if overall.expired():
                    raise TransportError(f"stdio: no response to id {message['id']!r} within the overall deadline "
                                         f"of {self.limits.request_timeout:g} s" + self._stderr_hint()) from None
                raise TransportError(f"stdio: no response to id {message['id']!r} within {self.timeout:g} s"
                                     + self._stderr_hint()) from None
            finally:
                self._windows.discard(window)
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
        skipping = False  # the rest of a line that was over the limit is still arriving
        while True:
            try:
                raw = await self._proc.stdout.readline()
            except ValueError as exc:  # over the limit: asyncio dropped what it buffered of the line
                if not skipping:  # said once per line, however many buffers its rest still fills
                    self._bad_line(f"({self.limits.max_body_bytes}+ bytes, not kept)", "line too long",
                                   f"stdio: the server wrote a line longer than {self.limits.max_body_bytes} bytes "
                                   f"({self.limits.body_limit_name})")
                skipping = "not found" in str(exc)
                continue
            if not raw:
                code = await self._proc.wait()
                self._fail(f"stdio: the server exited (code {code}) before answering" + self._stderr_hint())
                return
            for window in list(self._windows):
                window.touch()
            if skipping:
                skipping = not raw.endswith(b"\n")
                continue
            self.lines_read += 1
            if not raw.strip():
                continue
            try:
                item = self.limits.decode(raw)
            except WireJsonError as exc:
                text = raw.decode("utf-8", errors="replace").strip()
                if exc.reason == "syntax":
                    self._bad_line(text[:65536], "not JSON",
                                   f"stdio: the server wrote a line that is not JSON: {text[:80]!r}")
                else:
                    self._bad_line(text[:4096], f"JSON over the {exc.reason} limit", f"stdio: the server wrote {exc}")
                continue
            await self._route(item)

    def _bad_line(self, shown: str, error: str, reason: str) -> None:
        """Record what could not be used and fail the waiting requests with why; reading goes on."""
        self._context_for(None).run(self.tap.emit, "server->client", shown, transport="stdio", error=error)
        self._fail(reason)

    def _context_for(self, item: Any) -> contextvars.Context:
        """A response belongs to its request; anything else to the latest request in flight."""
        if isinstance(item, dict) and ("result" in item or "error" in item) and valid_id(item.get("id")) \
                and item.get("id") in self._contexts:
            return self._contexts[item.get("id")]
        return next(reversed(self._contexts.values()), contextvars.copy_context())

    async def _route(self, item: Any) -> None:
        context = self._context_for(item)
        if isinstance(item, dict) and "method" in item and "id" in item:
            context.run(self.tap.emit, "server->client", item, transport="stdio", server_initiated=True)
            refused = self._pool.submit(item, context.copy())
            if refused is not None:
                await context.run(self._post_reply, refused)
            return
        if not (isinstance(item, dict) and ("result" in item or "error" in item)):
            context.run(self.tap.emit, "server->client", item, transport="stdio")
            return
        answer_id = item.get("id")
        if not valid_id(answer_id) and answer_id is not None:
            context.run(self.tap.emit, "server->client", item, transport="stdio", error="invalid id")
            self._fail(f"stdio: the server sent a response whose id {json.dumps(answer_id)[:40]} is not a string "
                       "or a number, so it answers no request")
            return
        context.run(self.tap.emit, "server->client", item, transport="stdio")
        if answer_id is None:
            error = item.get("error")
            said = f"{error.get('code')} {error.get('message')}" if isinstance(error, dict) else json.dumps(error)
            self._fail(f"stdio: the server answered with an error without id: {said[:200]}")
            return
        future = self._pending.get(answer_id)
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
        while True:
            try:
                raw = await self._proc.stderr.readline()
            except ValueError:
                self.stderr_tail.append("(a line over the limit)")
                continue
            if not raw:
                return
            self.stderr_tail.append(raw.decode("utf-8", errors="replace")[:2000].rstrip())

    def _stderr_hint(self) -> str:
        lines = [line for line in self.stderr_tail if line.strip()]
        return f"; stderr: {lines[-1]}" if lines else ""

    async def _post_reply(self, reply: dict[str, Any]) -> None:
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
        await self._pool.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
