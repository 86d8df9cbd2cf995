"""What `mrtr-studio load` can drive: its flows/s against the floor server (tools/floor_server.py, an
MRTR server that costs next to nothing, so the figure is `load`'s own ceiling), then against `serve`,
beside the project's bench client (tools/bench.py's raw HTTP/1.1 connections) against the same
`serve`. The ratios are printed, never asserted: on a shared two-core machine they say where the
time goes (httpx costs more CPU per request than the servers measured, see bench_client.py).
"""

import argparse
import asyncio
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from bench import Target, drive, start, stop  # noqa: E402

from mrtr_studio.replay.load import LoadPlan, LoadRun  # noqa: E402


def run_load(url: str, concurrency: int, seconds: float, client: str = "raw") -> tuple[float, float]:
    """flows/s and the client's CPU seconds per flow of one `load` run."""
    plan = LoadPlan(url, "delete_file", {"path": "/tmp/bench"}, concurrency, seconds)
    cpu = time.process_time()
    report = asyncio.run(LoadRun(plan, client=client).run())
    if report.failed:
        print(f"  ({report.failed} flow(s) failed: {report.total.errors})")
    return report.flows_per_second, (time.process_time() - cpu) / max(report.completed, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--flows", type=int, default=1500, help="flows of the bench client against serve")
    args = parser.parse_args()
    floor = Target("floor", [sys.executable, str(HERE / "floor_server.py")])
    served = Target("serve", [sys.executable, "-m", "mrtr_studio", "serve", "--port", "0"])
    try:
        start(floor, None)
        start(served, None)
        run_load(served.url, args.concurrency, 0.5)  # warm-up
        floor_rate, floor_cpu = run_load(floor.url, args.concurrency, args.seconds)
        load_rate, load_cpu = run_load(served.url, args.concurrency, args.seconds)
        httpx_rate, httpx_cpu = run_load(floor.url, args.concurrency, args.seconds, "httpx")
        asyncio.run(drive(served, args.flows, args.concurrency, "raw"))
    finally:
        stop(floor)
        stop(served)
    bench_rate = served.flows / served.seconds
    print(f"{args.concurrency} concurrent two-round delete_file flows")
    print(f"load against the floor server: {floor_rate:8.0f} flows/s ({floor_cpu * 1e6:.0f} us client CPU per flow)")
    print(f"load against serve:            {load_rate:8.0f} flows/s ({load_cpu * 1e6:.0f} us client CPU per flow)")
    print(f"load --client httpx, floor:    {httpx_rate:8.0f} flows/s ({httpx_cpu * 1e6:.0f} us client CPU per flow)")
    print(f"bench client against serve:    {bench_rate:8.0f} flows/s "
          f"({served.client_cpu_seconds / max(served.flows, 1) * 1e6:.0f} us client CPU per flow)")
    print(f"ratio load(floor) / bench(serve): {floor_rate / bench_rate:.2f}x "
          "(above 1: load can drive more than serve takes)")
    print(f"ratio load(serve) / bench(serve): {load_rate / bench_rate:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
