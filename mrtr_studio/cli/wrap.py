"""`mrtr-studio wrap [--trace FILE] [--no-feed] [--otlp-endpoint URL] -- COMMAND ARGS...`: the recording
stdio wrapper (with --otlp-endpoint, a live span per relayed JSON-RPC request, as `proxy` sends).

A desktop client's config names `mrtr-studio` with `["wrap", "--", "python", "server.py"]` in place
of the server. Standard output is the protocol's, so the wrapper says nothing there; its own
messages go to stderr (which desktop clients keep in their logs). Without --trace the trace goes
to `traces/` in the studio's home folder, one file per run. The exit status is the server's.

The first SIGINT or SIGTERM stops the server and writes the trace; more SIGTERMs (`timeout` sends
one to the wrapper and one to its group) still let it be written; a second SIGINT stops at once,
keeping the journal as a complete trace, said on stderr (proxy.shutdown).
"""

import argparse
import asyncio
import contextlib
import os
import re
import sys
import time
from pathlib import Path

from ..proxy.local_feed import private_dir, studio_home
from ..proxy.recorder_process import RecorderProcess
from ..proxy.shutdown import StopRequests
from ..proxy.stdio_wrap import relay
from .otlp_flag import live_spans_of, tee_sink


def default_trace(command: list[str]) -> Path:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(command[-1] if len(command) > 1 else command[0]).name)[:40]
    folder = private_dir(studio_home()) / "traces"
    folder.mkdir(exist_ok=True, mode=0o700)
    return folder / f"wrap-{name}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.mrtr.json"


def run_wrap(args: argparse.Namespace) -> int:
    command = args.server_command[1:] if args.server_command[:1] == ["--"] else args.server_command
    if not command:
        print("mrtr-studio wrap: name the server to run after --, e.g. wrap -- python server.py", file=sys.stderr)
        return 2
    try:
        trace = Path(args.trace) if args.trace else default_trace(command)
    except OSError as exc:
        print(f"mrtr-studio wrap: cannot prepare the trace folder: {exc}", file=sys.stderr)
        return 2
    try:
        spans = live_spans_of(args, "mrtr-studio wrap")  # --otlp-endpoint: spans of the relayed requests
    except ValueError as exc:
        print(f"mrtr-studio wrap: {exc}", file=sys.stderr)
        return 2
    # The recording runs in a process of its own: the relay only splits lines and queues them.
    recorder = RecorderProcess(f"stdio {' '.join(command)}", "wrapped", trace, quiet=True,
                               voice=("wrap", bool(args.verbose), None if args.no_feed else " ".join(command)))
    stop = StopRequests()
    stop.when_at_once(recorder.abandon)
    stop.install()  # before the loop, for the whole run (see proxy.shutdown)
    recorder.start()

    async def main() -> int:
        loop, task = asyncio.get_running_loop(), asyncio.current_task()

        def stop_relay() -> None:  # the relay's own cleanup stops the server
            if task is not None:
                with contextlib.suppress(RuntimeError):  # the loop has closed: nothing left to stop
                    loop.call_soon_threadsafe(task.cancel)

        stop.when_first(stop_relay)
        stop.when_at_once(stop_relay)  # again: the server is not waited for any longer
        if stop.signals:
            stop_relay()  # a signal came before the loop started
        return await relay(command, tee_sink(recorder.put, spans))

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        return 128 + stop.first_signal
    finally:
        for line in recorder.close():
            print(f"mrtr-studio wrap: {line}", file=sys.stderr)
        if spans is not None:
            spans.close()
        stop.done()
