"""SIGTERM is a clean quit: the real GUI process, offscreen with its own HOME, runs a flow, gets
SIGTERM and exits 0; the next start finds a last session, not a crashed run to recover. SIGKILL,
the crash it used to be mistaken for, still is recovered (so the check can tell them apart)."""

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mrtr_studio.studio.controller import Studio

ROOT = Path(__file__).resolve().parents[2]


def start_gui(home: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(HOME=str(home), QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "mrtr_studio", "--scenario", "delete_file", "--auto"],
                            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_line(process: subprocess.Popen[str], wanted: str, limit: float = 60.0) -> str:
    """Read the process's stdout until a line holds `wanted` (or fail after `limit` seconds)."""
    assert process.stdout is not None
    deadline = time.monotonic() + limit
    seen = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.5)
        if ready:
            line = process.stdout.readline()
            if not line and process.poll() is not None:
                break
            seen.append(line)
            if wanted in line:
                return line
        elif process.poll() is not None:
            break
    process.kill()
    pytest.fail(f"no {wanted!r} from the GUI; stdout: {seen}; stderr: {process.communicate()[1][-2000:]}")


@pytest.mark.parametrize(("sig", "clean"), [(signal.SIGTERM, True), (signal.SIGKILL, False)], ids=["term", "kill"])
def test_sigterm_closes_the_window_and_the_next_start_recovers_nothing(tmp_path: Path, sig: int,
                                                                       clean: bool) -> None:
    process = start_gui(tmp_path)
    try:
        wait_for_line(process, "delete_file: complete")  # the flow ran and is in the journal
        journals = list(tmp_path.rglob("autosave.mrtr.jsonl"))
        assert len(journals) == 1 and journals[0].stat().st_size > 0
        process.send_signal(sig)
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
    assert code == (0 if clean else -signal.SIGKILL)
    studio = Studio()  # the next start, as run_gui does it
    recovered = studio.start_autosave(journals[0])
    try:
        notices = " ".join(text for _level, text in studio.autosave_notices)
        if clean:
            assert recovered == 0 and "Recovered" not in notices, notices
            # the journal became the last session: "Reopen the last session" has the flow
            assert studio.reopen_last_session(journals[0]) == 1
        else:
            assert recovered == 1 and "Recovered 1 operation(s)" in notices
    finally:
        assert studio.autosave is not None
        studio.autosave.close()
