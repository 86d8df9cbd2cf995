"""`check --write-baseline FILE` and `check --baseline FILE`: the interface drift gate.

A baseline is what `mrtr-studio list --json` prints (discovery and every listing). `--write-baseline`
records the server's current one (0600); `--baseline` lists the server again and compares with
studio/server_diff.py: one MUST result, `interface-drift`, failing with each counted difference as its
evidence (serverInfo changes are only shown), so `check URL --baseline FILE` exits 1 on drift and
JUnit/SARIF carry it. Used without `--tool`, check runs only this.
"""

import argparse
import asyncio
import json
from typing import Any

from ..studio.diff_sides import snapshot_side
from ..studio.server_diff import compare
from ..trace.private_files import write_private
from .check_report import CheckResult
from .list_cmd import fetch_interface
from .targets import UsageError

MAX_BASELINE_BYTES = 64 * 1024 * 1024


def wanted(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "baseline", None) or getattr(args, "write_baseline", None))


def load_baseline(args: argparse.Namespace) -> dict[str, Any] | None:
    """The `--baseline` document (UsageError naming the flag when it cannot be used)."""
    path = getattr(args, "baseline", None)
    if not path:
        return None
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_BASELINE_BYTES + 1)
        document = json.loads(raw)
    except (OSError, ValueError, RecursionError) as exc:
        raise UsageError(f"--baseline: cannot read {path}: {exc}") from exc
    if len(raw) > MAX_BASELINE_BYTES or not isinstance(document, dict) or "tools" not in document:
        raise UsageError(f"--baseline: {path} is not a `mrtr-studio list --json` document")
    return document


def baseline_results(args: argparse.Namespace, baseline: dict[str, Any] | None) -> list[CheckResult]:
    """List the server once; write and/or compare. Raises what fetch_interface raises when unreachable."""
    bearer = next((token for token in getattr(args, "identity", []) if token), None)
    current = asyncio.run(fetch_interface(args.url, bearer, timeout=getattr(args, "timeout", None))).to_json()
    if getattr(args, "write_baseline", None):
        write_private(args.write_baseline, json.dumps(current, indent=2, ensure_ascii=False) + "\n")
    if baseline is None:
        return []
    report = compare(snapshot_side(args.baseline, baseline), snapshot_side(args.url, current))
    counted = [change for change in report.changes if change.counted]
    evidence = [f"{c.area}: {c.subject}: {c.what}" for c in counted]
    return [CheckResult("interface-drift", f"the interface matches the baseline {args.baseline}", "MUST",
                        "fail" if counted else "pass",
                        f"{len(counted)} difference(s)" if counted else "no differences", evidence)]
