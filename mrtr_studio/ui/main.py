"""`run_gui(args)`: the studio window on a qasync loop; `--scenario NAME --auto --screenshot-dir DIR`.

With `--auto` the scenario runs in the real window, every input answered with schema defaults,
holding before each send (one screenshot per step when `--screenshot-dir` is given), then exits 0
when the run ended the way the scenario expects.

`MRTR_STUDIO_LAUNCH_PROBE=1` (for tools/bench_launch.py, not a user setting; `tabs`: also the first
show of each teaching view, see `probe_complete`): once the window is complete (`MainWindow.complete`:
painted, in the mode last left in, with the view of the tab it shows built), print
`launch complete at <time.time()> cpu <time.process_time()>` on stdout and close it, so a parent
that noted the time before spawning the real command reads how long the launch took as a person sees
it (and the CPU seconds the process spent to get there, steadier on a busy machine).
"""

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QRect, QSettings, QStandardPaths, QTimer
from PySide6.QtWidgets import QApplication

from .. import startup
from ..studio.controller import Studio, describe_error
from ..studio.demo_runs import DEMO_RUNS, DemoRun
from ..studio.trace_argument import open_on_start
from ..teaching.lessons import LESSONS_BY_ID
from . import gui_thread_collector
from .async_bridge import install_event_loop
from .main_window import MainWindow
from .mode_shots import SCENARIO as MODES_SCENARIO
from .mode_shots import run_modes
from .quit_signals import quit_on_terminate
from .teaching.install import VIEW_KEYS

if TYPE_CHECKING:  # loaded only when asked for (--scenario oauth, --otlp-endpoint): the window does without them
    from ..studio.oauth_demo import ProtectedDemo

ORGANIZATION = "MRTR Studio"
APPLICATION = "MRTR Studio"
#: Set (non-empty): say when the window is complete, then close it (see the module's docstring).
LAUNCH_PROBE = "MRTR_STUDIO_LAUNCH_PROBE"
#: What waits for the launch (`after_launch`) runs when the window is complete, or after this long at the latest.
STARTUP_AT_THE_LATEST_MS = 5000


async def settle(app: QApplication, seconds: float = 0.15) -> None:
    """Let Qt lay out and paint (views rebuild on zero-timers) before a screenshot.

    Only by awaiting: the Qt loop runs meanwhile. app.processEvents() here, inside a task, made
    qasync step other tasks re-entrantly ("Cannot enter into task … while another task … is being
    executed"), and the step it refused was lost (the explorer's Skills listing never finished).
    """
    del app  # kept in the signature: callers name the application whose events settle
    for _ in range(3):
        await asyncio.sleep(seconds / 3)


def prepare(window: MainWindow, demo: DemoRun) -> None:
    """Set the client panel, pick the target and fill its arguments as the scenario says."""
    panel = window.client_panel
    panel.load({"era": demo.era, "capabilities": sorted(demo.capabilities), "identity": demo.identity})
    kind = {"tools/call": "tool", "prompts/get": "prompt", "resources/read": "resource"}[demo.method]
    if not window.explorer.select(demo.target, kind):
        raise LookupError(f"{demo.target} is not on the connected server")
    window.arguments.set_arguments(dict(demo.arguments))


async def run_demo(window: MainWindow, demo: DemoRun, shots: Path | None) -> int:
    """Run `demo` in the window, stepping through every send; 0 when it ends as expected."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    studio = window.studio
    if studio.catalog is None and await studio.connect() is None:
        return 1
    prepare(window, demo)
    if demo.tamper:
        studio.tamper(demo.tamper)
    count = 0

    async def shot(name: str) -> None:
        nonlocal count
        if shots is None:
            return
        count += 1
        await settle(app)
        window.grab().save(str(shots / f"{count:02d}-{name}.png"))

    await shot("ready")
    if not window.launch(step=True):
        return 1
    task = studio.runner.task
    assert task is not None
    while not task.done():
        if studio.pending is not None:
            await shot(f"round{studio.pending.round}-before-send")
            window.step_clicked()
        await asyncio.sleep(0.02)
    result = task.result()
    outcome = result.final if result else None  # a task's end, when the call became one
    await shot("result" if outcome and outcome.outcome == "complete" else "error")
    if outcome is None:
        return 1
    print(f"{demo.name}: {outcome.outcome} {describe_error(outcome.error)}".rstrip())
    if demo.expect == "complete":
        return 0 if outcome.outcome == "complete" else 1
    return 0 if outcome.error is not None and outcome.error.get("code") == demo.expect else 1


async def run_oauth(window: MainWindow, demo: "ProtectedDemo", shots: Path | None) -> int:
    """The OAuth demo, run: connect (the flow runs on the first 401), then delete_file, then a look at the
    authorization drawn before its rounds and at the Auth tab."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    window.explorer.show_entry(demo.entry())
    if await window.studio.connect(demo.entry()) is None:
        return 1
    code = await run_demo(window, DEMO_RUNS["delete_file"], shots)
    window.diagram.scroll_to_top()
    await settle(app, 0.3)
    if shots is not None:
        window.grab().save(str(shots / "90-authorization.png"))
    window.show_inspector(window.auth_view)
    await settle(app, 0.3)
    if shots is not None:
        window.grab().save(str(shots / "91-auth-tab.png"))
    return code


TEACHING_SCENARIOS = ("lab", "eras", "cluster", MODES_SCENARIO)


def is_teaching(scenario: str) -> bool:
    return scenario in TEACHING_SCENARIOS or (scenario.startswith("lesson:") and scenario[7:] in LESSONS_BY_ID)


async def run_teaching(window: MainWindow, scenario: str, shots: Path | None) -> int:
    """Open a teaching tab (`lesson:ID`, `lab`, `eras`, `cluster`), run it, and screenshot the result."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    if scenario == MODES_SCENARIO:
        return await run_modes(window, shots)
    teaching = window.teaching
    name = "lessons" if scenario.startswith("lesson:") else scenario
    # the view in its own mode, as the window shows it (Eras: a tab of Learn's, beside the lessons)
    window.modes.switch({"lessons": "learn", "eras": "learn", "lab": "lab", "cluster": "cluster"}[name])
    teaching.show(name)
    view = getattr(teaching, name)
    if name == "lessons":
        view.select_lesson(scenario[7:])
    elif name == "cluster":
        await _finish(view.start())
    await settle(app)
    if shots is not None:
        window.grab().save(str(shots / "01-ready.png"))
    result = await _finish(view.run() if name == "cluster" else view.start())
    await settle(app, 0.5)
    if shots is not None:
        window.grab().save(str(shots / "02-done.png"))
    if name == "cluster":
        await _finish(view.stop())
    return 0 if result is not None else 1


async def _finish(task: "asyncio.Task[Any] | None") -> Any:
    return None if task is None else await task


def oauth_scenario() -> str:
    """The OAuth demo's scenario name. Its module (an authorization server, uvicorn, JWTs) is imported
    only when a scenario is asked for: an ordinary launch does without it."""
    from ..studio.oauth_demo import SCENARIO

    return SCENARIO


def oauth_demo() -> "ProtectedDemo":
    from ..studio.oauth_demo import ProtectedDemo

    return ProtectedDemo()


def autosave_path() -> Path:
    """The journal lives with the person's application data (QStandardPaths), one per user."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or tempfile.gettempdir()) / "autosave.mrtr.jsonl"


def after_launch(window: MainWindow) -> None:
    """What waits until the window is complete (run on the turn after, so it is shown complete first): the
    collector paused for the launch (`startup`; from now on it runs on the GUI thread's timer), and the
    arguments' first verdict. Idempotent."""
    startup.ready(resume=False)
    window.arguments.release_checks()


def probe_complete(window: MainWindow) -> None:
    """The launch probe: the moment the window became complete, on stdout, then the window closed.
    With the probe set to `tabs`, first each teaching view is shown in turn (built, since the launch
    does not build them, and painted at once), and the seconds each took are printed too."""
    print(f"launch complete at {time.time():.6f} cpu {time.process_time():.6f}", flush=True)
    if os.environ.get(LAUNCH_PROBE) == "tabs":
        for key in VIEW_KEYS:
            began = time.perf_counter()
            window.teaching.show(key)
            window.repaint()  # painted now, not by the event loop: the probe is inside a slot
            print(f"first show {key} {time.perf_counter() - began:.6f}", flush=True)
    window.close()


def parse_screen_size(text: str | None) -> QRect | None:
    """`1366x768` -> the room a window on such a screen opens in; None for no (or a malformed) size."""
    if not text:
        return None
    width, _, height = text.lower().partition("x")
    if not (width.isdigit() and height.isdigit()) or not (320 <= int(width) <= 10000 and 240 <= int(height) <= 10000):
        raise ValueError(f"--screen-size wants WIDTHxHEIGHT, like 1366x768, not {text!r}")
    return QRect(0, 0, int(width), int(height))


def run_gui(args: argparse.Namespace) -> int:
    scenario = getattr(args, "scenario", None)
    auto = bool(getattr(args, "auto", False))
    shots_dir = getattr(args, "screenshot_dir", None)
    endpoint = getattr(args, "otlp_endpoint", None)
    try:
        screen = parse_screen_size(getattr(args, "screen_size", None))
        if endpoint:
            from ..proxy.live_spans import checked_endpoint

            checked_endpoint(endpoint)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    if shots_dir and screen is None:  # reproducible shots: a common laptop screen unless told otherwise
        screen = QRect(0, 0, 1366, 768)
    if scenario and scenario not in DEMO_RUNS and not is_teaching(scenario) and scenario != oauth_scenario():
        known = [*sorted(DEMO_RUNS), oauth_scenario(), *TEACHING_SCENARIOS,
                 *(f"lesson:{lesson}" for lesson in LESSONS_BY_ID)]
        print(f"unknown scenario {scenario!r}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    loop = install_event_loop(app)
    gui_thread_collector.install(app)  # never a collection on another thread: see the module
    if shots_dir:  # a reproducible window: never the person's saved layout, never saved back
        scratch = tempfile.mkdtemp(prefix="mrtr-studio-")
        settings = QSettings(str(Path(scratch) / "settings.ini"), QSettings.Format.IniFormat)
    else:
        settings = QSettings()
    studio = Studio()
    trace_file = getattr(args, "trace_file", None)
    journal = autosave_path()
    if trace_file or (not shots_dir and journal.exists()):
        # a trace opened or recovered now is not frozen with the rest: frozen objects are never collected
        startup.ready(resume=False)
    recovered = 0 if shots_dir else studio.start_autosave(journal)
    notes = open_on_start(studio, trace_file) if trace_file else []
    if notes is None:  # said on stderr: a file that cannot be opened is no reason for an empty window
        return 2
    window = MainWindow(studio, settings, interactive_answers=not auto, available=screen)
    release_signals = quit_on_terminate(window)  # SIGTERM: a clean quit, not a crash to recover
    window.arguments.hold_checks()
    # the launch is over when the window is complete (at the latest a few seconds on, whatever happens)
    window.complete.connect(lambda: QTimer.singleShot(0, lambda: after_launch(window)))
    QTimer.singleShot(STARTUP_AT_THE_LATEST_MS, lambda: after_launch(window))
    if os.environ.get(LAUNCH_PROBE):
        window.complete.connect(lambda: probe_complete(window))
    if recovered and not trace_file:
        window.adopt_recovered(sorted(studio.recovered_ids))
    # Recovered work, a damaged journal set aside, ...: problems last, so the status line ends on them.
    for level, text in sorted(studio.autosave_notices, key=lambda notice: notice[0] == "error"):
        (window.show_error if level == "error" else window.show_info)(text)
    if trace_file:
        window.show_info(f"Opened {trace_file}: {len(studio.store.operations)} operation(s).")
    for note in notes:  # what the file holds that is not shown (a newer studio's), after the rest
        window.show_error(note)
    window.show()
    window.activateWindow()  # without a window manager nothing else gives it the keyboard (F5, Ctrl+2 did nothing)
    if shots_dir:
        app.processEvents()
        window.default_layout()
    shots = Path(shots_dir) if shots_dir else None
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)

    async def main() -> int:
        closed: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def on_closed() -> None:
            if not closed.done():
                closed.set_result(0)

        app.lastWindowClosed.connect(on_closed)
        await window.start()
        if protected is not None:
            window.studio.auth.adopt(protected.url, protected.flow())
            if auto:
                code = await run_oauth(window, protected, shots)
                if shots is not None:
                    window.close()
                    return code
            else:
                window.connect_to(protected.entry())
        elif scenario and auto:
            teaching = is_teaching(scenario)
            code = await (run_teaching(window, scenario, shots) if teaching
                          else run_demo(window, DEMO_RUNS[scenario], shots))
            if shots is not None:  # a screenshot run ends with its scenario
                window.close()
                return code
        elif scenario and is_teaching(scenario) and scenario != MODES_SCENARIO:
            window.teaching.show("lessons" if scenario.startswith("lesson:") else scenario)
        elif scenario:
            prepare(window, DEMO_RUNS[scenario])
        return int(await closed)

    protected = oauth_demo() if scenario and scenario == oauth_scenario() else None
    live_spans = None
    if endpoint:  # --otlp-endpoint
        from ..studio.live_spans import WindowSpans

        live_spans = WindowSpans(studio.store, endpoint)
    try:
        if protected is not None:
            protected.start()
        with loop:
            code = loop.run_until_complete(main())
            loop.run_until_complete(studio.close())
    finally:
        release_signals()
        if protected is not None:
            protected.stop()
        if live_spans is not None:
            live_spans.close()
    return code
