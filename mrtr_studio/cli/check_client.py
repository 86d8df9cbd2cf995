"""`mrtr-studio check-client (--listen HOST:PORT | -- COMMAND ARGS...)`: grade a client's retry loop.

Serves the demo engine on Streamable HTTP (both eras), lets the client under test run against it,
and grades what it sent from the recorded, stitched and linted trace: the state echoed byte for
byte, a new id per retry, answers keyed like the requests and valid against their requestedSchema,
no MRTR data on a first (or parallel) request, every client message valid against the schema, and
at least one flow retried to the end. With `-- COMMAND`, the URL is in `$MRTR_STUDIO_URL` and
replaces `{url}` in the arguments; grading starts when the command exits (or is stopped after
--timeout). With `--listen`, grading starts on Ctrl+C / SIGTERM (or after --timeout).
"""

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from typing import Any

from ..engine import MrtrOptions, ServerOptions
from ..proxy.stitch import Stitcher
from ..scenarios.demo import build_demo_server
from ..trace import TraceStore, files, lint
from ..transport.base import Tap
from ..transport.http_host import Serving
from .check_report import CheckResult, any_must_failed, json_document, print_table, verdict_for, wire, write_junit

#: (check id, what the client must do, the lint rules that break it, the side they judge).
GRADES: tuple[tuple[str, str, frozenset[str], str], ...] = (
    ("state-echo", "the retry echoes the requestState byte for byte",
     frozenset({lint.STATE_NOT_ECHOED, lint.STATE_ALTERED, lint.STATE_INVENTED}), "client->server"),
    ("new-id", "every retry has a new JSON-RPC id", frozenset({lint.REUSED_ID}), "client->server"),
    ("answer-keys", "inputResponses are keyed like the inputRequests", frozenset({lint.RESPONSE_KEYS}),
     "client->server"),
    ("answer-schema", "every accepted answer fits its requestedSchema", frozenset({lint.ANSWER_SCHEMA}),
     "client->server"),
    ("no-mrtr-on-first-call", "no inputResponses or requestState on a first or parallel request",
     frozenset({lint.MRTR_LEAK}), "client->server"),
    ("schema-valid", "every message the client sent is valid against the shipped schema",
     frozenset({lint.SCHEMA_INVALID}), "client->server"),
)


def grade(store: TraceStore) -> list[CheckResult]:
    results = []
    for check_id, title, rules, side in GRADES:
        hits = [(m, f) for m in store.messages if m.direction == side for f in m.findings
                if f.rule in rules and f.severity != "info"]
        evidence = [f"round {m.round} of {store.operation(m.operation_id).target}: {f.message} | "
                    + wire("->", m.message) for m, f in hits[:3]]
        results.append(CheckResult(check_id, title, "MUST", verdict_for(not hits, "MUST"),
                                   f"{len(hits)} finding(s)" if hits else "", evidence))
    retried = [op for op in store.operations if op.rounds >= 2]
    finished = [op for op in retried if op.outcome == "complete"]
    detail = f"{len(store.operations)} operation(s), {len(retried)} retried, {len(finished)} completed after a retry"
    results.append(CheckResult("retry-loop", "at least one input_required flow is retried to completion", "MUST",
                               verdict_for(bool(finished), "MUST"), detail))
    return results


async def serve_and_watch(args: argparse.Namespace, store: TraceStore) -> int | None:
    """Serve until the command exits (its status) or the listener is stopped (None)."""
    tap = Tap()
    tap.listen(Stitcher(store, "check-client", "client under test"))
    server = build_demo_server(ServerOptions(mrtr=MrtrOptions(explain_rejections=True)))
    host, port = args.listen if args.listen else ("127.0.0.1", 0)
    serving = Serving(server, tap=tap, host=host)
    url = await serving.start(port)
    print(f"listening on {url}", file=sys.stderr if args.json else sys.stdout, flush=True)
    try:
        command = args.client_command[1:] if args.client_command[:1] == ["--"] else args.client_command
        if command:
            argv = [part.replace("{url}", url) for part in command]
            proc = await asyncio.create_subprocess_exec(*argv, env={**os.environ, "MRTR_STUDIO_URL": url},
                                                        stdin=asyncio.subprocess.DEVNULL)
            try:
                return await asyncio.wait_for(proc.wait(), args.timeout)
            except TimeoutError:
                proc.kill()
                await proc.wait()
                return None
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), args.timeout)
        return None
    finally:
        await serving.stop()


def run_check_client(args: argparse.Namespace) -> int:
    command = args.client_command[1:] if args.client_command[:1] == ["--"] else args.client_command
    if bool(command) == bool(args.listen):
        print("mrtr-studio check-client: give either --listen HOST:PORT or -- COMMAND ARGS...", file=sys.stderr)
        return 2
    store = TraceStore()
    lint.attach(store)
    try:
        status = asyncio.run(serve_and_watch(args, store))
    except OSError as exc:
        print(f"mrtr-studio check-client: cannot serve: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except FileNotFoundError as exc:
        print(f"mrtr-studio check-client: cannot start the client: {exc}", file=sys.stderr)
        return 1
    results = grade(store)
    target = " ".join(command) if command else f"clients on {args.listen[0]}:{args.listen[1]}"
    if command:
        results.append(CheckResult("client-exit", "the client under test exits with status 0", "SHOULD",
                                   verdict_for(status == 0, "SHOULD"),
                                   "stopped after --timeout" if status is None else f"exit status {status}"))
    if args.trace:
        files.save(args.trace, store)
    if args.junit:
        write_junit(args.junit, target, results, suite="mrtr-studio check-client")
    if args.json:
        document: dict[str, Any] = json_document(target, results)
        print(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        print_table(target, results, sys.stdout)
    return 1 if any_must_failed(results) else 0
