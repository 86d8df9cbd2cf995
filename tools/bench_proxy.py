"""Startup of the commands (`call memory:` running its whole two-round flow, `wrap` around a server
that exits at once, the bare interpreter), and what `mrtr-studio proxy --trace` costs against the
anchor people would pick instead, mitmdump (`mitmdump --mode reverse:URL -w FILE`), measured in the
same run against the same `serve` upstream: CPU per relayed message (the proxy's process plus its
recorder process, read from /proc, so relay, recording and linting all count), the latency each adds
to a flow over going direct, and flows/s, at c=1 and c=8. mitmproxy is not a dependency: it is looked
up as `mitmdump` on PATH, or in $MITMDUMP (a separate venv, e.g. /tmp/mitm-venv/bin/mitmdump); without
it only our own numbers print. Printed, never asserted.
"""

import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_client import Connection
from bench_common import CLI, HEADERS, PYTHON, Target, cpu_time, flow, free_port, percentile, rotated, start, stop

MESSAGES_PER_FLOW = 4


@dataclass
class Relay:
    """One proxy under test: its process, its URL, and what was measured through it."""

    label: str
    proc: "subprocess.Popen[str]"
    url: str
    latencies: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0
    #: Of cpu_seconds, the listening process's own (the relay; the rest is its children: the recorder).
    own_cpu_seconds: float = 0.0
    seconds: float = 0.0
    flows: int = 0


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and every live descendant (the proxy's recorder is its child)."""
    total = cpu_time(pid)
    for child in _children(pid):
        total += tree_cpu(child)
    return total


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(part) for part in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


async def _drive(url: str, flows: int, workers: int, first: int, latencies: list[float] | None) -> None:
    numbers = iter(range(first, first + flows))
    connections = [Connection(url, HEADERS) for _ in range(workers)]

    async def worker(connection: Connection) -> None:
        for number in numbers:
            began = time.perf_counter()
            await flow(connection.post, number)
            if latencies is not None:
                latencies.append(time.perf_counter() - began)

    try:
        await asyncio.gather(*(worker(c) for c in connections))
    finally:
        for connection in connections:
            await connection.close()


def _measure(relay: Relay, flows: int, workers: int, first: int) -> None:
    cpu, own = tree_cpu(relay.proc.pid), cpu_time(relay.proc.pid)
    began = time.perf_counter()
    asyncio.run(_drive(relay.url, flows, workers, first, relay.latencies))
    relay.seconds += time.perf_counter() - began
    relay.cpu_seconds += tree_cpu(relay.proc.pid) - cpu
    relay.own_cpu_seconds += cpu_time(relay.proc.pid) - own
    relay.flows += flows


def _start_proxy(upstream: str, trace: Path) -> Relay:
    proc = subprocess.Popen([CLI, "proxy", "--listen", "127.0.0.1:0", "--upstream", upstream, "--trace", str(trace),
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not re.match(r"listening on ", line):
        raise SystemExit(f"the proxy did not start: {line!r}")
    return Relay("mrtr-studio proxy --trace", proc, line.split()[-1])


def mitmdump_path() -> str | None:
    return os.environ.get("MITMDUMP") or shutil.which("mitmdump") or \
        next((p for p in [str(Path(__file__).resolve().parents[1] / ".tools" / "mitm-venv" / "bin" / "mitmdump"),
                          "/tmp/mitm-venv/bin/mitmdump"] if Path(p).exists()), None)


def _start_mitmdump(binary: str, upstream: str, flows_file: Path) -> Relay:
    port = free_port()
    origin = upstream.rsplit("/", 1)[0]
    proc = subprocess.Popen([binary, "--mode", f"reverse:{origin}", "-w", str(flows_file), "--listen-host",
                             "127.0.0.1", "--listen-port", str(port), "-q", "--set", "connection_strategy=lazy"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return Relay("mitmdump -w", proc, f"http://127.0.0.1:{port}/mcp")
        except OSError:
            if proc.poll() is not None:
                raise SystemExit("mitmdump exited at start") from None
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("mitmdump did not start")


def _end(relay: Relay | None) -> None:
    if relay is None:
        return
    relay.proc.terminate()
    try:
        relay.proc.wait(60)
    except subprocess.TimeoutExpired:
        relay.proc.kill()
        relay.proc.wait(10)


def measure_proxy(flows: int = 600, passes: int = 3, concurrency: tuple[int, ...] = (1, 8)) -> None:
    """Direct, proxied and through mitmdump, alternating passes, for each concurrency."""
    mitm = mitmdump_path()
    for workers in concurrency:
        serve = Target("serve", [CLI, "serve", "--port", str(free_port())])
        relays: list[Relay] = []
        direct = Relay("direct to serve", None, "")  # type: ignore[arg-type]
        with tempfile.TemporaryDirectory(prefix="mrtr-bench-proxy-") as folder:
            try:
                start(serve, None)
                assert serve.proc is not None
                direct.proc, direct.url = serve.proc, serve.url  # its CPU is not reported
                relays.append(_start_proxy(serve.url, Path(folder) / "bench.mrtr.json"))
                if mitm:
                    relays.append(_start_mitmdump(mitm, serve.url, Path(folder) / "bench.flows"))
                for target in [direct, *relays]:
                    asyncio.run(_drive(target.url, 30, workers, 0, None))  # warm-up
                per_pass = max(1, flows // passes)
                for number in range(passes):
                    for target in rotated([direct, *relays], number):
                        _measure(target, per_pass, workers, (number + 1) * 100_000)
            finally:
                for relay in relays:
                    _end(relay)
                stop(serve)
        _report(workers, direct, relays)
    if not mitm:
        print("  (mitmdump not found: set MITMDUMP or `pip install mitmproxy` into a separate venv; "
              "its rows and the ratios are skipped)")


def _report(workers: int, direct: Relay, relays: list[Relay]) -> None:
    d50 = percentile(direct.latencies, 0.5) * 1e3
    print(f"proxy, c={workers}, {direct.flows} two-round delete_file flows each way ({MESSAGES_PER_FLOW} messages "
          "a flow), recording to a trace file; CPU = the proxy's processes (relay and recorder):")
    print(f"  {'path':30} {'flows/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'added p50 ms':>13} {'CPU/message':>12}")
    print(f"  {direct.label:30} {direct.flows / direct.seconds:8.0f} {d50:8.2f} "
          f"{percentile(direct.latencies, 0.99) * 1e3:8.2f}")
    per_message, added = {}, {}
    for relay in relays:
        p50 = percentile(relay.latencies, 0.5) * 1e3
        added[relay.label] = p50 - d50
        per_message[relay.label] = relay.cpu_seconds / (relay.flows * MESSAGES_PER_FLOW)
        print(f"  {relay.label:30} {relay.flows / relay.seconds:8.0f} {p50:8.2f} "
              f"{percentile(relay.latencies, 0.99) * 1e3:8.2f} {added[relay.label]:13.2f} "
              f"{per_message[relay.label] * 1e6:9.0f} us (listening process "
              f"{relay.own_cpu_seconds / (relay.flows * MESSAGES_PER_FLOW) * 1e6:.0f} us)")
    if len(relays) > 1:
        ours, theirs = relays[0].label, relays[1].label
        print(f"  RATIO c={workers}: proxy CPU per message {per_message[ours] / per_message[theirs]:.2f}x mitmdump's "
              f"(goal <= 1.0x); added latency {added[ours] / max(added[theirs], 1e-9):.2f}x (goal <= 1.0x); "
              f"throughput {relays[0].flows / relays[0].seconds / (relays[1].flows / relays[1].seconds):.2f}x")


def _process_seconds(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True, timeout=60)
        times.append(time.perf_counter() - began)
    return sorted(times)[len(times) // 2]


def measure_startup(runs: int = 7) -> None:
    python = PYTHON
    with tempfile.TemporaryDirectory(prefix="mrtr-bench-start-") as folder:
        answers = Path(folder) / "answers.json"
        answers.write_text('{"*": {"action": "accept", "content": {"confirm": true}}}')
        call = _process_seconds([CLI, "call", "memory:", "--tool", "delete_file", "--args", '{"path": "/a"}',
                                 "--answers", str(answers)], runs)
        wrap = _process_seconds([CLI, "wrap", "--no-feed", "--trace", str(Path(folder) / "w.mrtr.json"), "--",
                                 python, "-c", "pass"], runs)
        bare = _process_seconds([python, "-c", "pass"], runs)
    print(f"startup, median of {runs} processes: `call memory: --tool delete_file` (two rounds) {call:.2f} s "
          f"(target < 0.4 s); `wrap -- python -c pass` {wrap:.2f} s; bare interpreter {bare:.2f} s")


if __name__ == "__main__":
    if "--short" in sys.argv:
        measure_proxy(150, 2)
    else:
        measure_startup()
        measure_proxy(int(sys.argv[1]) if len(sys.argv) > 1 else 600)
