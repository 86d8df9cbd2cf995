"""`mrtr-studio diff A B [--exit-code] [--json] [--sarif FILE]`: two servers or recordings compared
(studio/server_diff.py).

A and B are each a trace file (.mrtr.json: its flows, and any listings it recorded), a saved
`mrtr-studio list --json` document (an interface snapshot: `diff before.json URL --exit-code` is a
drift gate), or a live server (`http(s)://…`, `stdio:COMMAND`, `memory:`, listed as `list` does). The report lists the
interface differences (discovery, each tool, prompt, resource, template and skill) and, between two
recordings, the flow differences (rounds, inputs asked, outcomes). Exit 0; with --exit-code, 1 when
they differ; 2 for bad input; 1 when a live server cannot be reached. Each difference has a severity
(breaking, warning, info: studio/diff_severity.py); --sarif writes them as SARIF (studio/diff_report_files.py,
which the window's Compare servers writes through too).
"""

import argparse
import asyncio
import json
import sys

from ..protocol.peer_text import printable
from ..studio.diff_report_files import write_report
from ..studio.diff_sides import file_side, interface_side
from ..studio.server_diff import Side, compare, report_text
from .check_report import terminal_text
from .list_cmd import fetch_interface
from .targets import UsageError

LIVE = ("http://", "https://", "stdio:")


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
        return interface_side(source, interface)
    try:
        return file_side(source)
    except ValueError as exc:
        raise UsageError(f"{exc} (A and B are trace files, `list --json` files, or http(s)://…, stdio:COMMAND, "
                         "memory:)") from exc


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
    if args.sarif:
        try:
            write_report(args.sarif, report, "sarif")
        except OSError as exc:
            print(f"mrtr-studio diff: --sarif: cannot write {args.sarif}: {exc}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(terminal_text(report_text(report)).replace("\\x0a", "\n"))
    return 1 if args.exit_code and report.differs else 0
