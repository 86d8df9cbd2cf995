"""Switching light/dark repaints, and moves nothing the person picked: a lesson shown earlier
re-draws its highlighted lines without taking the window's selection back to its own message."""

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, QSettings
from PySide6.QtWidgets import QApplication

from mrtr_studio.studio.controller import Studio
from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.main_window import MainWindow
from tests.trace.view_flows import run_flow
from tests.ui.test_teaching_loop import qt_loop, run_until


@pytest.fixture
def loop(qapp: Any) -> Iterator[asyncio.AbstractEventLoop]:
    with qt_loop(qapp) as running:
        yield running


def test_a_theme_switch_keeps_the_picked_operation(qtbot: Any, loop: asyncio.AbstractEventLoop,
                                                  tmp_path: Path) -> None:
    store = TraceStore()
    earlier = run_flow(store, "count_roots")
    asyncio.set_event_loop(loop)  # run_flow's asyncio.run left none behind
    settings = QSettings(str(tmp_path / "studio.ini"), QSettings.Format.IniFormat)
    win = MainWindow(Studio(store=store), settings, interactive_answers=False, available=QRect(0, 0, 1366, 768))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    try:
        win.modes.switch("learn")
        lessons = win.teaching.lessons
        lessons.select_lesson("confirm-delete")
        lessons.start()
        run_until(loop, lambda: not lessons.running, timeout=30)
        QApplication.processEvents()
        assert win.selection.operation_id != earlier.id  # the lesson showed its own step
        win.modes.switch("debug")
        win.operations.select_ids([earlier.id])  # the person picks the earlier operation
        QApplication.processEvents()
        assert win.selection.operation_id == earlier.id
        for choice in ("dark", "light"):
            win.theme_actions[choice].trigger()
            QApplication.processEvents()
            assert win.selection.operation_id == earlier.id, choice
            assert win.operations.selected_ids() == [earlier.id], choice
            assert win.diagram.operation_id == earlier.id, choice
    finally:
        win.set_theme("system")
        win.close()
