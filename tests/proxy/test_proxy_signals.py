"""A recording proxy stopped by several signals, as real processes: more SIGTERMs (what `timeout` sends,
to the process and then to its group) still write the whole trace; a second SIGINT stops at once and
keeps the journal as a complete trace, said on stderr; a recorder that died is counted, not hidden."""

import os
import re
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mrtr_studio.trace import files
from tests.cli.test_serve_command import serve

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    with serve(env={"PYTHONPATH": str(ROOT)}) as (_, url):
        yield url


def start(command: list[str]) -> tuple["subprocess.Popen[str]", str]:
    """The proxy (under `command`'s wrapper, if any) in a process group of its own, and its URL."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                            start_new_session=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"listening on (http://\S+)", line)
    assert found, (line, proc.stderr.read() if proc.stderr else "")
    return proc, found.group(1)


def proxy_command(upstream: str, trace: Path) -> list[str]:
    return [sys.executable, "-m", "mrtr_studio", "proxy", "--listen", "127.0.0.1:0", "--upstream", upstream,
            "--trace", str(trace)]


def traffic(url: str, calls: int = 2) -> None:
    for _ in range(calls):  # no answers file: each call records its first round and stops there
        subprocess.run([sys.executable, "-m", "mrtr_studio", "call", url, "--tool", "delete_file",
                        "--args", '{"path": "/a"}'], env=ENV, capture_output=True, timeout=60)


def finish(proc: "subprocess.Popen[str]") -> str:
    try:
        _, err = proc.communicate(timeout=70)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=10)
    return err


def test_timeout_s_term_leaves_the_whole_trace(upstream: str, tmp_path: Path) -> None:
    trace = tmp_path / "t.mrtr.json"
    proc, url = start(["timeout", "-s", "TERM", "6", *proxy_command(upstream, trace)])
    traffic(url)
    began = time.monotonic()
    err = finish(proc)
    assert proc.returncode == 124  # timeout's own status: it did stop the proxy
    assert time.monotonic() - began < 30
    said = re.search(r"proxy: (\d+) operation\(s\) recorded to " + re.escape(str(trace)), err)
    assert said, err
    assert "not recorded" not in err and "Traceback" not in err, err
    assert not Path(str(trace) + ".journal").exists()
    opened = files.read_trace(trace)
    assert int(said.group(1)) == len(opened.operations)  # the calls and the session's housekeeping
    assert [op.target for op in opened.operations if op.method != "session"] == ["delete_file", "delete_file"]
    assert stat.S_IMODE(trace.stat().st_mode) == 0o600


def test_term_to_the_process_then_to_its_group_still_writes_the_trace(upstream: str, tmp_path: Path) -> None:
    trace = tmp_path / "t.mrtr.json"
    proc, url = start(proxy_command(upstream, trace))
    traffic(url)
    proc.send_signal(signal.SIGTERM)
    os.killpg(proc.pid, signal.SIGTERM)  # what timeout(1) does next: the recorder child gets it too
    time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGTERM)  # and once more, while it is stopping
    err = finish(proc)
    assert proc.returncode == 0, err
    assert "3 operation(s) recorded to" in err, err
    assert [op.method for op in files.read_trace(trace).operations] == ["session", "tools/call", "tools/call"]
    assert not Path(str(trace) + ".journal").exists()


def test_a_second_sigint_stops_at_once_and_keeps_an_openable_journal(upstream: str, tmp_path: Path) -> None:
    trace = tmp_path / "t.mrtr.json"
    proc, url = start(proxy_command(upstream, trace))
    traffic(url)
    journal = Path(str(trace) + ".journal")
    assert stat.S_IMODE(journal.stat().st_mode) == 0o600  # private while recording, from its first byte
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl+C reaches the whole group
    time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    err = finish(proc)
    assert not trace.exists()
    assert "stopped at once (Ctrl+C twice)" in err and f"{journal} keeps the 3 operation(s)" in err, err
    assert "a complete trace the studio opens" in err and "Traceback" not in err, err
    opened = files.read_trace(journal)
    assert [op.target for op in opened.operations if op.method != "session"] == ["delete_file", "delete_file"]
    assert opened.journal is not None and "is a journal" in opened.journal


def test_a_dead_recorder_is_said_with_the_messages_it_missed(upstream: str, tmp_path: Path) -> None:
    trace = tmp_path / "t.mrtr.json"
    proc, url = start(proxy_command(upstream, trace))
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    [recorder] = [int(pid) for pid in children if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text()]
    os.kill(recorder, signal.SIGKILL)
    traffic(url, calls=1)
    proc.send_signal(signal.SIGTERM)
    err = finish(proc)
    assert "the recorder ended unexpectedly (exit status -9)" in err, err
    missed = re.search(r"(\d+) message\(s\) relayed but not recorded", err)
    assert missed and int(missed.group(1)) >= 2, err  # the call's request and its response at least
