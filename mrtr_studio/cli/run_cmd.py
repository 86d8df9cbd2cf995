"""`mrtr-studio run COLLECTION.json [--env NAME] [--junit FILE] [--sarif FILE] [--json]`: run saved calls
(client/collection.py) one after the other, every round answered from the call's answers, and judge
their assertions.

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
from typing import Any

from ..client import responders as R
from ..client.collection import CollectionError, Outcome, SavedCall, Verdict, judge, load_collection
from ..client.session import ClientSession
from ..client.settings import ClientSettings
from ..transport.base import TransportError, TransportLimits
from .call import make_respond
from .check_report import CheckResult, json_document, print_table, wire, write_junit
from .sarif import write_sarif
from .targets import UsageError, make_transport

SUITE = "mrtr-studio run"


def _asked(rounds: list[Any]) -> list[str]:
    keys: list[str] = []
    for one in rounds:
        result = (one.response or {}).get("result") if isinstance(one.response, dict) else None
        requests = result.get("inputRequests") if isinstance(result, dict) else None
        if isinstance(requests, dict):
            keys += [str(k) for k in requests]
    return keys


async def run_call(call: SavedCall) -> Outcome:
    """Make one saved call, every round, and say what happened (never raises for the server's faults)."""
    settings = ClientSettings(era=call.era, capabilities=frozenset(call.capabilities), bearer_token=call.identity,
                              user=call.identity or "", max_rounds=call.max_rounds, limits=TransportLimits())
    transport, label = make_transport(call.target, call.identity, settings.limits)
    terminal = R.Terminal(sys.stdin, sys.stderr)
    session = ClientSession(transport, settings, make_respond(R.AnswersFile(call.answers), False, terminal),
                            server_label=label)
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
    drive = run.final
    evidence = [wire(f"round {n} {arrow}", message) for n, one in enumerate(drive.rounds, 1)
                for arrow, message in (("->", one.request), ("<-", one.response)) if message is not None]
    return Outcome(drive.ok, drive.result if drive.ok else None, drive.error, len(drive.rounds),
                   _asked(drive.rounds), (time.monotonic() - started) * 1000,
                   problem=None if drive.ok else (drive.problem or drive.outcome), evidence=evidence)


def _results(call: SavedCall, outcome: Outcome) -> list[CheckResult]:
    verdicts = [judge(assertion, outcome) for assertion in call.assertions] or [
        Verdict("completes", outcome.ok, "complete" if outcome.ok else str(outcome.problem))]
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
