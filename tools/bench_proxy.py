"""Startup of the commands (`call memory:` running its whole two-round flow, `wrap` around a server
that exits at once, the bare interpreter), and what `mrtr-studio proxy` adds: the same two-round
delete_file flow direct to `serve` and through the proxy (recording to a trace file, linting both
sides), one flow at a time so the numbers are latency, not throughput; the passes alternate so both
see the same machine state. Printed, never asserted."""

import asyncio
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_client import Connection
from bench_common import HEADERS, Target, flow, free_port, percentile, start, stop

ROOT = Path(__file__).resolve().parents[1]
CLI = str(ROOT / ".venv" / "bin" / "mrtr-studio")


async def _flows(url: str, count: int, first: int) -> list[float]:
    connection = Connection(url, HEADERS)
    latencies = []
    try:
        for number in range(first, first + count):
            began = time.perf_counter()
            await flow(connection.post, number)
            latencies.append(time.perf_counter() - began)
    finally:
        await connection.close()
    return latencies


def _start_proxy(upstream: str, trace: Path) -> "subprocess.Popen[str]":
    proc = subprocess.Popen([CLI, "proxy", "--listen", "127.0.0.1:0", "--upstream", upstream, "--trace", str(trace),
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not re.match(r"listening on ", line):
        raise SystemExit(f"the proxy did not start: {line!r}")
    proc.url = line.split()[-1]  # type: ignore[attr-defined]
    return proc


def measure_proxy(flows: int = 600, passes: int = 3) -> None:
    serve = Target("serve", [CLI, "serve", "--port", str(free_port())])
    with tempfile.TemporaryDirectory(prefix="mrtr-bench-proxy-") as folder:
        proxy = None
        try:
            start(serve, None)
            proxy = _start_proxy(serve.url, Path(folder) / "bench.mrtr.json")
            direct: list[float] = []
            proxied: list[float] = []
            asyncio.run(_flows(serve.url, 30, 0))
            asyncio.run(_flows(proxy.url, 30, 0))  # type: ignore[attr-defined]
            per_pass = max(1, flows // passes)
            for number in range(passes):
                direct += asyncio.run(_flows(serve.url, per_pass, number * per_pass))
                proxied += asyncio.run(_flows(proxy.url, per_pass, number * per_pass))  # type: ignore[attr-defined]
        finally:
            if proxy is not None:
                proxy.terminate()
                proxy.wait(30)
            stop(serve)
    d50, p50 = percentile(direct, 0.5) * 1e3, percentile(proxied, 0.5) * 1e3
    d99, p99 = percentile(direct, 0.99) * 1e3, percentile(proxied, 0.99) * 1e3
    print(f"proxy overhead, {len(direct)} sequential two-round delete_file flows each way (4 messages a flow), "
          "recording and linting to a trace file:")
    print(f"  direct  p50 {d50:.2f} ms  p99 {d99:.2f} ms")
    print(f"  proxied p50 {p50:.2f} ms  p99 {p99:.2f} ms")
    print(f"  added p50 {p50 - d50:.2f} ms per flow = {(p50 - d50) / 2:.2f} ms per round trip "
          f"({(p50 - d50) / 4:.2f} ms per message)")


def _process_seconds(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True, timeout=60)
        times.append(time.perf_counter() - began)
    return sorted(times)[len(times) // 2]


def measure_startup(runs: int = 7) -> None:
    python = str(ROOT / ".venv" / "bin" / "python")
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
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    measure_startup()
    measure_proxy(int(sys.argv[1]) if len(sys.argv) > 1 else 600)
