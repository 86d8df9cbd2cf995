"""`mrtr-studio serve`: the demo server on Streamable HTTP at /mcp (docs/architecture.md).

Prints exactly one `listening on http://HOST:PORT/mcp` line once connections are accepted (scripts
and `tools/conformance.py` wait for it) and stops cleanly, status 0, on SIGINT or SIGTERM.

A process that starts nodes (the studio's cluster) sets `MRTR_STUDIO_EXIT_WITH_STDIN=1` and keeps a
pipe on the node's stdin: when that parent dies, even by SIGKILL, the OS closes the pipe and the
node stops too, instead of serving on as an orphan. A pipe works on every platform, needs no code
between fork and exec, and does not depend on which of the parent's threads started the node.
"""

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from .. import defaults
from ..engine import MrtrOptions, ServerOptions
from ..scenarios.demo import build_demo_server
from ..transport.base import Tap
from ..transport.http_host import bind, create_app, http_url, make_server, wait_started
from ..transport.http_server import HttpServerConfig
from .flags.auth import demo_verifier, verifier_of
from .flags.limits import limits_of
from .flags.state import secrets_from
from .otlp_flag import live_spans_of
from .serve_store import attach_store, check_store_flag

#: Benchmarks only: `0` turns TCP_NODELAY off to measure what Nagle costs on loopback.
NODELAY_ENV = "MRTR_STUDIO_TCP_NODELAY"
#: `1`: stop when standard input reaches end of file (the parent that holds the pipe is gone).
EXIT_WITH_STDIN_ENV = defaults.EXIT_WITH_STDIN_ENV


def parse_users(specs: list[str]) -> dict[str, str]:
    """`NAME:TOKEN` pairs -> {token: name}; a token may itself contain colons."""
    users: dict[str, str] = {}
    for spec in specs:
        name, sep, token = spec.partition(":")
        if not sep or not name or not token:
            raise ValueError(f"--user expects NAME:TOKEN, got {spec!r}")
        users[token] = name
    return users


def run_serve(args: argparse.Namespace) -> int:
    try:
        users = parse_users(args.user)
        verifier = verifier_of(args)
        spans = live_spans_of(args, "mrtr-studio serve")
    except ValueError as exc:
        print(f"mrtr-studio serve: {exc}", file=sys.stderr)
        return 2
    problem = check_store_flag(args.store, args.store_prefix)
    if problem:
        print(f"mrtr-studio serve: {problem}", file=sys.stderr)
        return 2
    options = ServerOptions(mrtr=MrtrOptions(secret=secrets_from(args), state_ttl=args.state_ttl,
                                             audience=[a for a in args.state_audience or [] if a],
                                             explain_rejections=args.explain_rejections),
                            drafts=frozenset(getattr(args, "draft", None) or []))
    server = build_demo_server(options)
    config = HttpServerConfig(users=users, verifier=verifier, **limits_of(args))
    server.options.mrtr.legacy_request_timeout = args.legacy_request_timeout
    sock = listen_or_say("serve", args.host, args.port)
    if sock is None:
        return 1
    authority = None
    if args.auth == "demo":
        try:
            authority, config.verifier = demo_verifier(args.host, sock.getsockname()[1], config.path,
                                                       list(args.required_scope))
        except (OSError, TimeoutError) as exc:
            sock.close()
            print(f"mrtr-studio serve: the demo authorization server did not start: {exc}", file=sys.stderr)
            return 1
        print(f"demo authorization server on {authority.issuer} (signs in {authority.subject} without asking)",
              file=sys.stderr, flush=True)  # stdout's first line stays `listening on`
    nodelay = os.environ.get(NODELAY_ENV, "1") != "0"
    tap = None
    if spans is not None:  # --otlp-endpoint: a span per request, from the server's own tap
        tap = Tap()
        tap.listen(spans)
    uv = make_server(create_app(server, config, tap), nodelay=nodelay, limits=config)

    async def main() -> int:
        close_store = await attach_store(server, args.store, args.store_prefix)
        try:
            return await serving()
        finally:
            await close_store()

    async def serving() -> int:
        return await serve_until_stopped(uv, sock, "serve", "server", args.host, config.path)

    try:
        return _run(main())
    finally:
        sock.close()
        if authority is not None:
            authority.stop()
        if spans is not None:
            spans.close()


def listen_or_say(command: str, host: str, port: int) -> socket.socket | None:
    """The listening socket for --host/--port, or None after one line saying why not (port taken, no
    such address): every serving command's first step, so they all fail the same way."""
    try:
        return bind(host, port)
    except OSError as exc:
        print(f"mrtr-studio {command}: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return None


async def serve_until_stopped(uv: Any, sock: socket.socket, command: str, noun: str, host: str, path: str,
                              signals_handled: bool = False) -> int:
    """Run uvicorn on `sock` until SIGINT/SIGTERM (or, for a process the studio started, its parent's pipe
    closing); print the `listening on` line once connections are accepted. 1 when it did not start.
    `signals_handled`: the caller's own handlers stop `uv` (a recorder judges a second signal itself)."""
    loop = asyncio.get_running_loop()
    task = asyncio.create_task(uv.serve(sockets=[sock]))
    for signum in () if signals_handled else (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, setattr, uv, "should_exit", True)
    if os.environ.get(EXIT_WITH_STDIN_ENV) == "1":
        _exit_when_stdin_closes(loop, lambda: setattr(uv, "should_exit", True))
    try:
        await wait_started(uv, task)
    except (RuntimeError, TimeoutError, SystemExit) as exc:
        print(f"mrtr-studio {command}: the {noun} did not start: {exc}", file=sys.stderr)
        return 1
    print(f"listening on {http_url(host, sock.getsockname()[1], path)}", flush=True)
    await task
    return 0


def _exit_when_stdin_closes(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> None:
    """Call `stop` on the loop once stdin is at end of file (or unreadable): the parent holding the
    pipe has gone. A daemon thread blocks on the read, so this works with any event loop."""

    if sys.stdin is None:  # no stdin at all: nothing to watch
        return
    fd = sys.stdin.fileno()

    def watch() -> None:
        try:
            while os.read(fd, 4096):
                pass  # the parent never writes; anything it might send is ignored
        except (OSError, ValueError):
            pass
        with contextlib.suppress(RuntimeError):  # the loop already closed: the server is stopping anyway
            loop.call_soon_threadsafe(stop)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _run(main: Coroutine[Any, Any, int]) -> int:
    """uvloop when installed: its C event loop halves the per-request I/O cost of a dedicated server process."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency on the platforms that have it
        return asyncio.run(main)
    return uvloop.run(main)
