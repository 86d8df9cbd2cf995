"""`mrtr-studio replay-server TRACE`: a recording served as a server, on Streamable HTTP or stdio.

Prints `listening on http://HOST:PORT/mcp` once it accepts connections (like `serve`), one line on
stderr per answer (which recorded round, and whether its requestState is the recorded one or freshly
signed), and stops cleanly, status 0, on SIGINT/SIGTERM. With `--stdio` it serves standard input
and output instead and stops at end of input. The matching and answering live in mrtr_studio/replay.
"""

import argparse
import asyncio
import sys

from ..engine import MrtrOptions, ServerOptions
from ..protocol.peer_text import printable
from ..replay.recording import load_recording
from ..replay.server import ReplayServer
from ..transport.http_host import create_app, make_server
from ..transport.http_server import HttpServerConfig
from .flags.state import secrets_from
from .serve import _run, listen_or_say, parse_users, serve_until_stopped


def _log(line: str) -> None:
    print(printable(line, 2000), file=sys.stderr, flush=True)


def run_replay_server(args: argparse.Namespace) -> int:
    try:
        flows = load_recording(args.trace)
        users = parse_users(args.user)
    except ValueError as exc:
        print(f"mrtr-studio replay-server: {printable(str(exc), 2000)}", file=sys.stderr)
        return 2
    options = ServerOptions(mrtr=MrtrOptions(secret=secrets_from(args), state_ttl=args.state_ttl))
    server = ReplayServer(flows, mode=args.state, strict=not args.loose, options=options,
                          log=None if args.quiet else _log)
    how = "the recorded tokens, verbatim" if args.state == "verbatim" else \
        f"freshly signed (valid {args.state_ttl} s, bound to each request's principal)"
    rounds = sum(len(f.rounds) for f in flows)
    print(f"replaying {len(flows)} flow(s), {rounds} round(s), {'loosely' if args.loose else 'strictly'} "
          f"matched; requestState: {how}", file=sys.stderr, flush=True)
    if args.stdio:
        from ..transport.stdio_server import serve_stdio

        asyncio.run(serve_stdio(server, user=args.stdio_user))
        return 0
    sock = listen_or_say("replay-server", args.host, args.port)
    if sock is None:
        return 1
    config = HttpServerConfig(users=users)
    uv = make_server(create_app(server, config), limits=config)
    try:
        return _run(serve_until_stopped(uv, sock, "replay-server", "server", args.host, config.path))
    finally:
        sock.close()
