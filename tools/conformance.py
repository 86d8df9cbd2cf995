"""Run the official MCP conformance suite against `mrtr-studio serve` (the `make conformance` target).

Starts the server on a free port and runs every server scenario of the pinned suite once per wire
it is tagged for (the stateful 2025-11-25 handshake and the stateless 2026-07-28 one, each run with
`--spec-version`), a few at a time, one suite process per run so one hang cannot hide the others.
The scenarios come from the suite's own `list`, so a scenario the suite adds is run, not missed;
the few it deliberately does not run are in NOT_RUN with the reason, and runs that fail for a known
reason elsewhere in the project are in EXPECTED_FAILURES. Prints one line per run and a summary per
wire, and exits non-zero on any unexpected FAILURE. Client scenarios run our client under the
suite's mock server; each is skipped with a note while its command does not exist yet.
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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVE = [str(ROOT / ".venv" / "bin" / "mrtr-studio"), "serve", "--host", "127.0.0.1"]

#: The wires every applicable scenario runs at: the last stateful revision and the stateless one.
WIRES = ("2025-11-25", "2026-07-28")
#: How extension scenarios (not on the spec timeline) are labelled: they run at the suite's default wire.
EXTENSION = "extension"

#: Server scenarios not run at all, with the reason (shown in every report).
#: (The skills scenarios, SEP-2640, run since the demo server serves two skills.)
NOT_RUN: dict[str, str] = {}

#: (scenario, wire) runs that fail for a reason outside the engine, with that reason. Each still runs;
#: it does not fail the target while it fails, and is reported as stale once it passes.
EXPECTED_FAILURES: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Run:
    """One server scenario at one wire (`wire` is EXTENSION for the suite's default)."""

    scenario: str
    wire: str

    @property
    def label(self) -> str:
        return f"{self.scenario} @ {self.wire}"


@dataclass
class ClientScenario:
    """A client scenario: the suite spawns `command` with its mock server's URL appended."""

    name: str
    command: list[str]
    #: The file that must exist for the scenario to run (else: skipped, with a note).
    needs: Path
    #: Run at this revision (`--spec-version`); None: the suite's default.
    spec_version: str | None = None

    @property
    def label(self) -> str:
        return f"{self.name} @ {self.spec_version}" if self.spec_version else self.name


CONFORMANCE_CLIENT = [str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "tests" / "conformance_client.py")]
CLIENT_SCENARIOS = [
    ClientScenario(name, CONFORMANCE_CLIENT, ROOT / "tests" / "conformance_client.py")
    for name in ("sep-2322-client-request-state", "sse-retry", "elicitation-sep1034-client-defaults",
                 "initialize", "tools_call", "request-metadata", "http-standard-headers", "http-custom-headers",
                 "http-invalid-tool-headers", "json-schema-ref-no-deref", "json-schema-2020-12-preservation")
]
#: The authorization scenarios: the studio's OAuth client, headless, against the suite's mock servers.
AUTH_CLIENT_SCENARIOS = [
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd",
    "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
    "auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none", "auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch", "auth/offline-access-scope",
    "auth/offline-access-not-supported", "auth/authorization-server-migration", "auth/iss-supported",
    "auth/iss-not-advertised", "auth/iss-supported-missing", "auth/iss-wrong-issuer", "auth/iss-unexpected",
    "auth/iss-normalized", "auth/metadata-issuer-mismatch", "auth/client-credentials-jwt",
    "auth/client-credentials-basic", "auth/wif-jwt-bearer", "auth/dpop", "auth/dpop-nonce",
    "auth/enterprise-managed-authorization",
]
CLIENT_SCENARIOS += [ClientScenario(name, CONFORMANCE_CLIENT, ROOT / "tests" / "conformance_client.py")
                     for name in AUTH_CLIENT_SCENARIOS]
#: Scenarios tagged for a dated revision and 2026-07-28: run once more there (a modern mock server).
CLIENT_SCENARIOS += [ClientScenario(name, CONFORMANCE_CLIENT, ROOT / "tests" / "conformance_client.py", "2026-07-28")
                     for name in ("tools_call", "json-schema-2020-12-preservation")]
#: Client scenarios of extensions the studio's client does not implement, and why (printed as n/a).
CLIENT_NOT_APPLICABLE: dict[str, str] = {}
#: The skills extension's client scenarios (SEP-2640): list lazily, verify on read.
CLIENT_SCENARIOS += [ClientScenario(name, CONFORMANCE_CLIENT, ROOT / "tests" / "conformance_client.py")
                     for name in ("sep-2640-client-no-prefetch", "sep-2640-client-verify-digest",
                                  "sep-2640-client-verify-size", "sep-2640-client-verify-frontmatter")]


@dataclass
class Outcome:
    scenario: str
    counts: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    exit_code: int = 0
    #: Why this run is known to fail ("" when it must pass).
    expected: str = ""
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.counts.get("FAILURE", 0) > 0 or self.exit_code != 0

    @property
    def all_skipped(self) -> bool:
        """Every check the run recorded was SKIPPED (INFO aside): it tested nothing, so it did not pass."""
        judged = sum(n for status, n in self.counts.items() if status not in ("SKIPPED", "INFO"))
        return not self.failed and self.counts.get("SKIPPED", 0) > 0 and judged == 0

    @property
    def passed(self) -> bool:
        return not self.failed and not self.all_skipped

    @property
    def unexpected(self) -> bool:
        return self.failed and not self.expected


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


_LISTED = re.compile(r"^\s+- (\S+) \[([^\]]*)\]\s*$")


def server_scenarios(node: str, suite: Path) -> list[tuple[str, list[str]]]:
    """The suite's server scenarios with their tags (dated revisions, or `extension`), from its `list`."""
    done = subprocess.run([node, str(suite / "dist" / "index.js"), "list"], capture_output=True, text=True,
                          timeout=60, check=True)
    found = parse_listing(done.stdout)
    if not found:
        raise SystemExit("the suite listed no server scenarios")
    return found


def parse_listing(text: str) -> list[tuple[str, list[str]]]:
    """`Server scenarios ...:` then `  - name [tag,tag]` lines; other sections are ignored."""
    found: list[tuple[str, list[str]]] = []
    section = ""
    for line in text.splitlines():
        if line and not line.startswith(" "):
            section = line.split()[0].lower()
            continue
        match = _LISTED.match(line)
        if section == "server" and match:
            found.append((match.group(1), [tag.strip() for tag in match.group(2).split(",")]))
    return found


def plan(listed: list[tuple[str, list[str]]], wires: tuple[str, ...]) -> tuple[list[Run], dict[str, str]]:
    """Every (scenario, wire) to run, and the scenarios not run with the reason."""
    runs: list[Run] = []
    skipped: dict[str, str] = {}
    for name, tags in listed:
        if name in NOT_RUN:
            skipped[name] = NOT_RUN[name]
        elif EXTENSION in tags:
            runs.append(Run(name, EXTENSION))
        else:
            at = [wire for wire in wires if wire in tags]
            runs += [Run(name, wire) for wire in at]
            if not at:
                skipped[name] = f"tagged only for {', '.join(tags)}, none of the wires run ({', '.join(wires)})"
    return runs, skipped


def run_server_scenario(run: Run, node: str, suite: Path, url: str, out_root: Path, timeout: float) -> Outcome:
    args = ["server", "--url", url, "--scenario", run.scenario]
    if run.wire != EXTENSION:
        args += ["--spec-version", run.wire]
    out_dir = out_root / run.wire / run.scenario
    started = time.monotonic()
    code, log = run_suite(node, suite, args, out_dir, timeout)
    outcome = summarize(run.label, read_checks(out_dir), code, log)
    outcome.seconds = time.monotonic() - started
    outcome.expected = EXPECTED_FAILURES.get((run.scenario, run.wire), "")
    return outcome


def print_outcome(outcome: Outcome) -> None:
    counts = ", ".join(f"{outcome.counts.get(s, 0)} {s}" for s in ("SUCCESS", "FAILURE", "WARNING", "SKIPPED"))
    if outcome.failed:
        mark = "xfail" if outcome.expected else "FAIL "
    elif outcome.all_skipped:
        mark = "skip "
    elif outcome.expected:
        mark = "XPASS"
    else:
        mark = "warn " if outcome.counts.get("WARNING") else " ok  "
    print(f"[{mark}] {outcome.scenario}: {counts} ({outcome.seconds:.1f} s)")
    for problem in outcome.problems:
        print(f"          {problem}")
    if outcome.failed and outcome.expected:
        print(f"          expected: {outcome.expected}")
    elif outcome.expected:
        print("          passes now: remove it from EXPECTED_FAILURES")


def print_summary(outcomes: list[Outcome], runs: list[Run], skipped: dict[str, str]) -> None:
    by_label = {o.scenario: o for o in outcomes}
    print("\nserver runs per wire:")
    for wire in sorted({r.wire for r in runs}):
        mine = [by_label[r.label] for r in runs if r.wire == wire and r.label in by_label]
        passed = sum(o.passed for o in mine)
        skipped_runs = sum(o.all_skipped for o in mine)
        xfail = sum(o.failed and bool(o.expected) for o in mine)
        failed = len(mine) - passed - skipped_runs - xfail
        print(f"  {wire:<11} {passed:>3} passed, {failed:>2} failed, {xfail} expected to fail, "
              f"{skipped_runs} skipped (every check SKIPPED)")
    for name, why in skipped.items():
        print(f"  not run: {name}: {why}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--node", required=True, help="Node >= 22 executable")
    parser.add_argument("--suite", required=True, type=Path, help="the installed conformance package folder")
    parser.add_argument("--scenario", action="append", help="run only these scenarios")
    parser.add_argument("--wire", action="append", help=f"run only at these wires (default: {', '.join(WIRES)})")
    parser.add_argument("--jobs", type=int, default=2, help="server scenarios run at once (default 2)")
    parser.add_argument("--out", type=Path, help="results folder (default: a temporary one)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per scenario")
    args = parser.parse_args()
    wanted = set(args.scenario or [])
    wires = tuple(args.wire or WIRES)
    out_root = args.out or Path(tempfile.mkdtemp(prefix="mrtr-conformance-"))
    started = time.monotonic()
    runs, skipped = plan(server_scenarios(args.node, args.suite), wires)
    runs = [r for r in runs if not wanted or r.scenario in wanted]
    skipped = {name: why for name, why in skipped.items() if not wanted or name in wanted}
    outcomes: list[Outcome] = []
    proc, url = start_server(free_port())
    version = json.loads((args.suite / "package.json").read_text(encoding="utf-8")).get("version", "?")
    print(f"conformance suite {version} against {url}: {len(runs)} server runs, {max(1, args.jobs)} at a time "
          f"(results in {out_root})")
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for outcome in pool.map(lambda r: run_server_scenario(r, args.node, args.suite, url, out_root,
                                                                  args.timeout), runs):
                outcomes.append(outcome)
                print_outcome(outcome)
        if proc.poll() is not None:
            print("the server exited during the run")
            return 1
    finally:
        stop_server(proc)
    print_summary(outcomes, runs, skipped)
    for client in CLIENT_SCENARIOS:
        if wanted and client.name not in wanted:
            continue
        if not client.needs.exists():
            print(f"[skip] {client.label}: {client.needs.relative_to(ROOT)} does not exist yet")
            continue
        out_dir = out_root / "client" / (client.name + (f"@{client.spec_version}" if client.spec_version else ""))
        began = time.monotonic()
        version = ["--spec-version", client.spec_version] if client.spec_version else []
        code, log = run_suite(args.node, args.suite,
                              ["client", "--command", shlex.join(client.command), "--scenario", client.name,
                               *version], out_dir, args.timeout)
        outcomes.append(summarize(client.label, read_checks(out_dir), code, log))
        outcomes[-1].seconds = time.monotonic() - began
        print_outcome(outcomes[-1])
    for name, why in CLIENT_NOT_APPLICABLE.items():
        if not wanted or name in wanted:
            print(f"[n/a ] {name}: {why}")
    failures = [o for o in outcomes if o.unexpected]
    warnings = sum(o.counts.get("WARNING", 0) for o in outcomes)
    total = sum(o.counts.get("SUCCESS", 0) for o in outcomes)
    print(f"total: {len(outcomes)} runs, {sum(o.passed for o in outcomes)} passed, "
          f"{sum(o.all_skipped for o in outcomes)} skipped (every check SKIPPED), {total} checks passed, "
          f"{len(failures)} run(s) failed, "
          f"{sum(o.failed and bool(o.expected) for o in outcomes)} expected failure(s), {warnings} warning(s), "
          f"{time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
