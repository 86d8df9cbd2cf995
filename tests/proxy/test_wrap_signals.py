"""`wrap` stopped by several signals, as real processes: more SIGTERMs still write the whole trace; a
second SIGINT stops at once and keeps the journal as a complete trace, said on stderr."""

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mrtr_studio.trace import files

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]

#: Echoes its input; slow to stop on SIGTERM (a second), deaf to SIGINT: a second signal comes while stopping.
SERVER = textwrap.dedent("""
    import signal, sys, time
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: (time.sleep(1.0), sys.exit(0)))
    while True:
        b = sys.stdin.buffer.readline()
        if not b:
            break
        sys.stdout.buffer.write(b)
        sys.stdout.buffer.flush()
""")
REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}\n'
REPLY = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}\n'


def start(tmp_path: Path, prefix: list[str] | None = None) -> tuple["subprocess.Popen[bytes]", Path]:
    trace = tmp_path / "t.mrtr.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MRTR_STUDIO_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen([*(prefix or []), sys.executable, "-m", "mrtr_studio", "wrap", "--no-feed", "--verbose",
                             "--trace", str(trace), "--", sys.executable, "-c", SERVER],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            start_new_session=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(REQUEST + REPLY)
    proc.stdin.flush()
    assert proc.stdout.readline() == REQUEST and proc.stdout.readline() == REPLY
    journal = Path(str(trace) + ".journal")
    for _ in range(200):  # the echo of the reply, as the call's response, lands in the journal
        if journal.exists() and b'"kind":"complete"' in journal.read_bytes():
            break
        time.sleep(0.05)
    assert stat.S_IMODE(journal.stat().st_mode) == 0o600
    return proc, trace


def finish(proc: "subprocess.Popen[bytes]") -> str:
    """Wait for the wrapper with its stdin still open (closing it would stop the server by itself)."""
    try:
        proc.wait(timeout=60)
        assert proc.stderr is not None
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=10)
    return err.decode()


def test_sigterm_to_the_wrapper_and_its_group_writes_the_whole_trace(tmp_path: Path) -> None:
    proc, trace = start(tmp_path)
    proc.send_signal(signal.SIGTERM)
    os.killpg(proc.pid, signal.SIGTERM)  # what timeout(1) does next
    time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGTERM)  # once more, while the server takes its time to stop
    err = finish(proc)
    assert f"trace saved to {trace}" in err, err
    assert not Path(str(trace) + ".journal").exists()
    operations, messages = files.open_trace(trace)
    assert [op.target for op in operations if op.method != "session"] == ["t"] and messages[-1].kind == "complete"
    assert stat.S_IMODE(trace.stat().st_mode) == 0o600


def test_timeout_s_term_leaves_the_whole_trace(tmp_path: Path) -> None:
    proc, trace = start(tmp_path, ["timeout", "-s", "TERM", "3"])
    err = finish(proc)
    assert proc.returncode == 124
    assert f"trace saved to {trace}" in err, err
    assert [op.target for op in files.read_trace(trace).operations if op.method != "session"] == ["t"]


def test_a_second_sigint_stops_at_once_and_keeps_an_openable_journal(tmp_path: Path) -> None:
    proc, trace = start(tmp_path)
    began = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.3)  # the server is still stopping (it takes a second)
    os.killpg(proc.pid, signal.SIGINT)
    err = finish(proc)
    assert time.monotonic() - began < 10
    journal = Path(str(trace) + ".journal")
    assert not trace.exists()
    assert "stopped at once (Ctrl+C twice)" in err and f"{journal} keeps the 2 operation(s)" in err, err
    assert "Traceback" not in err, err
    opened = files.read_trace(journal)
    assert [op.target for op in opened.operations if op.method != "session"] == ["t"]
    assert opened.messages[-1].kind == "complete"
