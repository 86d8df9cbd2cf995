"""`mrtr-studio run COLLECTION.json [--env NAME] [--junit FILE] [--sarif FILE] [--json]`: run saved calls
(client/collection.py) one after the other, every round answered from the call's answers, and judge
their assertions (client/collection_run.py: the settings, answers, outcome and verdicts the window's
Run collection uses too).

Each assertion is one result in the report (the terminal table, JSON, JUnit and SARIF of `check`,
cli/check_report.py and cli/sarif.py), named `CALL: ASSERTION`; a call without assertions is asserted
to complete. A failed assertion carries the call's rounds as evidence. The calls' identities (bearer
tokens) are masked in every report. Exit 0 when every assertion held, 1 when one failed, 2 for a
collection that cannot be read or run (the place of the problem named).
"""

import argparse
import asyncio
import contextlib
import sys
import time

from ..client.collection import CollectionError, Outcome, SavedCall, load_collection
from ..client.collection_run import outcome_of, respond_for, settings_for, verdicts_for
from ..client.session import ClientSession
from ..transport.base import TransportError, TransportLimits
from .check_report import CheckResult, json_document, print_table, wire, write_junit
from .sarif import write_sarif
from .targets import UsageError, make_transport

SUITE = "mrtr-studio run"


async def run_call(call: SavedCall) -> Outcome:
    """Make one saved call, every round, and say what happened (never raises for the server's faults)."""
    settings = settings_for(call, limits=TransportLimits())
    transport, label = make_transport(call.target, call.identity, settings.limits)
    session = ClientSession(transport, settings, respond_for(call), server_label=label)
    method, target = call.method
    started = time.monotonic()
    try:
        if method == "tools/call" and hasattr(transport, "header_params"):
            with contextlib.suppress(RuntimeError, ConnectionError, TransportError):
                await session.list_tools()  # the tool's x-mcp-header parameters, as `call` learns them
        run = await session.run(method, target, None if method == "resources/read" else call.arguments)
    except Exception as exc:
        return Outcome(False, None, None, 0, [], (time.monotonic() - started) * 1000,
                       problem=f"{type(exc).__name__}: {exc}")
    finally:
        await session.close()
    outcome = outcome_of(run, (time.monotonic() - started) * 1000)
    outcome.evidence = [wire(f"round {n} {arrow}", message) for n, one in enumerate(run.final.rounds, 1)
                        for arrow, message in (("->", one.request), ("<-", one.response)) if message is not None]
    return outcome


def _results(call: SavedCall, outcome: Outcome) -> list[CheckResult]:
    verdicts = verdicts_for(call, outcome)
    what = " ".join(call.method)
    return [CheckResult(f"{call.name}: {v.label}", what, "MUST", "pass" if v.passed else "fail", v.detail,
                        [] if v.passed else outcome.evidence or [str(outcome.problem or "")])
            for v in verdicts]


async def _run_all(calls: list[SavedCall]) -> list[CheckResult]:
    results: list[CheckResult] = []
    for call in calls:
        results += _results(call, await run_call(call))
    return results


def run_collection(args: argparse.Namespace) -> int:
    try:
        calls = load_collection(args.collection, args.env)
        for call in calls:
            if not call.target.startswith(("http://", "https://", "stdio:")) and call.target != "memory:":
                raise UsageError(f"{call.name}: unsupported target {call.target!r}: use http(s)://…, stdio:COMMAND "
                                 "or memory:")
    except (CollectionError, UsageError) as exc:
        print(f"{SUITE}: {exc}", file=sys.stderr)
        return 2
    results = asyncio.run(_run_all(calls))
    # Bearer tokens are secrets; the embedded engine's identity is a principal's name, shown as it is.
    secrets = sorted({call.identity for call in calls if call.identity and call.target != "memory:"})
    target = args.collection + (f" ({args.env})" if args.env else "")
    if args.json:
        import json

        print(json.dumps(json_document(target, results, secrets), indent=2, ensure_ascii=False))
    else:
        print_table(target, results, sys.stdout, secrets)
    try:
        if args.junit:
            write_junit(args.junit, target, results, suite=SUITE, secrets=secrets)
        if args.sarif:
            write_sarif(args.sarif, target, results, secrets)
    except OSError as exc:
        print(f"{SUITE}: cannot write the report: {exc}", file=sys.stderr)
        return 2
    return 1 if any(r.verdict == "fail" for r in results) else 0
