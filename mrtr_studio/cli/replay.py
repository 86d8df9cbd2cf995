"""`mrtr-studio replay TRACE --against URL [--exit-code] [--json]`: the recorded client's flows against
another server, every round compared (mrtr_studio/replay/against.py does the playing and comparing).

Stdout: one line per flow (`same` or `DIFFERS`), then per round the kinds, the inputs asked, the
timings (recorded and now) and each difference; `--json` prints `{"flows": [...], "differs": bool}`.
Exit 0, or 1 with `--exit-code` when anything differs (or the server cannot be reached); 2 for usage.
"""

import argparse
import asyncio
import json
import sys
from typing import Any

from ..protocol.peer_text import printable
from ..replay import playing
from ..replay.against import FlowReport
from ..replay.recording import RecordedFlow, load_recording
from ..transport.base import ClientTransport, TransportLimits
from .targets import UsageError, make_transport


async def play(flows: list[RecordedFlow], url: str, bearer: str | None, timeout: float) -> list[FlowReport]:
    limits = TransportLimits(idle_timeout=timeout, request_timeout=max(timeout, 1.0))

    async def open_transport() -> ClientTransport:
        return make_transport(url, bearer, limits)[0]

    return await playing.play(flows, open_transport)


def _ms(value: float | None) -> str:
    return "?" if value is None else f"{value:.1f} ms"


def describe(reports: list[FlowReport]) -> str:
    lines = []
    for report in reports:
        verdict = "DIFFERS" if report.differs else "same"
        lines.append(f"{report.label} ({report.era}, recorded {report.operation_id}): {verdict}; "
                     f"{report.outcome}, recorded {report.recorded_outcome}")
        for r in report.rounds:
            asked = f" asked {', '.join(r.asked)}" if r.asked else ""
            lines.append(f"  round {r.number}: {r.kind}{asked} in {_ms(r.ms)} (recorded {r.recorded_kind} in "
                         f"{_ms(r.recorded_ms)})")
            lines += [f"    differs: {d}" for d in r.differences]
        lines += [f"  differs: {d}" for d in report.differences]
    return "\n".join(printable(line, 4000) for line in lines)


def run_replay(args: argparse.Namespace) -> int:
    try:
        flows = load_recording(args.trace)
        if not args.against.startswith(("http://", "https://", "stdio:")):
            raise UsageError(f"--against must be http(s)://… or stdio:COMMAND, not {args.against!r}")
    except (UsageError, ValueError) as exc:
        print(f"mrtr-studio replay: {printable(str(exc), 2000)}", file=sys.stderr)
        return 2
    try:
        reports = asyncio.run(play(flows, args.against, args.bearer, args.timeout))
    except Exception as exc:  # the server could not be reached or refused the handshake
        print(f"mrtr-studio replay: {printable(f'{type(exc).__name__}: {exc}', 2000)}", file=sys.stderr)
        return 1
    differs = any(r.differs for r in reports)
    if args.json:
        document: dict[str, Any] = {"flows": [r.to_json() for r in reports], "differs": differs}
        print(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        print(describe(reports))
        print(f"{sum(r.differs for r in reports)} of {len(reports)} flow(s) differ", file=sys.stderr)
    return 1 if differs and args.exit_code else 0
