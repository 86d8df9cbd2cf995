"""`mrtr-studio check-client (--listen HOST:PORT | -- COMMAND ARGS...)`: grade a client's retry loop.

Serves the demo engine on Streamable HTTP (both eras), lets the client under test run against it,
and grades what it sent from the recorded, stitched and linted trace, by the rules of the era it
spoke (`client_grades`: a modern client's retry loop; a legacy client's answers to server-initiated
requests within its declared capabilities). With `-- COMMAND`, the URL is in `$MRTR_STUDIO_URL` and
replaces `{url}` in the arguments; grading starts when the command exits (or is stopped after
--timeout). With `--listen`, grading starts on Ctrl+C / SIGTERM (or after --timeout). With `--json`
stdout holds the one JSON document: the client's own stdout goes to stderr with its stderr.
"""

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from typing import Any

from ..engine import MrtrOptions, ServerOptions
from ..proxy.stitch import Stitcher
from ..scenarios.demo import build_demo_server
from ..trace import TraceStore, files, lint
from ..transport.base import Tap
from ..transport.http_host import Serving
from .check_report import (
    CheckResult,
    any_must_failed,
    json_document,
    print_table,
    verdict_for,
    write_junit,
    write_report_files,
)
from .client_grades import Handshakes, grade
from .sarif import write_sarif


async def serve_and_watch(args: argparse.Namespace, store: TraceStore, handshakes: Handshakes) -> int | None:
    """Serve until the command exits (its status) or the listener is stopped (None)."""
    tap = Tap()
    tap.listen(Stitcher(store, "check-client", "client under test"))
    tap.listen(handshakes)
    server = build_demo_server(ServerOptions(mrtr=MrtrOptions(explain_rejections=True)))
    host, port = args.listen if args.listen else ("127.0.0.1", 0)
    serving = Serving(server, tap=tap, host=host)
    url = await serving.start(port)
    print(f"listening on {url}", file=sys.stderr if args.json else sys.stdout, flush=True)
    try:
        command = args.client_command[1:] if args.client_command[:1] == ["--"] else args.client_command
        if command:
            argv = [part.replace("{url}", url) for part in command]
            proc = await asyncio.create_subprocess_exec(*argv, env={**os.environ, "MRTR_STUDIO_URL": url},
                                                        stdin=asyncio.subprocess.DEVNULL,
                                                        stdout=_client_stdout(args.json))
            try:
                return await asyncio.wait_for(proc.wait(), args.timeout)
            except TimeoutError:
                proc.kill()
                await proc.wait()
                return None
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), args.timeout)
        return None
    finally:
        await serving.stop()


def _client_stdout(json_report: bool) -> int | None:
    """Where the client's stdout goes: ours (None), but with --json stdout is the report's alone, so
    stderr (or nowhere, when this process's stderr is no file)."""
    if not json_report:
        return None
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return asyncio.subprocess.DEVNULL


def run_check_client(args: argparse.Namespace) -> int:
    command = args.client_command[1:] if args.client_command[:1] == ["--"] else args.client_command
    if bool(command) == bool(args.listen):
        print("mrtr-studio check-client: give either --listen HOST:PORT or -- COMMAND ARGS...", file=sys.stderr)
        return 2
    store = TraceStore()
    lint.attach(store)
    handshakes = Handshakes()
    try:
        status = asyncio.run(serve_and_watch(args, store, handshakes))
    except FileNotFoundError as exc:  # before OSError, which it is: the command, not the port, is the problem
        print(f"mrtr-studio check-client: cannot start the client: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"mrtr-studio check-client: cannot serve: {exc.strerror or exc}", file=sys.stderr)
        return 1
    era, results = grade(store, handshakes)
    target = " ".join(command) if command else f"clients on {args.listen[0]}:{args.listen[1]}"
    if command:
        results.append(CheckResult("client-exit", "the client under test exits with status 0", "SHOULD",
                                   verdict_for(status == 0, "SHOULD"),
                                   "stopped after --timeout" if status is None else f"exit status {status}"))
    written = _write_files(args, target, results, store)
    if args.json:
        document: dict[str, Any] = json_document(target, results, era=era)
        # ASCII with \u escapes: a peer's lone surrogate is valid JSON text but cannot be written as UTF-8
        print(json.dumps(document, indent=2))
    else:
        print_table(target, results, sys.stdout, era=era)
    return 1 if any_must_failed(results) or not written else 0


def _write_files(args: argparse.Namespace, target: str, results: list[CheckResult], store: TraceStore) -> bool:
    return write_report_files("check-client", [
        ("--trace", args.trace, lambda path: files.save(path, store)),
        ("--junit", args.junit, lambda path: write_junit(path, target, results, suite="mrtr-studio check-client")),
        ("--sarif", args.sarif, lambda path: write_sarif(path, target, results, tool="mrtr-studio check-client")),
    ])
