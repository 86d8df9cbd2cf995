"""`mrtr-studio trace filter|export|copy FILE ...`: the recorded trace, filtered, exported, copied.

- `filter FILE EXPR [--json] [--operations]`: the matching messages, one line each (`--json`: JSON
  lines, each message's record as in the file); exit 0 when something matched, 1 when nothing did
  (grep's convention), 2 for a bad filter (the position and what was expected).
- `export FILE (--har|--otlp|--html|--markdown|--mermaid OUT) [--redact PROFILE|FILE] [--op ID] [--filter EXPR]`:
  the profile's count of what it masked goes to stderr (trace/redaction_profiles.py).
- `copy FILE --seq N --as curl|httpie|httpx|fetch|call [--redact PROFILE|FILE] [--reveal NAME:VALUE]`.

Every file written holds traffic: 0600 (trace/private_files.py). Peer text printed to the terminal goes
through terminal_text.
"""

import argparse
import json
import sys
from typing import Any

from ..trace import files
from ..trace.filter import FilterError, compile_filter
from ..trace.model import Operation, TraceMessage
from ..trace.private_files import write_private
from ..trace.redaction_profiles import ProfileError, RedactionProfile, load_profile, redact_trace
from .check_report import terminal_text

PROG = "mrtr-studio trace"


class _Usage(Exception):
    pass


def _open(path: str) -> tuple[list[Operation], list[TraceMessage]]:
    try:
        operations, messages = files.open_trace(path)
    except ValueError as exc:
        raise _Usage(str(exc)) from exc
    from ..trace.store import link_replies

    return operations, link_replies(sorted(messages, key=lambda m: m.seq))


def _filter_text(flag: str, text: str) -> Any:
    try:
        return compile_filter(text)
    except FilterError as exc:
        pointer = " " * min(exc.position, 200) + "^"
        raise _Usage(f"{flag}: {exc}\n  {terminal_text(text[:200])}\n  {pointer}") from exc


def summary(entry: TraceMessage, limit: int = 160) -> str:
    """One line: seq, operation, round, direction, kind, method, and the start of the message."""
    arrow = "->" if entry.direction == "client->server" else "<-"
    body = entry.message_json().decode("utf-8", "replace")
    if len(body) > limit:
        body = body[:limit] + "…"
    return terminal_text(f"{entry.seq:>6} {entry.operation_id} r{entry.round} {arrow} {entry.kind:<15} "
                         f"{entry.method_name or '-'} {body}")


def run_filter(args: argparse.Namespace) -> int:
    compiled = _filter_text("EXPR", args.expression)
    operations, messages = _open(args.file)
    bound = compiled.bind(operations, messages)
    out = sys.stdout
    if args.operations:
        found = [op for op in operations if bound.matches_operation(op)]
        for op in found:
            if args.json:
                out.write(json.dumps(op.to_json(), ensure_ascii=False) + "\n")
            else:
                out.write(terminal_text(f"{op.id} {op.method} {op.target} era={op.era} rounds={op.rounds} "
                                        f"outcome={op.outcome}") + "\n")
        return 0 if found else 1
    count = 0
    for entry in messages:
        if not bound.matches(entry):
            continue
        count += 1
        out.write(json.dumps(entry.to_json(), ensure_ascii=False) + "\n" if args.json else summary(entry) + "\n")
    return 0 if count else 1


def _chosen(args: argparse.Namespace, operations: list[Operation], messages: list[TraceMessage],
            ) -> tuple[list[Operation], list[TraceMessage]]:
    if args.filter:
        bound = _filter_text("--filter", args.filter).bind(operations, messages)
        operations = [op for op in operations if bound.matches_operation(op)]
    if args.op:
        operations = [op for op in operations if args.op in (op.id, op.label)]
        if not operations:
            raise _Usage(f"--op: no operation {args.op!r} in {args.file}")
    kept = {op.id for op in operations}
    return operations, [m for m in messages if m.operation_id in kept]


def run_export(args: argparse.Namespace) -> int:
    profile = _profile(args.redact)
    redaction = profile.headers_redaction
    operations, messages = _chosen(args, *_open(args.file))
    redacted = redact_trace(operations, messages, profile)
    operations, messages = redacted.operations, redacted.messages
    note = ""
    if args.har:
        from ..trace.har import to_har

        har = to_har(operations, messages, redaction)
        out, text = args.har, json.dumps(har.document, ensure_ascii=False, indent=1)
        note = f"{har.entries} HTTP exchanges" + (f"; {har.skipped} messages not sent over HTTP left out"
                                                   if har.skipped else "")
    elif args.otlp:
        from ..trace.otlp import otlp_text

        text, spans = otlp_text(operations, messages)
        out, note = args.otlp, f"{spans} spans"
    elif args.mermaid:
        from ..trace.mermaid import to_mermaid

        if len(operations) != 1:
            ids = ", ".join(op.id for op in operations[:10])
            raise _Usage(f"--mermaid draws one operation and {args.file} has {len(operations)}: pick one with "
                         f"--op ID ({ids})")
        out, text = args.mermaid, to_mermaid(operations[0], messages, timings=True)
    else:
        from ..trace import html_export
        from ..trace.mermaid import to_mermaid

        by_op: dict[str, list[TraceMessage]] = {}
        for entry in messages:
            by_op.setdefault(entry.operation_id, []).append(entry)
        sections = [html_export.Section(f"{op.method} {op.target}", op, by_op.get(op.id, [])) for op in operations]
        title = f"MRTR Studio trace: {args.file.rsplit('/', 1)[-1]}"
        if args.html:
            out, text = args.html, html_export.page(title, sections)
        else:
            diagrams = {op.id: to_mermaid(op, by_op.get(op.id, [])) for op in operations}
            out, text = args.markdown, html_export.markdown(title, sections, mermaid=diagrams)
    try:
        write_private(out, text)
    except OSError as exc:
        raise _Usage(f"cannot write {out}: {exc.strerror or exc}") from exc
    print(f"wrote {out}" + (f" ({note})" if note else ""), file=sys.stderr)
    print(terminal_text(f"masked ({profile.name}): {redacted.tally.summary()}"), file=sys.stderr)
    return 0


def _profile(spec: str) -> RedactionProfile:
    """--redact: default, none, or a profile file (trace/redaction_profiles.py)."""
    try:
        return load_profile(spec, "--redact")
    except ProfileError as exc:
        raise _Usage(str(exc)) from exc


def run_copy(args: argparse.Namespace) -> int:
    from ..trace.copy_as import CopyError, copy_as

    credentials: dict[str, str] = {}
    for item in args.reveal:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise _Usage(f"--reveal: expected NAME:VALUE (e.g. 'Authorization:Bearer TOKEN'), not {item!r}")
        credentials[name.strip()] = value.strip()
    operations, messages = _open(args.file)
    entry = next((m for m in messages if m.seq == args.seq), None)
    if entry is None:
        raise _Usage(f"--seq: no message {args.seq} in {args.file} (seq runs "
                     f"{messages[0].seq}..{messages[-1].seq})" if messages else f"--seq: {args.file} has no messages")
    operation = next((op for op in operations if op.id == entry.operation_id), None)
    # The profile masks the body's credentials either way; a revealed header is put back by copy_as, after it.
    redacted = redact_trace([operation] if operation else [], [entry], _profile(args.redact))
    entry, operation = redacted.messages[0], (redacted.operations[0] if redacted.operations else None)
    try:
        sys.stdout.write(copy_as(entry, args.style, operation, reveal=bool(credentials), credentials=credentials))
    except CopyError as exc:
        raise _Usage(f"--seq {args.seq}: {exc}") from exc
    return 0


def run_trace(args: argparse.Namespace) -> int:
    command = {"filter": run_filter, "export": run_export, "copy": run_copy}[args.trace_command]
    try:
        return command(args)
    except _Usage as exc:
        print(f"{PROG} {args.trace_command}: {exc}", file=sys.stderr)
        return 2
