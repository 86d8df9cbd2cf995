"""`mrtr-studio diff A B [--exit-code] [--json]`: two servers or recordings compared (studio/server_diff.py).

A and B are each a trace file (.mrtr.json: its flows, and any listings it recorded), a saved
`mrtr-studio list --json` document (an interface snapshot: `diff before.json URL --exit-code` is a
drift gate), or a live server (`http(s)://…`, `stdio:COMMAND`, `memory:`, listed as `list` does). The report lists the
interface differences (discovery, each tool, prompt, resource, template and skill) and, between two
recordings, the flow differences (rounds, inputs asked, outcomes). Exit 0; with --exit-code, 1 when
they differ; 2 for bad input; 1 when a live server cannot be reached.
"""

import argparse
import asyncio
import json
import sys
from typing import Any

from ..protocol.peer_text import printable
from ..studio.server_diff import Side, compare, report_text, trace_side
from ..trace import files
from ..trace.store import link_replies
from .check_report import terminal_text
from .list_cmd import LISTINGS, fetch_interface
from .targets import UsageError

LIVE = ("http://", "https://", "stdio:")
MAX_LISTING_BYTES = 64 * 1024 * 1024


class _Unreachable(Exception):
    pass


def side_of(source: str, bearer: str | None) -> Side:
    if source.startswith(LIVE) or source == "memory:":
        try:
            interface = asyncio.run(fetch_interface(source, bearer))
        except UsageError:
            raise
        except Exception as exc:
            raise _Unreachable(f"{source}: {type(exc).__name__}: {exc}") from exc
        return Side(source, interface.server, interface.listings, None)
    snapshot = _listing_file(source)
    if snapshot is not None:
        listings = {name: value if isinstance(value := snapshot.get(name), list) else None for name in LISTINGS}
        server = snapshot.get("server")
        return Side(source, server if isinstance(server, dict) else {}, listings, None)
    try:
        operations, messages = files.open_trace(source)
    except ValueError as exc:
        raise UsageError(f"{exc} (A and B are trace files, `list --json` files, or http(s)://…, stdio:COMMAND, "
                         "memory:)") from exc
    return trace_side(source, operations, link_replies(sorted(messages, key=lambda m: m.seq)))


def _listing_file(source: str) -> dict[str, Any] | None:
    """A saved `mrtr-studio list --json` document, or None for anything else (a trace is read elsewhere)."""
    try:
        with open(source, "rb") as handle:
            head = handle.read(MAX_LISTING_BYTES + 1)
    except OSError:
        return None
    if len(head) > MAX_LISTING_BYTES or b'"format"' in head[:200]:
        return None
    try:
        document = json.loads(head)
    except (ValueError, RecursionError):
        return None
    if isinstance(document, dict) and "tools" in document and "era" in document and "format" not in document:
        return document
    return None


def run_diff(args: argparse.Namespace) -> int:
    try:
        a, b = side_of(args.a, args.bearer), side_of(args.b, args.bearer)
    except UsageError as exc:
        print(f"mrtr-studio diff: {exc}", file=sys.stderr)
        return 2
    except _Unreachable as exc:
        print(f"mrtr-studio diff: {printable(str(exc), 4000)}", file=sys.stderr)
        return 1
    report = compare(a, b)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(terminal_text(report_text(report)).replace("\\x0a", "\n"))
    return 1 if args.exit_code and report.differs else 0
