"""The flags of the commands for your own clients and servers (proxy, check, wrap, check-client).

Kept apart from the commands themselves so that building the parser imports nothing heavy: every
`mrtr-studio` process builds it, and `call memory:` should not pay for the proxy's imports.
"""

import argparse
from typing import Any

from .auth import add_oauth_flags


def split_listen(text: str) -> tuple[str, int]:
    """`HOST:PORT` (or `[v6]:PORT`, or `PORT` alone for 127.0.0.1) -> (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def add_proxy_parser(commands: Any) -> None:
    proxy = commands.add_parser("proxy", help="a recording reverse proxy in front of a Streamable HTTP server")
    proxy.add_argument("--listen", type=split_listen, default=("127.0.0.1", 8766), metavar="HOST:PORT",
                       help="where clients connect (default 127.0.0.1:8766; port 0 picks a free one)")
    proxy.add_argument("--upstream", metavar="URL", help="the real server's MCP endpoint (reverse proxy)")
    proxy.add_argument("--forward", action="store_true",
                       help="a forward proxy instead: clients set HTTP_PROXY and keep the server's URL (plain http; "
                            "https CONNECT is refused, it would be tunnelled unrecorded)")
    proxy.add_argument("--trace", metavar="FILE", help="record to FILE (.mrtr.json; journaled while running)")
    proxy.add_argument("--quiet", action="store_true", help="no line per finished operation")
    proxy.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       help="a Host (NAME or NAME:PORT) the proxy answers to besides its own address (repeatable; "
                            "any other Host gets 421, any other Origin 403; '*' turns the Host check off)")
    proxy.add_argument("--redact", action="append", default=[], metavar="NAME",
                       help="one more header or query parameter whose value the trace masks (repeatable)")
    proxy.add_argument("--redaction", choices=("default", "none"), default="default",
                       help="'none' records credential headers unmasked (only when you ask for it)")


def add_check_parser(commands: Any) -> None:
    check = commands.add_parser("check", help="check a server's MRTR behaviour (exit 1 when a MUST fails)")
    check.add_argument("url", help="http(s)://…/mcp, stdio:COMMAND or memory:")
    check.add_argument("--tool", action="append", default=[], metavar="NAME",
                       help="a tool to check (repeatable); it is called for real, with --args")
    check.add_argument("--args", action="append", default=[], metavar="JSON",
                       help="the arguments of the --tool before it, as a JSON object")
    check.add_argument("--identity", action="append", default=[], metavar="TOKEN",
                       help="bearer token to act as; a second one enables the other-identity attack (with "
                            "--oauth, the OAuth identity comes first and one --identity is the other)")
    check.add_argument("--json", action="store_true", help="print the results as JSON")
    check.add_argument("--junit", metavar="FILE", help="write JUnit XML for CI")
    check.add_argument("--sarif", metavar="FILE", help="write SARIF 2.1.0 for code-scanning dashboards")
    check.add_argument("--trace", metavar="FILE", help="save everything sent and received (.mrtr.json)")
    check.add_argument("--timeout", type=float, default=30.0, metavar="SEC", help="per request (default 30)")
    check.add_argument("--fail-on", action="append", choices=["deprecated"], default=[], metavar="deprecated",
                       help="also fail (exit 1) when a feature 2026-07-28 deprecates is used (roots, sampling, "
                            "logging, Dynamic Client Registration)")
    add_oauth_flags(check)


def add_wrap_parser(commands: Any) -> None:
    wrap = commands.add_parser("wrap", help="run a stdio server, relaying and recording its traffic")
    wrap.add_argument("--trace", metavar="FILE", help="the trace file (default: traces/ in the studio's home)")
    wrap.add_argument("--no-feed", action="store_true", help="do not stream to a running studio")
    wrap.add_argument("--verbose", action="store_true", help="say on stderr where the trace went")
    wrap.add_argument("server_command", nargs=argparse.REMAINDER, metavar="-- COMMAND ARGS...")


def add_wrap_config_parser(commands: Any) -> None:
    config = commands.add_parser("wrap-config", help="route an mcpServers config through wrap / proxy")
    config.add_argument("file", help="the client's config (Claude Desktop, VS Code mcp.json, Cursor, ...)")
    config.add_argument("--undo", action="store_true", help="put the original bytes back")
    config.add_argument("--python", help="interpreter the wrapped entries run (default: this one)")
    config.add_argument("--first-port", type=int, default=None,
                        help="first local port to try for proxied URLs (default: free ports the system picks)")
    config.add_argument("--force", action="store_true",
                        help="with --undo: restore even when the config changed since (the edited file is kept)")
    config.add_argument("--include-credentialed", action="store_true",
                        help="also route https entries that carry credentials (headers, tokens in the URL)")


def add_check_client_parser(commands: Any) -> None:
    check = commands.add_parser("check-client", help="serve the demo engine and grade a client's retry loop")
    check.add_argument("--listen", type=split_listen, metavar="HOST:PORT", help="serve here until Ctrl+C")
    check.add_argument("--timeout", type=float, default=120.0, metavar="SEC",
                       help="stop the client (or the listener) after this long (default 120)")
    check.add_argument("--json", action="store_true", help="print the results as JSON")
    check.add_argument("--junit", metavar="FILE", help="write JUnit XML for CI")
    check.add_argument("--sarif", metavar="FILE", help="write SARIF 2.1.0 for code-scanning dashboards")
    check.add_argument("--trace", metavar="FILE", help="save the client's traffic (.mrtr.json)")
    check.add_argument("client_command", nargs=argparse.REMAINDER, metavar="-- COMMAND ARGS...",
                       help="the client to run; {url} and $MRTR_STUDIO_URL give it the server's URL")
