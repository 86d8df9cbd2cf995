"""What waits for the window to be complete (`ui.main.after_launch`): the arguments' first verdict (its
jsonschema import is not on the launch's path) and the collector paused by `startup`. The verdict is
held, never lost; the real launch through the entry point completes and exits cleanly."""

import gc
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from mrtr_studio import startup
from mrtr_studio.ui.main import after_launch
from mrtr_studio.ui.main_window import MainWindow
from tests.ui.launch_probe import probed_launch_env
from tests.ui.test_main_window import Runner, arun  # noqa: F401  (fixtures)
from tests.ui.test_side_column_steady import win  # noqa: F401  (the window at both sizes)


def test_a_held_verdict_is_given_once_the_launch_is_over(win: MainWindow) -> None:  # noqa: F811
    panel = win.arguments
    assert win.explorer.select("count_roots", "tool")
    QApplication.processEvents()
    panel.message.setText("")
    panel.hold_checks()
    assert win.explorer.select("delete_file", "tool")  # its `path` is required and empty
    QApplication.processEvents()
    assert panel.message.text() == ""  # held: nothing judged yet
    startup.pause()
    try:
        after_launch(win)
        # the pause is over; collection is the GUI thread's timer's (ui/gui_thread_collector.py)
        assert not startup.paused() and not gc.isenabled()
    finally:
        startup.ready()
        gc.unfreeze()
    assert panel.message.text().startswith("⚠ Does not match the input schema") and "path" in panel.problem()
    after_launch(win)  # again: nothing changes
    assert panel.message.text().startswith("⚠")


def test_the_real_launch_completes_and_exits_cleanly(tmp_path: Path, qapp: Any) -> None:
    """`python -m mrtr_studio` with the launch probe: the window becomes complete (the probe says so and
    closes it) with the collector paused from the first line, and the process ends with status 0."""
    env = probed_launch_env(tmp_path)
    done = subprocess.run([sys.executable, "-m", "mrtr_studio"], capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "launch complete at " in done.stdout
    assert "Traceback" not in done.stderr


def test_the_tabs_probe_shows_each_teaching_view_after_complete(tmp_path: Path) -> None:
    """`MRTR_STUDIO_LAUNCH_PROBE=tabs` (tools/bench_launch.py): complete first, then each teaching view,
    which the launch did not build, shown and timed in turn."""
    env = {**probed_launch_env(tmp_path), "MRTR_STUDIO_LAUNCH_PROBE": "tabs"}
    done = subprocess.run([sys.executable, "-m", "mrtr_studio"], capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("launch complete at ")
    shows = [line.split() for line in lines[1:] if line.startswith("first show ")]
    assert [words[2] for words in shows] == ["lessons", "lab", "eras", "cluster"]
    assert all(0 < float(words[3]) < 60 for words in shows)


def _collector_at_exit(tmp_path: Path, *argv: str) -> tuple[int, bool, bool]:
    """At the exit of a real launch (probe on) with `argv`: `gc.get_freeze_count()`, whether automatic
    collection was on, and whether the GUI thread's collector was installed."""
    code = ("import atexit, gc, sys\n"
            "from mrtr_studio.ui import gui_thread_collector as c\n"
            "atexit.register(lambda: print('frozen', gc.get_freeze_count(), gc.isenabled(),\n"
            "                              c.installed() is not None))\n"
            "from mrtr_studio.__main__ import main\n"
            "sys.argv = ['mrtr-studio', *sys.argv[1:]]\n"
            "main()\n")
    env = probed_launch_env(tmp_path)
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and "launch complete at " in done.stdout, done.stderr[-2000:]
    frozen, automatic, installed = done.stdout.split("frozen ")[1].split()[:3]
    return int(frozen), automatic == "True", installed == "True"


def test_a_trace_opened_at_launch_is_not_frozen(tmp_path: Path) -> None:
    """Frozen objects are never collected, so the collector resumes (freezing the modules and the studio)
    before a trace named on the command line is read: 20,000 messages add nothing to the frozen set."""
    trace = tmp_path / "big.mrtr.json"
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, str(root / "tools" / "synthetic_trace.py"), str(trace), "--operations", "5000"],
                   check=True, capture_output=True, timeout=120, env={**os.environ, "PYTHONPATH": str(root)})
    plain, automatic, installed = _collector_at_exit(tmp_path / "a")
    with_trace, _, _ = _collector_at_exit(tmp_path / "b", str(trace))
    # and the window collects on its GUI thread's timer, never automatically (on whichever thread allocates)
    assert installed and not automatic
    assert plain > 50_000  # the launch's modules and window were frozen
    assert with_trace < plain + 20_000, (plain, with_trace)  # not the trace's objects (hundreds of thousands)
