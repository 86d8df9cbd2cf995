"""Store events reach the window's views on the GUI thread, cheaply, and a loaded trace is shown once."""

import sys
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QRect, QSettings
from PySide6.QtWidgets import QApplication

from mrtr_studio.studio.controller import Studio
from mrtr_studio.trace import StoreEvent, TraceStore
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.store_bridge import StoreBridge
from tools.synthetic_trace import synthetic_trace


def test_events_arrive_on_the_bridge_thread_and_a_failing_slot_does_not_stop_the_others(qtbot: Any,
                                                                                       monkeypatch: Any) -> None:
    store = TraceStore()
    bridge = StoreBridge(store)
    seen: list[tuple[str, int]] = []
    reported: list[BaseException] = []

    def broken(_event: StoreEvent) -> None:
        raise RuntimeError("a view's bug")

    bridge.storeEvent.connect(broken)
    bridge.storeEvent.connect(lambda event: seen.append((event.kind, threading.get_ident())))
    monkeypatch.setattr(sys, "excepthook", lambda *info: reported.append(info[1]))
    store.begin_operation("tools/call", "t", {}, "modern", "embedded")  # this thread: delivered at once
    assert seen == [("operation_added", threading.get_ident())] and len(reported) == 1
    worker = threading.Thread(target=lambda: store.begin_operation("tools/call", "u", {}, "modern", "embedded"))
    worker.start()
    worker.join()
    assert len(seen) == 1  # from another thread: queued to this one
    qtbot.waitUntil(lambda: len(seen) == 2)
    assert seen[1] == ("operation_added", threading.get_ident())
    bridge.storeEvent.disconnect(broken)
    bridge.deleteLater()


def test_opening_a_trace_shows_its_last_flow_once(qtbot: Any, tmp_path: Path) -> None:
    win = MainWindow(Studio(), QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                     interactive_answers=False, available=QRect(0, 0, 1366, 768))
    qtbot.addWidget(win)
    win.show()
    QApplication.processEvents()
    changes: list[str] = []
    win.selection.operationChanged.connect(changes.append)
    ops, messages = synthetic_trace(300)
    win.studio.store.load(ops, messages)
    assert changes == []  # not one selection (and one diagram rebuild) per loaded operation
    qtbot.waitUntil(lambda: changes == [ops[-1].id])
    assert win.diagram.operation_id == ops[-1].id
    assert win.operations.model.rowCount() == 300 and win.log.model.rowCount() == 1200
