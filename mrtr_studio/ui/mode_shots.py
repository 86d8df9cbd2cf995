"""`--scenario modes --auto`: each mode of the window with its subject run, one screenshot per mode
(`01-debug.png`, `02-learn.png`, `03-lab.png`, `04-cluster.png`), so the pictures in the README are
what the window shows, mode by mode, at the screen size asked for.
"""

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QApplication

from .modes import MODES

if TYPE_CHECKING:
    from .main_window import MainWindow

SCENARIO = "modes"


async def _settle(app: QApplication, seconds: float) -> None:
    """Awaiting lets the Qt loop lay out and paint (processEvents inside a task re-entered qasync)."""
    del app
    for _ in range(4):
        await asyncio.sleep(seconds / 4)


async def _finish(task: "asyncio.Task[Any] | None") -> Any:
    return None if task is None else await task


async def run_modes(window: "MainWindow", shots: Path | None) -> int:
    """Run each mode's subject in it and screenshot it; 0 when every subject ran."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    studio = window.studio
    if studio.catalog is None and await studio.connect() is None:
        return 1
    teaching = window.teaching
    failures = 0
    for number, mode in enumerate(MODES, 1):
        window.modes.switch(mode.key)
        await _settle(app, 0.2)
        if mode.key == "debug":
            window.explorer.select("delete_file", "tool")
            window.arguments.set_arguments({"path": "/tmp/report.txt"})
            if not window.launch(step=False) or studio.runner.task is None:
                failures += 1
            else:
                await studio.runner.task
        elif mode.key == "learn":
            teaching.lessons.select_lesson("confirm-delete")
            failures += await _finish(teaching.lessons.start()) is None
        elif mode.key == "lab":
            failures += await _finish(teaching.lab.start()) is None
        elif mode.key == "cluster":
            await _finish(teaching.cluster.start())
            failures += await _finish(teaching.cluster.run()) is None
        await _settle(app, 0.6)
        if shots is not None:
            window.grab().save(str(shots / f"{number:02d}-{mode.key}.png"))
        if mode.key == "cluster":
            await _finish(teaching.cluster.stop())
    window.modes.switch("debug")
    return 1 if failures else 0
