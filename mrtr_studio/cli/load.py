"""`mrtr-studio load URL --tool NAME --concurrency N --duration SEC`: real MRTR flows under load
(mrtr_studio/replay/load.py runs them and keeps the figures).

Stdout: flows/s, then p50/p90/p99 per round and for the whole flow, errors by code and reason, and
per node when the server names itself in `x-served-by`; `--json` prints the same as one document.
Exit 0 when every flow completed, 1 when some failed, 2 for bad input.
"""

import argparse
import asyncio
import json
import sys
from typing import Any

from ..client.responders import AnswersFile
from ..protocol.peer_text import printable
from ..replay.load import LoadPlan, LoadReport, LoadRun, Workload


def _figures(stats: dict[str, Any]) -> str:
    if not stats.get("count"):
        return "no samples"
    return f"p50 {stats['p50']:.2f} ms, p90 {stats['p90']:.2f} ms, p99 {stats['p99']:.2f} ms ({stats['count']})"


def _tally_lines(tally: dict[str, Any], indent: str) -> list[str]:
    lines = [f"{indent}round {number}: {_figures(stats)}" for number, stats in tally["rounds"].items()]
    lines.append(f"{indent}flow: {_figures(tally['flow'])}")
    lines += [f"{indent}error {label}: {count}" for label, count in tally["errors"].items()]
    return lines


def describe(report: LoadReport) -> str:
    document = report.to_json()
    lines = [f"{document['completed']} flow(s) completed, {document['failed']} failed in {document['seconds']:.2f} s: "
             f"{document['flows_per_second']:.1f} flows/s ({report.plan.work.concurrency} concurrent)"]
    lines += _tally_lines(document, "  ")
    for node, tally in document["nodes"].items():
        lines.append(f"  node {node}:")
        lines += _tally_lines(tally, "    ")
    return "\n".join(printable(line, 2000) for line in lines)


def run_load(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args)
        if not isinstance(arguments, dict):
            raise ValueError(f"--args must be a JSON object, not {args.args!r}")
        if not args.url.startswith(("http://", "https://")):
            raise ValueError(f"URL must be http(s)://…, not {args.url!r}")
        if args.client == "raw" and not args.url.startswith("http://"):
            raise ValueError("--client raw speaks http:// only; use --client httpx for https://")
        answers = AnswersFile.load(args.answers) if args.answers else None
    except ValueError as exc:
        print(f"mrtr-studio load: {exc}", file=sys.stderr)
        return 2
    plan = LoadPlan(args.url, Workload(args.tool, arguments, args.concurrency, args.duration, args.rate), answers,
                    args.bearer, args.timeout)
    report = asyncio.run(LoadRun(plan, client=args.client).run())
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        print(describe(report))
    return 0 if report.failed == 0 and report.completed > 0 else 1
