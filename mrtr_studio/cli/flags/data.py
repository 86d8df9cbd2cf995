"""The flags of the commands over recorded and live data: trace filter/export/copy, list, diff, run.

Kept apart from the commands (as flags/own.py is) so building the parser imports nothing heavy.
"""

from typing import Any

EXPORT_FORMATS = ("har", "otlp", "html", "markdown", "mermaid")
COPY_STYLES = ("curl", "httpie", "httpx", "fetch", "call")


def add_trace_parser(commands: Any) -> None:
    trace = commands.add_parser("trace", help="filter, export and copy from a recorded trace (.mrtr.json)")
    sub = trace.add_subparsers(dest="trace_command", required=True)
    filtering = sub.add_parser("filter", help="the messages of a trace that match a filter expression")
    filtering.add_argument("file", help="a trace file (.mrtr.json)")
    filtering.add_argument("expression", help="e.g. 'tool:delete_file round:>1 kind:error -kind:auth'")
    filtering.add_argument("--json", action="store_true", help="the matching messages as JSON lines")
    filtering.add_argument("--operations", action="store_true", help="list the matching operations instead")

    export = sub.add_parser("export", help="write a trace as HAR, OTLP/JSON, HTML, Markdown or Mermaid")
    export.add_argument("file", help="a trace file (.mrtr.json)")
    formats = export.add_mutually_exclusive_group(required=True)
    for name in EXPORT_FORMATS:
        formats.add_argument(f"--{name}", metavar="OUT", help=f"write {name.upper() if len(name) < 5 else name} "
                                                               "to OUT")
    export.add_argument("--redact", default="default", metavar="PROFILE",
                        help="the redaction profile: default (credentials masked), none (only what the "
                             "recorder masked) or a profile file (JSON: headers, paths, patterns)")
    export.add_argument("--op", metavar="ID", help="only this operation (id or label); Mermaid draws one")
    export.add_argument("--filter", metavar="EXPR", help="only the operations this filter matches")

    copy = sub.add_parser("copy", help="a recorded request as curl, httpie, httpx, fetch or mrtr-studio call")
    copy.add_argument("file", help="a trace file (.mrtr.json)")
    copy.add_argument("--seq", type=int, required=True, metavar="N", help="the message's sequence number")
    copy.add_argument("--as", dest="style", choices=COPY_STYLES, required=True)
    copy.add_argument("--redact", default="default", metavar="PROFILE",
                      help="the redaction profile: default, none or a profile file (JSON)")
    copy.add_argument("--reveal", action="append", default=[], metavar="NAME:VALUE",
                      help="put this credential header's real value in place of the mask (repeatable)")


def add_list_parser(commands: Any) -> None:
    listing = commands.add_parser("list", help="a server's tools, prompts, resources and skills")
    listing.add_argument("url", help="http(s)://…/mcp, stdio:COMMAND or memory:")
    listing.add_argument("--json", action="store_true", help="print everything listed as one JSON document")
    listing.add_argument("--era", choices=["modern", "legacy", "auto"], default="auto")
    listing.add_argument("--bearer", help="Authorization: Bearer token")
    listing.add_argument("--timeout", type=float, metavar="SEC", help="per request (default 30)")


def add_diff_parser(commands: Any) -> None:
    diff = commands.add_parser("diff", help="compare two servers or traces: interfaces and flows")
    diff.add_argument("a", help="a trace file (.mrtr.json) or a server (http(s)://…, stdio:COMMAND, memory:)")
    diff.add_argument("b", help="the same, to compare with")
    diff.add_argument("--exit-code", action="store_true", help="exit 1 when they differ")
    diff.add_argument("--json", action="store_true", help="the differences as JSON")
    diff.add_argument("--bearer", help="Authorization: Bearer token for live servers")
    diff.add_argument("--sarif", metavar="FILE", help="also write the differences as SARIF 2.1.0")


def add_run_parser(commands: Any) -> None:
    run = commands.add_parser("run", help="run a collection of saved calls and check their assertions")
    run.add_argument("collection", help="COLLECTION.json")
    run.add_argument("--env", metavar="NAME", help="the environment whose ${VAR} values to use")
    run.add_argument("--junit", metavar="FILE", help="write JUnit XML for CI")
    run.add_argument("--sarif", metavar="FILE", help="write SARIF 2.1.0")
    run.add_argument("--json", action="store_true", help="print the results as JSON")
