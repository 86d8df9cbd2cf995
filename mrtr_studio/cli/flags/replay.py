"""The flags of `replay-server`, `replay` and `load` (record once, replay forever).

Kept apart from the commands so that building the parser imports nothing heavy.
"""

import argparse
from typing import Any

from ... import defaults
from .state import DEFAULT_STATE_TTL, SECRET_HELP, state_ttl


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {text!r}")
    return value


def add_replay_server_parser(commands: Any) -> None:
    server = commands.add_parser("replay-server", help="serve a recording (.mrtr.json) as an MCP server")
    server.add_argument("trace", metavar="TRACE", help="the recorded trace (.mrtr.json)")
    server.add_argument("--host", default="127.0.0.1")
    server.add_argument("--port", type=int, default=8765)
    server.add_argument("--stdio", action="store_true", help="serve stdin/stdout (JSON lines) instead of HTTP")
    server.add_argument("--stdio-user", default="", metavar="NAME", help="the principal of the stdio client")
    strictness = server.add_mutually_exclusive_group()
    strictness.add_argument("--strict", action="store_true",
                            help="match method, target, arguments and exactly the answered keys (default)")
    strictness.add_argument("--loose", action="store_true",
                            help="ignore the arguments; accept answers covering the recorded keys")
    server.add_argument("--state", choices=("verbatim", "resign"), default="verbatim",
                        help="requestState: the recorded token byte for byte (default), or freshly signed now")
    server.add_argument("--secret", action="append", default=None, metavar="S", help=SECRET_HELP)
    server.add_argument("--state-ttl", type=state_ttl, default=DEFAULT_STATE_TTL, metavar="SEC",
                        help=f"lifetime of re-signed states (default {DEFAULT_STATE_TTL})")
    server.add_argument("--user", action="append", default=[], metavar="NAME:TOKEN",
                        help="map bearer TOKEN to principal NAME (repeatable)")
    server.add_argument("--quiet", action="store_true", help="no line per answer on stderr")


def add_replay_parser(commands: Any) -> None:
    replay = commands.add_parser("replay", help="play a recorded client's flows against another server")
    replay.add_argument("trace", metavar="TRACE", help="the recorded trace (.mrtr.json)")
    replay.add_argument("--against", required=True, metavar="URL", help="http(s)://…/mcp or stdio:COMMAND")
    replay.add_argument("--exit-code", action="store_true", help="exit 1 when any round differs")
    replay.add_argument("--json", action="store_true", help="print the comparison as JSON")
    replay.add_argument("--bearer", help="Authorization: Bearer token")
    replay.add_argument("--timeout", type=positive_float, default=defaults.REPLAY_TIMEOUT, metavar="SEC",
                        help="per request (default 30)")


def add_load_parser(commands: Any) -> None:
    load = commands.add_parser("load", help="real MRTR flows under load: flows/s, per-round percentiles, errors")
    load.add_argument("url", metavar="URL", help="http(s)://…/mcp")
    load.add_argument("--tool", required=True, metavar="NAME")
    load.add_argument("--args", default="{}", metavar="JSON", help="arguments as a JSON object")
    load.add_argument("--answers", metavar="FILE", help="JSON file: input key -> the result to send ('*' fallback)")
    load.add_argument("--concurrency", type=positive_int, required=True, metavar="N", help="flows in flight at once")
    load.add_argument("--duration", type=positive_float, required=True, metavar="SEC", help="how long to start flows")
    load.add_argument("--rate", type=positive_float, metavar="R", help="start at most R flows per second")
    load.add_argument("--bearer", help="Authorization: Bearer token")
    load.add_argument("--timeout", type=positive_float, default=defaults.REPLAY_TIMEOUT, metavar="SEC",
                      help="per request (default 30)")
    load.add_argument("--client", choices=("auto", "raw", "httpx"), default="auto",
                      help="raw: lean keep-alive HTTP/1.1 connections (auto for http://); httpx: one pooled "
                           "httpx.AsyncClient (auto for https://)")
    load.add_argument("--json", action="store_true", help="print the report as JSON")
