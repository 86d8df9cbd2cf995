"""`make bench`: flows/s of a 3-node `serve` cluster, per-node memory vs one shared Redis store.

Two-round `delete_file` flows (single-use: the completion claims its nonce in the store), round 1
on one node and round 2 on the next, as a round-robin balancer would send them; N workers, each
with a keep-alive connection to every node (tools/bench_client.py). Besides flows/s (which depend on
what else the machine runs), the nodes' CPU per flow, from /proc, and the ratio of the shared Redis
store's to the memory store's, both clusters running at once and driven in alternating passes
(goal: at most +15%). Also, where HAProxy is
installed, the Redis cluster behind a real HAProxy (one URL). Printed, never asserted.
"""

import argparse
import asyncio
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_client import Connection  # noqa: E402
from bench_common import ANSWER, HEADERS, META, cpu_time, rotated  # noqa: E402  (one flow, measured the same way)

from mrtr_studio.teaching.cluster import start_cluster  # noqa: E402
from mrtr_studio.teaching.cluster_services import free_port, start_haproxy, start_redis  # noqa: E402


async def flow(first_node: Connection, second_node: Connection, number: int) -> None:
    arguments = {"path": f"/tmp/file-{number}"}
    reply = await first_node.post({"jsonrpc": "2.0", "id": 2 * number, "method": "tools/call",
                                   "params": {"name": "delete_file", "arguments": arguments, "_meta": META}})
    state = reply["result"]["requestState"]
    done: dict[str, Any] = await second_node.post({
        "jsonrpc": "2.0", "id": 2 * number + 1, "method": "tools/call",
        "params": {"name": "delete_file", "arguments": arguments, "inputResponses": ANSWER,
                   "requestState": state, "_meta": META}})
    if done.get("result", {}).get("content", [{}])[0].get("text") != "File deleted":
        raise RuntimeError(f"unexpected answer: {done}")


async def drive(urls: list[str], flows: int, workers: int) -> float:
    """Flows per second over `urls` (round 1 on node n, round 2 on node n+1)."""
    numbers = iter(range(flows))
    pools = [[Connection(url, HEADERS) for url in urls] for _ in range(workers)]

    async def worker(nodes: list[Connection]) -> None:
        for number in numbers:
            await flow(nodes[number % len(nodes)], nodes[(number + 1) % len(nodes)], number)

    began = time.perf_counter()
    try:
        await asyncio.gather(*(worker(nodes) for nodes in pools))
    finally:
        for nodes in pools:
            for connection in nodes:
                await connection.close()
    return flows / (time.perf_counter() - began)


class Tally:
    """One cluster's flows, node CPU and wall time over the passes it was driven in."""

    def __init__(self, label: str, cluster: Any, urls: list[str] | None = None) -> None:
        self.label, self.cluster, self.urls = label, cluster, urls or cluster.urls
        self.flows, self.cpu, self.seconds = 0, 0.0, 0.0
        self.pass_costs: list[float] = []

    async def drive(self, flows: int, workers: int) -> None:
        pids = [node.process.pid for node in self.cluster.nodes]
        before, began = sum(cpu_time(pid) for pid in pids), time.perf_counter()
        await drive(self.urls, flows, workers)
        cpu = sum(cpu_time(pid) for pid in pids) - before
        self.seconds += time.perf_counter() - began
        self.flows += flows
        self.cpu += cpu
        self.pass_costs.append(cpu / flows)

    def print(self) -> None:
        print(f"  {self.label:<44} {self.flows / self.seconds:8.0f} flows/s "
              f"{self.cpu / self.flows * 1e6:8.0f} us node CPU per flow", flush=True)

    @property
    def per_flow(self) -> float:
        return self.cpu / self.flows


async def measure(label: str, cluster: Any, flows: int, workers: int, urls: list[str] | None = None) -> float:
    """Flows/s and the nodes' CPU per flow (printed) of one cluster on its own; returns CPU seconds per flow."""
    tally = Tally(label, cluster, urls)
    await drive(tally.urls, max(30, flows // 10), workers)  # warm up: connections, imports, Redis scripts
    await tally.drive(flows, workers)
    tally.print()
    return tally.per_flow


async def main(flows: int, workers: int, nodes: int, passes: int) -> None:
    print(f"cluster of {nodes} serve nodes, {flows} two-round delete_file flows, {workers} workers, "
          "each round on the next node:")
    if shutil.which("redis-server") is None:
        async with await start_cluster(nodes, shared_secret=True) as cluster:
            await measure("in-memory replay guard (per node)", cluster, flows, workers)
        print("  (redis-server not installed: apt-get install redis-server; the Redis rows are skipped)")
        return
    redis = await start_redis()
    try:
        # both clusters run at once and are driven in alternating passes, so both see the same machine
        async with await start_cluster(nodes, shared_secret=True) as memory_cluster, \
                await start_cluster(nodes, shared_secret=True, store=redis.url) as redis_cluster:
            memory = Tally("in-memory replay guard (per node)", memory_cluster)
            shared = Tally("shared Redis store (SET NX EX per completion)", redis_cluster)
            for tally in (memory, shared):  # warm up: connections, imports, Redis scripts
                await drive(tally.urls, max(30, flows // 10), workers)
            for number in range(passes):
                for tally in rotated([memory, shared], number):
                    await tally.drive(max(1, flows // passes), workers)
            memory.print()
            shared.print()
        spread = [r / m for r, m in zip(shared.pass_costs, memory.pass_costs, strict=True)]
        print(f"  RATIO node CPU per flow, Redis store / memory store: {shared.per_flow / memory.per_flow:.2f}x "
              f"({(shared.per_flow - memory.per_flow) * 1e6:+.0f} us; {min(spread):.2f}-{max(spread):.2f}x in "
              f"single passes, median {statistics.median(spread):.2f}x; {passes} alternating passes; goal <= 1.15x)")
        if shutil.which("haproxy") is None:
            print("  (haproxy not installed: apt-get install haproxy; the balancer row is skipped)")
            return
        port = free_port()
        async with await start_cluster(nodes, shared_secret=True, store=redis.url, balancer_port=port) as cluster:
            balancer = await start_haproxy(cluster.urls, port=port)
            try:
                await measure("shared Redis store behind HAProxy (one URL)", cluster, flows, workers, [balancer.url])
            finally:
                await balancer.stop()
    finally:
        await redis.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    # Single passes of a few hundred flows varied from 0.90x to 1.25x on the 2-core machine (six nodes, Redis and
    # the client share it), wider than the +15% goal itself; 12,000 flows in 12 passes take about half a minute.
    parser.add_argument("--flows", type=int, default=12_000)
    parser.add_argument("--short", action="store_true", help="a CI-sized run (2,000 flows in 4 passes)")
    parser.add_argument("--workers", type=int, default=12)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--passes", type=int, default=12, help="alternations between the memory and Redis clusters")
    options = parser.parse_args()
    if options.short:
        options.flows, options.passes = 2000, 4
    asyncio.run(main(options.flows, options.workers, options.nodes, options.passes))
