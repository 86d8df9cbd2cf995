"""Eras gets the room it needs: in Learn (the whole window) the two diagrams stand side by side,
each showing every arrow of delete_file's two-round modern flow and of its legacy equivalent without
scrolling, at 1366x768 and 1920x1080; in Debug it is a tab of the centre column with "Show wide",
which takes it to Learn. F5 on the Eras tab runs the comparison, not the explorer's tool."""

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtWidgets import QApplication, QWidget

from mrtr_studio.ui.diagram import SequenceDiagramView
from mrtr_studio.ui.diagram.items import ArrowItem
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.mode_layouts import shows_without_scrolling
from mrtr_studio.ui.modes import TAB_KEYS
from tests.ui.test_modes import loop, open_window  # noqa: F401  (the loop fixture)
from tests.ui.test_teaching_loop import run_until


def settle() -> None:
    for _ in range(4):
        QApplication.processEvents()


def span(widget: QWidget, window: QWidget) -> QRect:
    return QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())


def arrows_of(diagram: SequenceDiagramView) -> list[ArrowItem]:
    """Every arrow drawn: the protocol's messages and the user's lane (run, ask, answered)."""
    return [item for item in diagram.scene.items() if isinstance(item, ArrowItem)]


def visible_rect(diagram: SequenceDiagramView) -> QRectF:
    canvas = diagram.canvas
    return canvas.mapToScene(canvas.viewport().rect()).boundingRect()


def click_tab(qtbot: Any, win: MainWindow, key: str) -> None:
    bar = win.modes.pinned
    index = TAB_KEYS.index(key)
    assert bar.isVisible() and bar.isTabVisible(index)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    settle()


def press_f5_and_wait(qtbot: Any, win: MainWindow, loop: asyncio.AbstractEventLoop) -> None:  # noqa: F811
    eras = win.teaching.eras
    before = len(win.studio.store.operations)
    qtbot.keyClick(win, Qt.Key.Key_F5)
    assert eras.running, win.statusBar().currentMessage()  # the comparison started ...
    assert win.studio.state == "idle" and win.studio.current_operation_id is None  # ... not the explorer's tool
    run_until(loop, lambda: not eras.running, timeout=30, what="both eras")
    settle()
    assert eras.last is not None, eras.status.text()
    assert len(win.studio.store.operations) == before + 2


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_learn_shows_both_whole_flows_side_by_side(qtbot: Any, loop: asyncio.AbstractEventLoop, tmp_path: Path,  # noqa: F811
                                                   size: tuple[int, int]) -> None:
    win = open_window(qtbot, tmp_path / "studio.ini", QRect(0, 0, *size))
    settle()
    qtbot.keyClick(win, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)  # Learn
    settle()
    bar = win.modes.pinned
    shown = [TAB_KEYS[i] for i in range(bar.count()) if bar.isTabVisible(i)]
    assert win.modes.current == "learn" and shown == ["lessons", "eras"]
    click_tab(qtbot, win, "eras")
    eras = win.teaching.eras
    assert win.modes.current == "learn" and win.teaching.tabs.currentWidget() is eras  # Eras stays in Learn
    assert not any(panel.isVisible() for panel in win.workbench.panels().values())
    assert not eras.wide_button.isVisible()
    row = {span(widget, win).center().y() for widget in (eras.target, eras.tool, eras.arguments, eras.run_button)}
    assert len(row) == 1, row  # the controls in one row: the room below is the diagrams'
    press_f5_and_wait(qtbot, win, loop)
    modern, legacy = eras.diagrams["modern"], eras.diagrams["legacy"]
    assert [i.arrow.kind for i in modern.arrow_items.values()] == ["request", "input_required", "request",
                                                                    "complete"]
    assert [i.arrow.kind for i in legacy.arrow_items.values()] == ["request", "error"]
    assert eras.columns.orientation() == Qt.Orientation.Horizontal
    left, right = span(modern.canvas, win), span(legacy.canvas, win)
    assert left.right() < right.left(), (left, right)  # side by side: the x ranges do not overlap
    for diagram, rect in ((modern, left), (legacy, right)):
        assert win.rect().contains(rect), rect
        seen = visible_rect(diagram)
        drawn = arrows_of(diagram)
        assert len(drawn) >= len(diagram.arrow_items)
        for item in drawn:
            assert seen.contains(item.sceneBoundingRect()), (item.arrow.kind, item.sceneBoundingRect(), seen)
        assert diagram.canvas.horizontalScrollBar().maximum() == 0 and shows_without_scrolling(diagram.canvas)
        assert diagram.zoom >= 0.85  # whole, and at a readable scale
    win.close()


def test_debug_tab_stacks_and_show_wide_takes_it_to_learn(qtbot: Any, loop: asyncio.AbstractEventLoop,  # noqa: F811
                                                           tmp_path: Path) -> None:
    win = open_window(qtbot, tmp_path / "studio.ini", QRect(0, 0, 1366, 768))
    settle()
    assert win.modes.current == "debug"
    click_tab(qtbot, win, "eras")
    eras = win.teaching.eras
    assert win.modes.current == "debug" and win.teaching.tabs.currentWidget() is eras
    assert eras.columns.orientation() == Qt.Orientation.Vertical  # a third of the window: one above the other
    press_f5_and_wait(qtbot, win, loop)  # F5 runs the comparison in Debug too
    assert eras.wide_button.isVisible()
    qtbot.mouseClick(eras.wide_button, Qt.MouseButton.LeftButton)
    settle()
    assert win.modes.current == "learn" and win.teaching.tabs.currentWidget() is eras
    assert eras.columns.orientation() == Qt.Orientation.Horizontal and not eras.wide_button.isVisible()
    for diagram in eras.diagrams.values():  # the run made in Debug, now whole
        assert all(visible_rect(diagram).contains(i.sceneBoundingRect()) for i in arrows_of(diagram))
    qtbot.keyClick(win, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)  # back to Debug: its flow
    settle()
    assert win.modes.current == "debug" and win.teaching.tabs.currentWidget() is win.diagram
    assert all(win.modes.pinned.isTabVisible(i) for i in range(win.modes.pinned.count()))
    assert not eras.whole_window and not eras.wide_button.isHidden()  # the tab's two rows, "Show wide" back
    qtbot.keyClick(win, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)  # Learn again: its lessons
    settle()
    assert win.teaching.tabs.currentWidget() is win.teaching.lessons
    win.close()


def test_teach_menu_eras_from_lab_goes_to_learn(qtbot: Any, loop: asyncio.AbstractEventLoop,  # noqa: F811
                                                tmp_path: Path) -> None:
    win = open_window(qtbot, tmp_path / "studio.ini", QRect(0, 0, 1366, 768))
    settle()
    win.modes.switch("lab")
    settle()
    assert not win.modes.pinned.isVisible()  # one view: no tab bar
    win.teaching.show("eras")  # Teach > Eras side by side
    run_until(loop, lambda: win.modes.current == "learn", timeout=5, what="the switch to Learn")
    settle()
    bar = win.modes.pinned
    assert win.teaching.tabs.currentWidget() is win.teaching.eras and bar.isVisible()
    assert bar.currentIndex() == TAB_KEYS.index("eras") and bar.isTabVisible(bar.currentIndex())
    win.close()
