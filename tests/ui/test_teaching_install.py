"""The studio window carries the teaching views: tabs, a Teach menu, and a clean close."""

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from mrtr_studio.studio.controller import Studio
from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.diagram import SequenceDiagramView
from mrtr_studio.ui.main_window import MainWindow
from tests.ui.test_teaching_loop import qt_loop, run_until


@pytest.fixture
def loop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    with qt_loop(qapp) as running:
        yield running


def test_install_adds_tabs_and_menu_around_the_flow_diagram(qtbot, loop, tmp_path: Path) -> None:
    studio = Studio(store=TraceStore())
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(studio, settings, interactive_answers=False)
    qtbot.addWidget(window)
    teaching = window.teaching
    window.show()
    tabs = teaching.tabs
    assert window.workbench.centre.widget() is tabs  # the centre of the window's workbench
    assert [tabs.tabText(i) for i in range(tabs.count())] == ["Flow", "Lessons", "Lab", "Eras", "Cluster"]
    assert isinstance(tabs.widget(0), SequenceDiagramView) and tabs.widget(0) is window.diagram
    assert [a.text() for a in teaching.menu.actions()] == [
        "&Flow diagram", "&Lessons (scenario library)", "Tamper-and-replay l&ab", "&Eras side by side",
        "&Cluster of engines"]
    teaching.show("lab")
    assert tabs.currentWidget() is teaching.lab
    teaching.show("flow")
    assert tabs.currentWidget() is window.diagram

    # A lesson played in the window lands in the shared trace; its selected step is the window's too.
    teaching.show("lessons")
    teaching.lessons.select_lesson("confirm-delete")
    teaching.lessons.start()
    run_until(loop, lambda: not teaching.lessons.running, timeout=30)
    assert len(studio.store.operations) == 1
    teaching.lessons.show_step(1)
    assert window.selection.message_seq == teaching.lessons.messages()[1].seq

    # Closing the window stops a running cluster.
    teaching.cluster.node_count.setValue(1)
    teaching.cluster.start()
    run_until(loop, lambda: not teaching.cluster.busy, timeout=60)
    assert teaching.cluster.cluster is not None
    processes = [node.process for node in teaching.cluster.cluster.nodes]
    window.close()
    assert teaching.cluster.cluster is None
    run_until(loop, lambda: all(p.returncode is not None for p in processes), timeout=15)
