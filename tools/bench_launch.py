"""`make bench`: how long the window takes to be complete after launch, as a person sees it; prints, asserts nothing.

    .venv/bin/python tools/bench_launch.py [--launches 11] [--short] [--platforms offscreen,xcb]

What is timed: the real command (`.venv/bin/mrtr-studio`, as `make run` launches it) in a fresh process,
from the parent's clock just before it spawns it to the moment the window is complete: painted, every
menu filled and every panel constructed, in the mode last left in, with the view of the centre tab it
shows built (the window's `complete` signal). The teaching views of the other tabs (lessons, lab, eras,
cluster) are built the first time each is shown, so that is timed too: after the rounds, a few launches
with the probe set to `tabs` show each in turn once complete, and a row prints the median from showing a
view to it built and painted. The child says when with `MRTR_STUDIO_LAUNCH_PROBE=1` (ui/main.py), which
prints `launch complete at <time.time()>` and closes the window. Each platform gets one launch first
that is not counted (it writes the settings a person's later launches read, and warms the file cache as
any earlier launch would), then `--launches` counted ones; median and best. The anchors' launches and
the studio's are interleaved, a round launching each once: this machine's speed drifts by a third over
minutes, and rounds in turn put the same drift under every row of a ratio.

Python's bytecode cache is on for every launch measured (PYTHONDONTWRITEBYTECODE is dropped from the
children's environment, so the uncounted launch writes it, as a person's first launch or pip's install
does): a shell that sets PYTHONDONTWRITEBYTECODE would otherwise compile every module from source at
each launch (about 0.45 s of this one on the 2-core machine), which is not what a person's launch does.
`--no-bytecode-cache` measures that case instead.

Platforms: `offscreen`, and `xcb` on a private Xvfb display (1366x768x24) with openbox as its window
manager, started and stopped here (skipped, saying so, when Xvfb or openbox is missing).

Anchors, measured the same way in the same run: a bare interpreter (`python -c pass`), and an empty
Qt window (PySide6 imported, a QApplication, an empty QMainWindow shown and painted): the floor no
PySide6 window can go under. Printed: the ratio of the launch to the 0.7 s goal (issue #23) and to
that floor. Settings, autosave journal and the studio's home are a scratch directory, never the
person's.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL = 0.7  # seconds, launch to the window complete (issue #23)
MARK = "launch complete at "
SHOW_MARK = "first show "

#: The floor: an empty QMainWindow, shown; prints time.time() once its first paint pass is over.
EMPTY_WINDOW = """
import time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication([])
window = QMainWindow()
window.setWindowTitle("empty")
window.resize(1200, 700)
class Painted(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint:
            window.removeEventFilter(self)
            QTimer.singleShot(0, lambda: (print(f"launch complete at {time.time():.6f} cpu {time.process_time():.6f}",
                                                flush=True), app.quit()))
        return False
spy = Painted()
window.installEventFilter(spy)
window.show()
app.exec()
"""
BARE = f"import time; print(f'{MARK}{{time.time():.6f}} cpu {{time.process_time():.6f}}')"


def studio_command() -> list[str]:
    """The console script beside this interpreter (.venv/bin/mrtr-studio), as `make run` starts it."""
    script = Path(sys.executable).parent / "mrtr-studio"
    if script.exists():
        return [str(script)]
    print(f"(no {script}: timing {sys.executable} -m mrtr_studio instead)")
    return [sys.executable, "-m", "mrtr_studio"]


class LaunchFailed(RuntimeError):
    """A launch ended without saying it was complete (the platform plugin could not load, a crash)."""


def launch_once(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from just before the spawn to the child's `launch complete at` time, and the CPU seconds
    the child had used by then (its own count: steadier than wall time when other work shares the cores)."""
    started = time.time()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    for line in done.stdout.splitlines():
        if line.startswith(MARK):
            at, _, cpu = line[len(MARK):].partition(" cpu ")
            return float(at) - started, float(cpu)
    said = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    raise LaunchFailed(f"exited {done.returncode} without saying it was complete"
                       + (f" ({said[0][:200]})" if said else ""))


def measure(commands: list[list[str]], env: dict[str, str], launches: int) -> list[list[tuple[float, float]]]:
    """Each command's launches, interleaved (a round launches each once, in turn), so a slow stretch of a
    shared machine weighs on the anchors and the studio alike; one uncounted launch of each first."""
    for command in commands:
        launch_once(command, env)  # not counted: settings written, files cached
    runs: list[list[tuple[float, float]]] = [[] for _ in commands]
    for _ in range(launches):
        for command, taken in zip(commands, runs, strict=True):
            taken.append(launch_once(command, env))
    return runs


@contextmanager
def xvfb_with_openbox() -> Iterator[dict[str, str] | None]:
    """A private X display with a window manager: the environment to run under it (None: not available)."""
    xvfb, openbox = shutil.which("Xvfb"), shutil.which("openbox")
    if not xvfb or not openbox:
        print(f"xcb: skipped ({'Xvfb' if not xvfb else 'openbox'} is not installed)")
        yield None
        return
    read, write = os.pipe()
    server = subprocess.Popen([xvfb, "-displayfd", str(write), "-screen", "0", "1366x768x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as numbers:
        number = numbers.readline().strip()  # written once the display accepts clients
    manager = None
    try:
        if not number:
            print("xcb: skipped (Xvfb did not start)")
            yield None
            return
        env = {**os.environ, "DISPLAY": f":{number}", "QT_QPA_PLATFORM": "xcb"}
        manager = subprocess.Popen([openbox], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # openbox takes the screen (its frames, focus) before the first window maps
        yield env
    finally:
        for process in (manager, server):
            if process is not None:
                process.terminate()
                process.wait(timeout=10)


def report(label: str, runs: list[tuple[float, float]]) -> tuple[float, float]:
    """Prints the wall times' median and best, and the CPU seconds' median; returns both medians."""
    seconds, cpu = [wall for wall, _ in runs], statistics.median(cpu for _, cpu in runs)
    median = statistics.median(seconds)
    print(f"  {label:58} median {median:6.3f} s  best {min(seconds):6.3f} s  cpu {cpu:6.3f} s  "
          f"(of {len(seconds)}: {', '.join(f'{s:.2f}' for s in seconds)})")
    return median, cpu


def missing_packages() -> str:
    """The `apt-get install` line for what Qt's xcb plugin lacks here: the studio's own (as `make run` says it)."""
    sys.path.insert(0, str(ROOT))
    from mrtr_studio.studio import qt_libraries

    base = qt_libraries.pyside_dir()
    missing = qt_libraries.missing_libraries(base) if base else []
    return f"; {qt_libraries.install_command(missing)}" if missing else ""


def bench(platform: str, env: dict[str, str], launches: int, bytecode_cache: bool = True) -> bool:
    """One platform's rows; False (said in one line) when its windows could not be launched."""
    try:
        measure_platform(platform, env, launches, bytecode_cache)
    except LaunchFailed as failed:
        hint = missing_packages() if platform == "xcb" else ""
        print(f"  {platform}: not measured, a window {failed}{hint}")
        return False
    return True


def measure_platform(platform: str, env: dict[str, str], launches: int, bytecode_cache: bool = True) -> None:
    scratch = tempfile.mkdtemp(prefix="mrtr-bench-launch-")
    env = {name: value for name, value in env.items() if name != "PYTHONDONTWRITEBYTECODE"}
    if not bytecode_cache:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = os.path.join(scratch, "pycache")  # an empty cache that stays empty
    env = {**env, "QT_QPA_PLATFORM": platform, "MRTR_STUDIO_LAUNCH_PROBE": "1",
           "XDG_CONFIG_HOME": os.path.join(scratch, "config"), "XDG_DATA_HOME": os.path.join(scratch, "data"),
           "XDG_CACHE_HOME": os.path.join(scratch, "cache"), "MRTR_STUDIO_HOME": os.path.join(scratch, "home"),
           "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
    try:
        print(f"{platform} (bytecode cache {'on' if bytecode_cache else 'off: every module compiled at each launch'}):")
        bare_runs, floor_runs, our_runs = measure(
            [[sys.executable, "-c", BARE], [sys.executable, "-c", EMPTY_WINDOW], studio_command()], env, launches)
        bare = report("anchor: a bare interpreter (python -c pass)", bare_runs)
        floor = report("anchor: an empty Qt window (PySide6, QApplication, shown)", floor_runs)
        ours = report("mrtr-studio, launch to the window complete", our_runs)
        print(f"  RATIO: launch {ours[0]:.3f} s / goal {GOAL} s = {ours[0] / GOAL:.2f}; "
              f"/ empty Qt window {floor[0]:.3f} s = {ours[0] / floor[0]:.2f} (cpu {ours[1] / floor[1]:.2f}); "
              f"above it: {ours[0] - floor[0]:.3f} s (interpreter alone {bare[0]:.3f} s)")
        report_first_shows(env, max(3, launches // 2))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def first_shows(env: dict[str, str]) -> dict[str, float]:
    """One launch with the probe set to `tabs`: seconds from showing each teaching view to it painted."""
    done = subprocess.run(studio_command(), env={**env, "MRTR_STUDIO_LAUNCH_PROBE": "tabs"}, capture_output=True,
                          text=True, timeout=120)
    shows = {}
    for line in done.stdout.splitlines():
        if line.startswith(SHOW_MARK):
            key, _, seconds = line[len(SHOW_MARK):].partition(" ")
            shows[key] = float(seconds)
    if not shows:
        raise LaunchFailed(f"exited {done.returncode} without timing the teaching views")
    return shows


def report_first_shows(env: dict[str, str], launches: int) -> None:
    runs = [first_shows(env) for _ in range(launches)]
    medians = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    print(f"  after complete, a teaching view's first show (built, then painted), median of {launches}: "
          + ", ".join(f"{key} {seconds * 1000:.0f} ms" for key, seconds in medians.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=11, help="counted launches per measurement (default 11)")
    parser.add_argument("--short", action="store_true", help="a CI-sized run: 3 launches")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="compile every module at each launch (as under PYTHONDONTWRITEBYTECODE with no cache)")
    parser.add_argument("--platforms", default="offscreen,xcb", help="comma-separated: offscreen, xcb (Xvfb+openbox)")
    args = parser.parse_args()
    launches = 3 if args.short else max(args.launches, 1)
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"launch to the window complete, {launches} launches each after one uncounted (load {load:.2f}, "
          f"{os.cpu_count()} cores)")
    measured = True
    for platform in args.platforms.split(","):
        if platform == "xcb":
            with xvfb_with_openbox() as env:
                if env is not None:
                    measured = bench("xcb", env, launches, not args.no_bytecode_cache) and measured
        else:
            measured = bench(platform, dict(os.environ), launches, not args.no_bytecode_cache) and measured
    return 0 if measured else 1


if __name__ == "__main__":
    sys.exit(main())
