"""What Run (F5) and Step (F10) act on: the subject of the tab that is showing.

Why: on the Lessons tab F5 ran the explorer's tool, not the lesson on the screen. The window's run
keys now ask the showing teaching view first; only the Flow tab (no teaching view) runs the
explorer's target. Each view keeps its own meaning of "run" (the lesson, the lab's tampered retry,
both eras side by side, the cluster's round trip) and of "step" where it has one.
"""

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QWidget

from .cluster_view import ClusterView
from .eras_view import ErasView
from .lesson_view import LessonView


def run_subject(view: QWidget | None, step: bool) -> str | None:
    """Run (or step) what `view` teaches and say what happened; None when `view` is not a teaching
    view (the Flow tab), so the caller runs the explorer's target instead."""
    if isinstance(view, LessonView):
        if step:
            view.step()
            return f"Stepped the lesson “{view.lesson().title}”."
        started = view.start()
        return f"Running the lesson “{view.lesson().title}”." if started is not None else "The lesson is running."
    if isinstance(view, ClusterView):
        view.run()
        return "Running the cluster's round trip."
    if isinstance(view, ErasView):  # Eras has no step of its own: F10 runs the comparison as F5 does
        if view.start() is not None:
            return f"Running “{view.tool.currentText()}” in both eras: the modern client, then the legacy one."
        return "Eras: already running." if view.running else f"Eras: {view.status.text()}"
    start: Any = getattr(view, "start", None)
    if view is None or not callable(start):
        return None
    return "Started." if start() is not None else "Already running."


def when_finished(view: QWidget | None, say: Callable[[str], None]) -> None:
    """Once the run `run_subject` started on `view` ends, `say` how it ended (the view's own verdict),
    so the status bar does not keep saying "Running…" for seconds after a short lesson has finished."""
    task = getattr(view, "task", None)
    if not isinstance(task, asyncio.Task) or task.done():
        return
    label = getattr(view, "verdict", None) if isinstance(view, ClusterView) else getattr(view, "status", None)
    if label is None:
        return

    def ended(finished: "asyncio.Task[Any]") -> None:
        with contextlib.suppress(RuntimeError):  # the view (or the window) was closed meanwhile
            text = label.text()
            if text and not finished.cancelled():
                say(text)

    task.add_done_callback(ended)
