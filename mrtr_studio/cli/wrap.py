"""`mrtr-studio wrap [--trace FILE] [--no-feed] -- COMMAND ARGS...`: the recording stdio wrapper.

A desktop client's config names `mrtr-studio` with `["wrap", "--", "python", "server.py"]` in place
of the server. Standard output is the protocol's, so the wrapper says nothing there; its own
messages go to stderr (which desktop clients keep in their logs). Without --trace the trace goes
to `traces/` in the studio's home folder, one file per run. The exit status is the server's.
"""

import argparse
import asyncio
import os
import re
import sys
import time
from pathlib import Path

from ..proxy.local_feed import FeedClient, private_dir, studio_home
from ..proxy.recording import Recording
from ..proxy.stdio_wrap import relay


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
    recording = Recording(f"stdio {' '.join(command)}", "wrapped", trace)

    async def main() -> int:
        feed = FeedClient()
        connected = False if args.no_feed else await feed.connect(" ".join(command))
        try:
            return await relay(command, recording.tap, feed.send if connected else None)
        finally:
            await feed.close()
            if feed.dropped:
                print(f"mrtr-studio wrap: the studio fell behind; {feed.dropped} message(s) not streamed "
                      "(all are in the trace file)", file=sys.stderr)

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    finally:
        saved = recording.close()
        if saved is not None and args.verbose:
            print(f"mrtr-studio wrap: trace saved to {saved}", file=sys.stderr)
