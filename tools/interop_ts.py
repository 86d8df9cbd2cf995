"""Run the official TypeScript SDK v2 client against `mrtr-studio serve` (part of `make conformance`).

Starts the server on a free loopback port and runs `tests/interop/ts_sdk_client.mjs`, which drives the
pinned `@modelcontextprotocol/client` through each flow (tools/list, dual-era roots, the MRTR retry
loop of `delete_file` and `deploy_wizard`, the tasks extension's `long_report`) and prints one JSON
line per flow. Prints what the SDK completed, and exits non-zero when a flow the SDK supports fails,
or when a flow listed in SDK_LIMITS as unsupported by the SDK fails for another reason.
"""

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from conformance import free_port, start_server, stop_server

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "interop" / "ts_sdk_client.mjs"
#: The client package the script imports, below the `--sdk` node_modules folder.
CLIENT_PACKAGE = Path("@modelcontextprotocol") / "client" / "package.json"
#: Flows the pinned SDK refuses by itself (a typed SdkError), with why. They are reported, not failed;
#: one that passes is reported as stale so the entry is removed.
SDK_LIMITS = {
    "long_report (tasks extension)": "the client has no tasks extension (SEP-2663): a `resultType: \"task\"` "
                                     "answer is rejected as an unsupported result type",
}
#: The most output read from the script (bounded: one peer's output).
MAX_OUTPUT = 1 << 20


@dataclass(frozen=True)
class Flow:
    """One line of the script: a flow at one era, and what happened."""

    flow: str
    era: str
    status: str
    detail: str

    @property
    def label(self) -> str:
        return f"{self.flow} @ {self.era}"


def parse_flows(output: str) -> tuple[list[Flow], list[str]]:
    """The script's JSON lines as flows, and every other non-empty line (noise or a crash)."""
    flows: list[Flow] = []
    other: list[str] = []
    for line in output.splitlines():
        try:
            item = json.loads(line)
            flows.append(Flow(str(item["flow"]), str(item["era"]), str(item["status"]), str(item["detail"])))
        except (ValueError, KeyError, TypeError):
            if line.strip():
                other.append(line)
    return flows, other


def judge(flow: Flow) -> tuple[str, bool]:
    """The mark printed for a flow, and whether it fails the run."""
    limit = SDK_LIMITS.get(flow.flow)
    if flow.status == "passed":
        return ("STALE" if limit else " ok  "), False
    if flow.status == "unsupported" and limit:
        return "n/sdk", False
    return "FAIL ", True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--node", required=True, help="Node >= 22 executable")
    parser.add_argument("--sdk", required=True, type=Path, help="node_modules folder holding the pinned SDK")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds for the whole script")
    args = parser.parse_args()
    package = args.sdk / CLIENT_PACKAGE
    if not package.is_file():
        print(f"TypeScript SDK client not found: {package} (make conformance installs it)")
        return 1
    version = json.loads(package.read_text(encoding="utf-8")).get("version", "?")
    proc, url = start_server(free_port())
    print(f"\nTypeScript SDK client {version} against {url}:")
    try:
        done = subprocess.run([args.node, str(SCRIPT), str(args.sdk), url], capture_output=True, text=True,
                              timeout=args.timeout)
        code, output, errors = done.returncode, done.stdout[:MAX_OUTPUT], done.stderr[-2000:]
    except subprocess.TimeoutExpired:
        code, output, errors = 124, "", f"the script did not finish within {args.timeout:.0f} s"
    finally:
        stop_server(proc)
    flows, other = parse_flows(output)
    failed = 0
    for flow in flows:
        mark, fails = judge(flow)
        failed += fails
        print(f"[{mark}] {flow.label}: {flow.detail}")
        if mark == "n/sdk":
            print(f"          {SDK_LIMITS[flow.flow]}")
        elif mark == "STALE":
            print("          the SDK completes it now: remove it from SDK_LIMITS")
    for line in other:
        print(f"          {line[:300]}")
    if code != 0 or not flows:
        print(f"[FAIL ] the script exited {code} after {len(flows)} flow(s): {errors.strip()}")
        failed += 1
    passed = sum(f.status == "passed" for f in flows)
    print(f"TypeScript SDK: {passed} of {len(flows)} flows completed, {failed} failure(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
