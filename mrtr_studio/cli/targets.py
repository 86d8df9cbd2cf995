"""Where a command connects: the URL forms every command takes (`http(s)://…`, `stdio:COMMAND`,
`memory:` for the embedded engine) turned into a client transport, and the limit flags shared by the
commands that read from a server. `call`, `check`, `list` and the others all use these, so a URL
means the same thing to each of them.
"""

import argparse
import re
import shlex

from ..transport.base import ClientTransport, RequestAuth, TransportLimits

_SIZE = re.compile(r"^\s*(\d+)\s*([kmg]i?b?|b)?\s*$", re.IGNORECASE)


class UsageError(Exception):
    """Bad command-line input: exit 2 with the message."""


def parse_size(text: str) -> int:
    """`--max-body` values: bytes, or with a K/M/G suffix (powers of 1024): `1048576`, `512K`, `16M`."""
    found = _SIZE.match(text)
    if not found or int(found.group(1)) < 1:
        raise UsageError(f"--max-body must be a positive size like 1048576, 512K or 16M, not {text!r}")
    unit = (found.group(2) or "b")[0].lower()
    return int(found.group(1)) * {"b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[unit]


def limits_from(args: argparse.Namespace) -> TransportLimits:
    """The transport limits `call`'s options ask for (defaults from TransportLimits)."""
    base = TransportLimits()
    body = parse_size(args.max_body) if getattr(args, "max_body", None) else base.max_body_bytes
    idle = getattr(args, "timeout", None) or base.idle_timeout
    overall = getattr(args, "request_timeout", None) or base.request_timeout
    if idle <= 0 or overall <= 0:
        raise UsageError("--timeout and --request-timeout must be positive")
    named = "--max-body" if hasattr(args, "max_body") else base.body_limit_name  # the flag that sets it
    return TransportLimits(max_body_bytes=body, max_stream_bytes=max(base.max_stream_bytes, 4 * body),
                           idle_timeout=idle, request_timeout=overall, body_limit_name=named)


def make_transport(url: str, bearer: str | None, limits: TransportLimits | None = None,
                   auth: RequestAuth | None = None) -> tuple[ClientTransport, str]:
    """The transport for a `call` URL, and the label the trace shows for the server (`auth`: OAuth, HTTP only)."""
    limits = limits or TransportLimits()
    if url.startswith(("http://", "https://")):
        from ..transport.http_client import HttpClientTransport

        return HttpClientTransport(url, bearer_token=bearer, limits=limits, auth=auth), url
    if url.startswith("stdio:"):
        from ..transport.stdio_client import StdioClientTransport

        command = shlex.split(url[len("stdio:"):])
        if not command:
            raise UsageError("stdio: needs a command, e.g. stdio:python server.py")
        return StdioClientTransport(command, limits=limits), url
    if url == "memory:":
        from ..engine import ServerOptions
        from ..engine.options import MrtrOptions
        from ..scenarios import build_demo_server
        from ..transport.memory import MemoryTransport

        server = build_demo_server(ServerOptions(mrtr=MrtrOptions(explain_rejections=True)))
        return MemoryTransport(server, user=bearer or ""), "embedded"
    raise UsageError(f"unsupported URL {url!r}: use http(s)://…, stdio:COMMAND ARGS or memory:")
