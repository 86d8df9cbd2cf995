"""`proxy` records in a child process: killed, the proxy leaves no recorder behind, and the recorder
writes what it was given."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_killed_proxy_leaves_no_recorder_behind(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "mrtr_studio", "proxy", "--listen", "127.0.0.1:0", "--upstream",
                             "http://127.0.0.1:9/mcp", "--trace", str(tmp_path / "t.mrtr.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        assert proc.stdout is not None
        assert re.match(r"listening on http://127\.0\.0\.1:\d+/mcp", proc.stdout.readline())
        recorders = [pid for pid in children(proc.pid) if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text()]
        assert len(recorders) == 1
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        for _ in range(200):  # it notices within a second or two
            if not alive(recorders[0]):
                break
            time.sleep(0.05)
        assert not alive(recorders[0])
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
