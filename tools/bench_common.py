"""What every bench shares: the targets they start (a server process printing `listening on URL`),
the two-round `delete_file` flow, the drivers, and CPU time read from /proc/PID/stat.

Its own module so bench.py, bench_proxy.py and the others import it instead of each other.
"""

import asyncio
import json
import os
import re
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
from bench_client import Connection

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]
PYTHON = str(ROOT / ".venv" / "bin" / "python")
CLI = str(ROOT / ".venv" / "bin" / "mrtr-studio")
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
    #: Server CPU seconds per flow of each recorded pass, so a report can show the spread between passes.
    pass_costs: list[float] = field(default_factory=list)


def rotated(items: list[T], number: int) -> list[T]:
    """The order of the targets in pass `number`: each pass starts one later, so over the passes every
    target runs in every position equally often. On this machine a pass's position alone moves its
    cost by about a tenth (a server driven right after the SDK's costs less than the same server
    driven right after the floor), so a fixed order would bias the ratios it prints."""
    shift = number % len(items) if items else 0
    return items[shift:] + items[:shift]


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
        spent = cpu_time(target.proc.pid) - cpu
        target.cpu_seconds += spent
        target.pass_costs.append(spent / flows)
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
    """User + system CPU seconds of a process: a cost per flow that other load on the machine cannot skew.

    In nanoseconds, from each thread's /proc/PID/task/TID/schedstat (its time on a CPU): /proc/PID/stat
    counts clock ticks (10 ms), as much as a short pass against the floor server costs in all. Threads
    that ended are only in /proc/PID/stat: once they account for more than a few ticks, ticks it is."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    try:
        precise = sum(int((task / "schedstat").read_text().split()[0])
                      for task in Path(f"/proc/{pid}/task").iterdir()) / 1e9
    except (OSError, ValueError, IndexError):
        return ticks
    return ticks if ticks - precise > 0.05 else precise


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")

