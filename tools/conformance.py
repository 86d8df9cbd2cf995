"""Run the official MCP conformance suite against `mrtr-studio serve` (the `make conformance` target).

Starts the server on a free port, runs every server scenario below one by one (so one hang
cannot hide the others), prints a compact summary and exits non-zero on any FAILURE. Client
scenarios run our client under the suite's mock server; each is skipped with a note while its
command does not exist yet.
"""

import argparse
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVE = [str(ROOT / ".venv" / "bin" / "mrtr-studio"), "serve", "--host", "127.0.0.1"]

SERVER_SCENARIOS = [
    "input-required-result-basic-elicitation",
    "input-required-result-basic-sampling",
    "input-required-result-basic-list-roots",
    "input-required-result-request-state",
    "input-required-result-multiple-input-requests",
    "input-required-result-multi-round",
    "input-required-result-missing-input-response",
    "input-required-result-non-tool-request",
    "input-required-result-result-type",
    "input-required-result-unsupported-methods",
    "input-required-result-tampered-state",
    "input-required-result-capability-check",
    "input-required-result-ignore-extra-params",
    "input-required-result-validate-input",
    "server-stateless",
    "http-header-validation",
    "http-custom-header-server-validation",
]
#: The tasks extension (SEP-2663); `tasks-status-notifications` is skipped by the suite itself.
TASK_SCENARIOS = [
    "tasks-lifecycle", "tasks-capability-negotiation", "tasks-wire-fields", "tasks-request-state-removal",
    "tasks-mrtr-input", "tasks-request-headers", "tasks-dispatch-and-envelope", "tasks-status-notifications",
    "tasks-required-task-error", "tasks-mrtr-composition",
]
SERVER_SCENARIOS += TASK_SCENARIOS


@dataclass
class ClientScenario:
    """A client scenario: the suite spawns `command` with its mock server's URL appended."""

    name: str
    command: list[str]
    #: The file that must exist for the scenario to run (else: skipped, with a note).
    needs: Path


CONFORMANCE_CLIENT = [str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "tests" / "conformance_client.py")]
CLIENT_SCENARIOS = [
    ClientScenario(name, CONFORMANCE_CLIENT, ROOT / "tests" / "conformance_client.py")
    for name in ("sep-2322-client-request-state", "sse-retry", "elicitation-sep1034-client-defaults")
]


@dataclass
class Outcome:
    scenario: str
    counts: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    exit_code: int = 0

    @property
    def failed(self) -> bool:
        return self.counts.get("FAILURE", 0) > 0 or self.exit_code != 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int, timeout: float = 30.0) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([*SERVE, "--port", str(port)], stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        found = re.search(r"listening on (\S+)", line)
        if found:
            return proc, found.group(1)
    proc.kill()
    raise SystemExit("mrtr-studio serve did not print its `listening on` line")


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def read_checks(out_dir: Path) -> list[dict[str, object]]:
    checks: list[dict[str, object]] = []
    for path in sorted(out_dir.rglob("checks.json")):
        checks += json.loads(path.read_text(encoding="utf-8"))
    return checks


def summarize(scenario: str, checks: list[dict[str, object]], exit_code: int, log: str) -> Outcome:
    outcome = Outcome(scenario, exit_code=exit_code)
    for check in checks:
        status = str(check.get("status"))
        outcome.counts[status] = outcome.counts.get(status, 0) + 1
        if status not in ("SUCCESS", "SKIPPED", "INFO"):
            why = check.get("errorMessage") or check.get("description")
            outcome.problems.append(f"{status} [{check.get('id')}] {why}")
    if not checks:
        outcome.problems.append(f"no checks recorded (exit {exit_code}): {log.strip()[-500:]}")
        outcome.exit_code = exit_code or 1
    return outcome


def run_suite(node: str, suite: Path, args: list[str], out_dir: Path, timeout: float) -> tuple[int, str]:
    command = [node, str(suite / "dist" / "index.js"), *args, "-o", str(out_dir)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "NO_COLOR": "1"})
    except subprocess.TimeoutExpired:
        return 124, "the conformance runner timed out"
    return done.returncode, done.stdout + done.stderr


def print_outcome(outcome: Outcome) -> None:
    counts = ", ".join(f"{outcome.counts.get(s, 0)} {s}" for s in ("SUCCESS", "FAILURE", "WARNING", "SKIPPED"))
    mark = "FAIL" if outcome.failed else ("warn" if outcome.counts.get("WARNING") else " ok ")
    print(f"[{mark}] {outcome.scenario}: {counts}")
    for problem in outcome.problems:
        print(f"         {problem}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--node", required=True, help="Node >= 22 executable")
    parser.add_argument("--suite", required=True, type=Path, help="the installed conformance package folder")
    parser.add_argument("--scenario", action="append", help="run only these scenarios")
    parser.add_argument("--out", type=Path, help="results folder (default: a temporary one)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per scenario")
    args = parser.parse_args()
    wanted = set(args.scenario or [])
    out_root = args.out or Path(tempfile.mkdtemp(prefix="mrtr-conformance-"))
    outcomes: list[Outcome] = []
    proc, url = start_server(free_port())
    version = json.loads((args.suite / "package.json").read_text(encoding="utf-8")).get("version", "?")
    print(f"conformance suite {version} against {url} (results in {out_root})")
    try:
        for scenario in SERVER_SCENARIOS:
            if wanted and scenario not in wanted:
                continue
            out_dir = out_root / scenario
            code, log = run_suite(args.node, args.suite, ["server", "--url", url, "--scenario", scenario],
                                  out_dir, args.timeout)
            outcomes.append(summarize(scenario, read_checks(out_dir), code, log))
            print_outcome(outcomes[-1])
            if proc.poll() is not None:
                print("the server exited during the run")
                return 1
    finally:
        stop_server(proc)
    for client in CLIENT_SCENARIOS:
        if wanted and client.name not in wanted:
            continue
        if not client.needs.exists():
            print(f"[skip] {client.name}: {client.needs.relative_to(ROOT)} does not exist yet")
            continue
        out_dir = out_root / client.name
        code, log = run_suite(args.node, args.suite,
                              ["client", "--command", shlex.join(client.command), "--scenario", client.name],
                              out_dir, args.timeout)
        outcomes.append(summarize(client.name, read_checks(out_dir), code, log))
        print_outcome(outcomes[-1])
    failures = [o for o in outcomes if o.failed]
    warnings = sum(o.counts.get("WARNING", 0) for o in outcomes)
    total = sum(o.counts.get("SUCCESS", 0) for o in outcomes)
    print(f"total: {len(outcomes)} scenarios, {total} checks passed, {len(failures)} scenario(s) failed, "
          f"{warnings} warning(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
