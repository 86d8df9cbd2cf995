"""`make bench`: two-round `delete_file` flows against `mrtr-studio serve` and the official SDK's server.

A lean client (httpx's own connection pool, httpcore, without the httpx.Client layer on top, which
costs more CPU per request than the servers being measured; keep-alive, N concurrent workers)
drives each server with raw JSON-RPC, the servers alternating in the same run so both see the
same machine state. Each server's CPU time per flow is reported too: unlike flows/s, it does not
depend on what else the (shared, two-core) machine is doing. The SDK's own client is
far too slow to measure a server with, so it is not used. Also measured: our server with
TCP_NODELAY off (what Nagle costs on loopback), the requestState sign/verify cost, and the
resident memory of `serve` holding 10k idle legacy sessions: before and after they are reaped,
and with the default session cap in force, and how 300 slowloris connections fare (how many are
still open past the header deadline; whether a real client is served meanwhile). Numbers are
printed, never asserted.
"""

import argparse
import asyncio
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import timeit
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from bench_client import Connection
from bench_client_memory import measure as measure_client_memory

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
PYTHON = str(ROOT / ".venv" / "bin" / "python")
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
HEADERS = [(b"Content-Type", b"application/json"), (b"Accept", b"application/json, text/event-stream"),
           (b"MCP-Protocol-Version", b"2026-07-28"), (b"Mcp-Method", b"tools/call"),
           (b"Mcp-Name", b"delete_file")]
ANSWER = {"confirm": {"action": "accept", "content": {"confirm": True}}}


@dataclass
class Target:
    label: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""
    proc: "subprocess.Popen[str] | None" = None
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    client_cpu_seconds: float = 0.0
    flows: int = 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(target: Target, server_cpus: set[int] | None) -> None:
    def pin() -> None:
        if server_cpus:
            os.sched_setaffinity(0, server_cpus)

    target.proc = subprocess.Popen(target.command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                   env={**os.environ, **target.env}, preexec_fn=pin)
    assert target.proc.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = re.search(r"listening on (\S+)", target.proc.stdout.readline())
        if found:
            target.url = found.group(1)
            return
    raise SystemExit(f"{target.label} did not start")


def stop(target: Target) -> None:
    if target.proc is not None and target.proc.poll() is None:
        target.proc.terminate()
        try:
            target.proc.wait(10)
        except subprocess.TimeoutExpired:
            target.proc.kill()


Post = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


async def flow(post: Post, number: int) -> None:
    arguments = {"path": f"/tmp/file-{number}"}
    first = {"jsonrpc": "2.0", "id": 2 * number, "method": "tools/call",
             "params": {"name": "delete_file", "arguments": arguments, "_meta": META}}
    reply = await post(first)
    state = reply["result"]["requestState"]
    second = {"jsonrpc": "2.0", "id": 2 * number + 1, "method": "tools/call",
              "params": {"name": "delete_file", "arguments": arguments, "inputResponses": ANSWER,
                         "requestState": state, "_meta": META}}
    done = await post(second)
    if done["result"]["content"][0]["text"] != "File deleted":
        raise RuntimeError(f"unexpected answer: {done}")


async def drive(target: Target, flows: int, workers: int, client: str, record: bool = True) -> None:
    numbers = iter(range(flows))
    posts, closers = await _clients(client, target.url, workers)

    async def worker(post: Post) -> None:
        for number in numbers:
            began = time.perf_counter()
            await flow(post, number)
            if record:
                target.latencies.append(time.perf_counter() - began)

    assert target.proc is not None
    cpu, own = cpu_time(target.proc.pid), time.process_time()
    began = time.perf_counter()
    try:
        await asyncio.gather(*(worker(post) for post in posts))
    finally:
        for close in closers:
            await close()
    if record:
        target.seconds += time.perf_counter() - began
        target.cpu_seconds += cpu_time(target.proc.pid) - cpu
        target.client_cpu_seconds += time.process_time() - own
        target.flows += flows


async def _clients(kind: str, url: str, workers: int) -> tuple[list[Post], list[Callable[[], Awaitable[None]]]]:
    """`raw`: one lean keep-alive connection per worker; `httpx`: one shared httpx.AsyncClient."""
    if kind == "raw":
        connections = [Connection(url, HEADERS) for _ in range(workers)]
        return [c.post for c in connections], [c.close for c in connections]
    limits = httpx.Limits(max_connections=workers, max_keepalive_connections=workers)
    http = httpx.AsyncClient(limits=limits, headers=[(k.decode(), v.decode()) for k, v in HEADERS])

    async def post(body: dict[str, Any]) -> dict[str, Any]:
        response = await http.post(url, content=json.dumps(body).encode())
        return dict(response.json())

    return [post] * workers, [http.aclose]


def cpu_time(pid: int) -> float:
    """User + system CPU seconds of a process: a cost per flow that other load on the machine cannot skew."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def state_costs(repeat: int = 20000) -> tuple[float, float]:
    sys.path.insert(0, str(ROOT))
    from mrtr_studio.engine import Binding, StateCodec

    codec = StateCodec.from_secrets("bench-secret")

    def binding() -> Binding:  # a fresh one per call: each request digests its arguments once
        return Binding("tools/call", "delete_file", {"path": "/tmp/file"}, "alice")

    token = codec.mint(binding(), "step=1", {"confirm": "elicitation/create"}, 1)
    sign = min(timeit.repeat(lambda: codec.mint(binding(), "step=1", {"confirm": "elicitation/create"}, 1),
                             number=repeat, repeat=7)) / repeat
    verify = min(timeit.repeat(lambda: codec.verify(token, binding()), number=repeat, repeat=7)) / repeat
    return sign * 1e6, verify * 1e6


LEGACY_INIT = {"jsonrpc": "2.0", "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "bench", "version": "1"}}}


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def open_sessions(url: str, count: int, workers: int) -> dict[str, int]:
    """`count` legacy initializes over `workers` keep-alive connections; answers counted by outcome."""
    numbers = iter(range(count))
    outcomes: dict[str, int] = {}
    connections = [Connection(url, [(b"Content-Type", b"application/json")]) for _ in range(workers)]

    async def worker(connection: Connection) -> None:
        for number in numbers:
            reply = await connection.post({**LEGACY_INIT, "id": number})
            key = "opened" if "result" in reply else f"refused ({reply['error']['code']})"
            outcomes[key] = outcomes.get(key, 0) + 1

    try:
        await asyncio.gather(*(worker(c) for c in connections))
    finally:
        for connection in connections:
            await connection.close()
    return outcomes


def session_memory(count: int, workers: int, idle: float) -> None:
    """RSS of `serve` with `count` idle legacy sessions, after the idle expiry, and at the default cap."""
    serve = [str(ROOT / ".venv" / "bin" / "mrtr-studio"), "serve", "--port"]
    uncapped = Target("mrtr-studio", [*serve, str(free_port()), "--max-sessions", str(count + 20),
                                      "--session-idle", str(idle)])
    capped = Target("mrtr-studio", [*serve, str(free_port())])
    try:
        start(uncapped, None)
        assert uncapped.proc is not None
        asyncio.run(open_sessions(uncapped.url, 20, 1))  # warm-up; these expire with the rest
        before = rss_kib(uncapped.proc.pid)
        outcomes = asyncio.run(open_sessions(uncapped.url, count, workers))
        held = rss_kib(uncapped.proc.pid)
        when_full = asyncio.run(open_sessions(uncapped.url, 1, 1))
        time.sleep(idle + 2)  # nothing is sent: the expiry timer alone ends them
        reaped = rss_kib(uncapped.proc.pid)
        after_expiry = asyncio.run(open_sessions(uncapped.url, 1, 1))
        start(capped, None)
        assert capped.proc is not None
        capped_before = rss_kib(capped.proc.pid)
        capped_outcomes = asyncio.run(open_sessions(capped.url, count, workers))
        capped_after = rss_kib(capped.proc.pid)
    finally:
        stop(uncapped)
        stop(capped)
    per = (held - before) * 1024 / max(1, outcomes.get("opened", 0))
    print(f"legacy sessions, {count} initializes, idle expiry {idle:g} s: {outcomes}")
    print(f"  serve RSS: {before / 1024:.1f} MiB idle, {held / 1024:.1f} MiB holding them ({per:.0f} B each), "
          f"{reaped / 1024:.1f} MiB after expiry (freed memory stays with the allocator)")
    print(f"  one more initialize while they are held: {when_full}; after the expiry: {after_expiry}")
    print(f"  default cap: {capped_outcomes}; serve RSS {capped_before / 1024:.1f} -> {capped_after / 1024:.1f} MiB")


def slowloris(count: int, header_timeout: float) -> None:
    """`count` connections that send half a request line and stop, then a real request, then a look later."""
    target = Target("mrtr-studio", [str(ROOT / ".venv" / "bin" / "mrtr-studio"), "serve", "--port", str(free_port()),
                                    "--header-timeout", str(header_timeout)])
    sockets: list[socket.socket] = []
    try:
        start(target, None)
        port = int(target.url.rsplit(":", 1)[1].split("/")[0])
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=1)
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            sockets.append(sock)
        real = httpx.post(target.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=10)
        time.sleep(header_timeout + 1)
        still_open = sum(1 for sock in sockets if _still_open(sock))
    finally:
        for sock in sockets:
            sock.close()
        stop(target)
    print(f"slowloris: {count} half-sent requests; a real request meanwhile got HTTP {real.status_code}; "
          f"{still_open} still open {header_timeout + 1:g} s later (header deadline {header_timeout:g} s)")


def _still_open(sock: socket.socket) -> bool:
    sock.settimeout(0.01)
    try:
        return sock.recv(1) != b""
    except TimeoutError:
        return True
    except OSError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flows", type=int, default=3000, help="flows per server (split over the passes)")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--passes", type=int, default=5, help="alternations between the servers")
    parser.add_argument("--no-nagle-check", action="store_true", help="skip the TCP_NODELAY=off run")
    parser.add_argument("--no-pin", action="store_true",
                        help="let client and servers share every core (default: servers on the last core, "
                             "the client on the others, so each server's throughput is its own)")
    parser.add_argument("--client", choices=["raw", "httpx"], default="raw",
                        help="raw: lean keep-alive HTTP/1.1 connections (default); httpx: httpx.AsyncClient")
    parser.add_argument("--sessions", type=int, default=10_000,
                        help="legacy sessions for the memory measurement (0: skip it)")
    parser.add_argument("--session-idle", type=float, default=5.0,
                        help="idle expiry for the memory measurement, in seconds")
    parser.add_argument("--slowloris", type=int, default=300, help="slow connections to open (0: skip)")
    args = parser.parse_args()
    serve = [str(ROOT / ".venv" / "bin" / "mrtr-studio"), "serve", "--port"]
    targets = [Target("mrtr-studio", [*serve, str(free_port())]),
               Target("sdk (mcp 2.3.0)", [PYTHON, str(ROOT / "tools" / "sdk_delete_server.py"), str(free_port())])]
    if not args.no_nagle_check:
        targets.append(Target("mrtr-studio, TCP_NODELAY off", [*serve, str(free_port())],
                              env={"MRTR_STUDIO_TCP_NODELAY": "0"}))
    cpus = sorted(os.sched_getaffinity(0))
    server_cpus = {cpus[-1]} if len(cpus) > 1 and not args.no_pin else None
    if server_cpus:
        os.sched_setaffinity(0, set(cpus[:-1]))
    try:
        for target in targets:
            start(target, server_cpus)
            asyncio.run(drive(target, 50, args.workers, args.client, record=False))  # warm-up
        per_pass = max(1, args.flows // args.passes)
        for _ in range(args.passes):
            for target in targets:
                asyncio.run(drive(target, per_pass, args.workers, args.client))
    finally:
        for target in targets:
            stop(target)
    print(f"{args.passes} alternating passes, {per_pass} two-round delete_file flows per server per pass, "
          f"{args.workers} workers, {args.client} client")
    print(f"{'server':32} {'flows/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'server CPU/flow':>16} {'client CPU/flow':>16}")
    rates, costs = {}, {}
    for target in targets:
        rates[target.label] = target.flows / target.seconds
        costs[target.label] = target.cpu_seconds / target.flows
        print(f"{target.label:32} {rates[target.label]:9.0f} {percentile(target.latencies, 0.5) * 1e3:8.2f} "
              f"{percentile(target.latencies, 0.99) * 1e3:8.2f} {costs[target.label] * 1e6:13.0f} us "
              f"{target.client_cpu_seconds / target.flows * 1e6:13.0f} us")
    ours, sdk = rates[targets[0].label], rates[targets[1].label]
    print(f"throughput ratio mrtr-studio / sdk: {ours / sdk:.2f}x (target >= 3x); server CPU per flow: "
          f"{costs[targets[1].label] / costs[targets[0].label]:.2f}x less")
    placement = (f"servers pinned to core {sorted(server_cpus)[0]}, client to {sorted(os.sched_getaffinity(0))}"
                 if server_cpus else "client and servers share every core")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; {placement}")
    if len(targets) > 2:
        print(f"TCP_NODELAY on vs off: {ours / rates[targets[2].label]:.2f}x "
              f"(p50 {statistics.median(targets[0].latencies) * 1e3:.2f} ms vs "
              f"{statistics.median(targets[2].latencies) * 1e3:.2f} ms)")
    sign, verify = state_costs()
    print(f"requestState: sign {sign:.1f} us, verify {verify:.1f} us (target < 15 us each)")
    if args.sessions > 0:
        session_memory(args.sessions, args.workers, args.session_idle)
    if args.slowloris > 0:
        slowloris(args.slowloris, 2.0)
    measure_client_memory()
    return 0


if __name__ == "__main__":
    sys.exit(main())
