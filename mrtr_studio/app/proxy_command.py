"""`mrtr-studio proxy --listen HOST:PORT --upstream URL [--trace FILE]`: the recording reverse proxy.

Prints `listening on http://HOST:PORT/PATH` (the upstream's path) once it accepts connections, one
line on stderr per finished operation (target, rounds, outcome, findings), and stops cleanly on
SIGINT/SIGTERM, writing the trace file. Point the client at the printed URL instead of the server's.
"""

import argparse
import asyncio
import signal
import sys
from typing import Any

from ..proxy.http_proxy import ProxyApp, ProxyLimits
from ..proxy.recording import Recording
from ..trace import StoreEvent, TraceStore
from ..transport.http_host import bind, make_server, wait_started
from .serve import EXIT_WITH_STDIN_ENV, _exit_when_stdin_closes, _run

LABEL = "proxied client"






def summary_printer(store: TraceStore) -> Any:
    def on_event(event: StoreEvent) -> None:
        op = event.operation
        if event.kind != "operation_updated" or op is None or op.outcome == "running" or op.ended is None:
            return
        findings = sorted({f.rule for m in store.messages_of(op.id) for f in m.findings if f.severity != "info"})
        shown = f" findings: {', '.join(findings)}" if findings else ""
        print(f"{op.method} {op.target}: {op.rounds} round(s), {op.outcome}{shown}", file=sys.stderr, flush=True)

    return on_event


def run_proxy(args: argparse.Namespace) -> int:
    host, port = args.listen
    recording = Recording(f"proxy to {args.upstream}", LABEL, args.trace)
    try:
        app = ProxyApp(args.upstream, recording.tap, ProxyLimits())
    except ValueError as exc:
        print(f"mrtr-studio proxy: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        recording.store.subscribe(summary_printer(recording.store))
    try:
        sock = bind(host, port)
    except OSError as exc:
        print(f"mrtr-studio proxy: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    uv = make_server(app)

    async def main() -> int:
        loop = asyncio.get_running_loop()
        task = asyncio.create_task(uv.serve(sockets=[sock]))
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, setattr, uv, "should_exit", True)
        import os

        if os.environ.get(EXIT_WITH_STDIN_ENV) == "1":
            _exit_when_stdin_closes(loop, lambda: setattr(uv, "should_exit", True))
        try:
            await wait_started(uv, task)
        except (RuntimeError, TimeoutError, SystemExit) as exc:
            print(f"mrtr-studio proxy: the proxy did not start: {exc}", file=sys.stderr)
            return 1
        shown = f"[{host}]" if ":" in host else host
        print(f"listening on http://{shown}:{sock.getsockname()[1]}{app.path}", flush=True)
        try:
            await task
        finally:
            await app.aclose()
        return 0

    try:
        return _run(main())
    finally:
        sock.close()
        saved = recording.close()
        if saved is not None:
            print(f"mrtr-studio proxy: {len(recording.store.operations)} operation(s) recorded to {saved}",
                  file=sys.stderr)
