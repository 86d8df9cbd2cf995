"""`mrtr-studio load`: its figures are right against a server whose latency is known (a fixed delay per
answer: every round's p50 is at least that delay, a two-round flow's at least twice it), errors are
counted by code and data.reason, and a cluster's `x-served-by` splits the figures per node. These
check the figures' correctness, not the speed of anything."""

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mrtr_studio.replay.load import percentiles
from tests.replay.processes import ROOT, command, environment

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
FLOOR = ROOT / "tools" / "floor_server.py"


@contextmanager
def floor_server(*flags: str) -> Iterator[str]:
    proc = subprocess.Popen([sys.executable, str(FLOOR), *flags], stdout=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        found = re.fullmatch(r"listening on (\S+)\n", proc.stdout.readline())
        assert found
        yield found.group(1)
    finally:
        proc.terminate()
        proc.wait(10)


def load(url: str, *flags: str) -> tuple[int, dict]:
    done = subprocess.run(command("load", url, *flags, "--json"), env=environment(), capture_output=True, text=True,
                          timeout=90, stdin=subprocess.DEVNULL)
    return done.returncode, json.loads(done.stdout)


def test_percentiles_are_measured_values_by_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentiles(values) == {"count": 100, "p50": 50.0, "p90": 90.0, "p99": 99.0}
    assert percentiles([7.0]) == {"count": 1, "p50": 7.0, "p90": 7.0, "p99": 7.0}
    assert percentiles([]) == {"count": 0}


@pytest.mark.parametrize("client", ["raw", "httpx"])
def test_against_a_known_delay_every_round_takes_at_least_the_delay(client: str) -> None:
    with floor_server("--delay-ms", "40") as url:
        status, report = load(url, "--tool", "delete_file", "--concurrency", "4", "--duration", "1",
                              "--client", client)
    assert status == 0
    assert report["failed"] == 0 and report["completed"] >= 4
    assert set(report["rounds"]) == {"1", "2"}
    for stats in report["rounds"].values():
        assert stats["count"] == report["completed"]
        assert stats["p50"] >= 40.0
    assert report["flow"]["p50"] >= 80.0
    assert report["flow"]["p50"] <= report["flow"]["p90"] <= report["flow"]["p99"]
    # 4 workers, each flow at least 80 ms: no more flows than that leaves room for
    assert report["completed"] <= 4 * (report["seconds"] / 0.080) + 4


def test_rate_paces_the_starts() -> None:
    with floor_server() as url:
        status, report = load(url, "--tool", "delete_file", "--concurrency", "4", "--duration", "1", "--rate", "10")
    assert status == 0
    assert report["completed"] == 10  # starts at 0, 0.1, ... 0.9 s


def test_errors_by_code_and_reason_and_figures_per_node() -> None:
    with floor_server("--nodes", "2") as url:
        status, report = load(url, "--tool", "expiring", "--concurrency", "2", "--duration", "0.5")
    assert status == 1  # flows failed
    assert report["completed"] == 0 and report["failed"] > 0
    assert report["errors"] == {"-32602 expired": report["failed"]}
    assert set(report["nodes"]) == {"node-0", "node-1"}
    assert sum(n["rounds"]["1"]["count"] for n in report["nodes"].values()) == report["failed"]
    assert sum(sum(n["errors"].values()) for n in report["nodes"].values()) == report["failed"]


def test_bad_flags_are_usage_errors(tmp_path: Path) -> None:
    for flags, named in ((["--concurrency", "0", "--duration", "1"], "--concurrency"),
                         (["--concurrency", "1", "--duration", "-1"], "--duration"),
                         (["--concurrency", "1", "--duration", "1", "--args", "[1]"], "--args")):
        done = subprocess.run(command("load", "http://127.0.0.1:9/mcp", "--tool", "t", *flags), env=environment(),
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 2 and named in done.stderr, (flags, done.stderr)
