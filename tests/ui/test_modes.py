"""The window in modes: each mode's panels at the sizes it promises on a 1366x768 screen, its layout
remembered apart from the others', Ctrl+1..4 to switch, F5 on the mode's subject, and the centre
tab bar that no longer scrolls away."""

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, QSettings, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QWidget

from mrtr_studio.studio.controller import Studio
from mrtr_studio.teaching.lab import ATTACKS
from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.mode_layouts import shows_without_scrolling
from mrtr_studio.ui.modes import MODES
from tests.ui.test_teaching_loop import qt_loop, run_until

ROOM = QRect(0, 0, 1366, 768)


@pytest.fixture
def loop(qapp: Any) -> Iterator[asyncio.AbstractEventLoop]:
    with qt_loop(qapp) as running:
        yield running


def new_window(qtbot: Any, path: Path, room: QRect = ROOM) -> MainWindow:
    """The window on a screen of `room`, its settings in the ini file `path`; not shown yet."""
    settings = QSettings(str(path), QSettings.Format.IniFormat)
    window = MainWindow(Studio(store=TraceStore()), settings, interactive_answers=False, available=room)
    qtbot.addWidget(window)
    return window


def open_window(qtbot: Any, path: Path, room: QRect = ROOM) -> MainWindow:
    """The window on a screen of `room`, shown, exposed and laid out."""
    window = new_window(qtbot, path, room)
    window.show()
    qtbot.waitExposed(window)
    QApplication.processEvents()
    return window


@pytest.fixture
def win(qtbot: Any, loop: asyncio.AbstractEventLoop, tmp_path: Path) -> Iterator[MainWindow]:
    window = open_window(qtbot, tmp_path / "studio.ini")
    yield window
    window.close()


def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


def inside(widget: QWidget, window: QWidget) -> bool:
    """`widget` shown, and all of it inside the window."""
    corner = widget.mapTo(window, widget.rect().topLeft())
    return widget.isVisible() and window.rect().contains(QRect(corner, widget.size()))


def test_ctrl_number_switches_modes_and_each_shows_its_view(win: MainWindow, qtbot: Any) -> None:
    teaching = win.teaching
    assert win.geometry().width() <= ROOM.width() and win.geometry().height() <= ROOM.height()
    views = {"debug": win.diagram, "learn": teaching.lessons, "lab": teaching.lab, "cluster": teaching.cluster}
    for number, mode in reversed(list(enumerate(MODES, 1))):
        qtbot.keyClick(win, Qt.Key(Qt.Key.Key_0 + number), Qt.KeyboardModifier.ControlModifier)
        settle()
        assert win.modes.current == mode.key
        assert teaching.tabs.currentWidget() is views[mode.key]
        assert win.modes.actions[mode.key].isChecked()
        for name, panel in win.workbench.panels().items():
            assert panel.isVisible() == (name in mode.panels), (mode.key, name)
        assert inside(views[mode.key], win)


def test_learn_shows_fifteen_code_lines_beside_the_whole_two_round_diagram(
        win: MainWindow, loop: asyncio.AbstractEventLoop) -> None:
    win.modes.switch("learn")
    lessons = win.teaching.lessons
    lessons.select_lesson("confirm-delete")
    lessons.start()
    run_until(loop, lambda: not lessons.running, timeout=30)
    settle()
    rounds = {m.round for m in lessons.messages()}
    assert rounds == {1, 2}
    assert lessons.content.orientation() == Qt.Orientation.Horizontal  # code beside the diagram
    code = lessons.source
    lines = code.viewport().height() / QFontMetrics(code.font()).lineSpacing()
    assert lines >= 15, lines
    assert lessons.lessons.isVisible() and lessons.explanation.isVisible()
    canvas = lessons.diagram.canvas
    assert shows_without_scrolling(canvas), (canvas.verticalScrollBar().maximum(), canvas.viewport().height())
    assert canvas.horizontalScrollBar().maximum() == 0
    for widget in (lessons.lessons, lessons.diagram, code, lessons.explanation):
        assert inside(widget, win)


def test_lab_shows_every_attack_and_the_verdict_column(win: MainWindow, loop: asyncio.AbstractEventLoop) -> None:
    from mrtr_studio.ui.teaching.lab_view import VERDICT

    win.modes.switch("lab")
    settle()
    lab = win.teaching.lab
    grid = lab.grid
    for stage in ("before the run", "after it"):  # the results widen the columns and wrap rows
        assert grid.rowCount() == len(ATTACKS) == 11
        assert not grid.verticalScrollBar().isVisible() and shows_without_scrolling(grid), stage
        right = grid.columnViewportPosition(VERDICT) + grid.columnWidth(VERDICT)
        assert grid.columnViewportPosition(VERDICT) >= 0 and right <= grid.viewport().width(), stage
        assert inside(grid, win)
        if stage == "before the run":
            lab.start()
            run_until(loop, lambda: not lab.running, timeout=60)
            settle()
    assert grid.item(0, VERDICT).text()  # the verdicts are in


def test_cluster_shows_nodes_replay_table_and_diagram_together(win: MainWindow) -> None:
    win.modes.switch("cluster")
    settle()
    cluster = win.teaching.cluster
    for widget in (cluster.nodes, cluster.rounds, cluster.diagram, cluster.replay):
        assert inside(widget, win), widget
    win.modes.switch("debug")  # back as a tab: the replay is the cluster's second page again
    settle()
    assert cluster.pages.count() == 3 and cluster.pages.indexOf(cluster.replay) == 1  # then the Load page


def test_each_mode_remembers_its_own_layout(qtbot: Any, loop: asyncio.AbstractEventLoop, tmp_path: Path) -> None:
    path = tmp_path / "studio.ini"
    first = open_window(qtbot, path)
    first.modes.switch("learn")
    first.workbench.bottom.show()  # the person wants the log under the lessons
    first.modes.switch("debug")
    first.workbench.side.hide()  # and no side column while debugging
    first.modes.switch("learn")
    settle()
    assert first.workbench.bottom.isVisible() and not first.workbench.side.isVisible()
    first.close()
    second = open_window(qtbot, path)
    settle()
    run_until(loop, lambda: second.modes.current == "learn", timeout=5)
    assert second.workbench.bottom.isVisible() and not second.workbench.inspectors.isVisible()
    second.modes.switch("debug")
    assert not second.workbench.side.isVisible() and second.workbench.inspectors.isVisible()
    second.close()


def test_run_acts_on_the_mode_and_presentation_works_in_it(win: MainWindow, loop: asyncio.AbstractEventLoop) -> None:
    win.modes.switch("learn")
    lessons = win.teaching.lessons
    win.run_clicked()  # F5
    assert lessons.running and not win.studio.busy
    run_until(loop, lambda: not lessons.running, timeout=30)
    win.presentation.enter()
    settle()
    assert win.modes.bar.isHidden() and lessons.presenting
    win.presentation.leave()
    settle()
    assert win.modes.current == "learn" and not win.modes.bar.isHidden()
    assert not win.workbench.side.isVisible()


def test_the_centre_tab_bar_stays_when_the_centre_scrolls(win: MainWindow) -> None:
    win.workbench.right.setSizes([150, 600])  # a short centre: the page inside must scroll
    win.teaching.show("eras")
    settle()
    bar = win.modes.pinned
    assert bar is not None and bar.isVisible() and not win.teaching.tabs.tabBar().isVisible()
    before = bar.mapTo(win, bar.rect().topLeft())
    scroll = win.workbench.centre.verticalScrollBar()
    assert scroll.maximum() > 0
    scroll.setValue(scroll.maximum())
    settle()
    assert bar.mapTo(win, bar.rect().topLeft()) == before and bar.isVisible()
    bar.setCurrentIndex(0)
    assert win.teaching.tabs.currentWidget() is win.diagram


def test_the_window_shows_with_its_teach_menu_and_tabs_before_the_views_exist(qtbot: Any, tmp_path: Path) -> None:
    window = new_window(qtbot, tmp_path / "studio.ini")
    window.show()  # no event processed yet
    assert window.teaching.built_views() == {}  # the Flow tab is shown: no teaching view built
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus == ["&File", "&Edit", "&Serve", "&Run", "&Tamper", "&View", "T&each"]
    teach = window.modes.menu
    assert [a.text() for a in teach.actions()] == [
        "&Flow diagram", "&Lessons (scenario library)", "Tamper-and-replay l&ab", "&Eras side by side",
        "&Cluster of engines"]
    bar = window.modes.pinned
    assert [bar.tabText(i) for i in range(bar.count())] == ["Flow", "Lessons", "Lab", "Eras", "Cluster"]
    assert bar.isVisible()
    teach.actions()[2].trigger()  # builds the lab, and only the lab, then shows it
    assert list(window.teaching.built_views()) == ["lab"]
    assert window.teaching.tabs.currentWidget() is window.teaching.lab and bar.currentIndex() == 2
    settle()
    assert len(teach.actions()) == 5
    window.close()


def test_a_teaching_view_is_built_when_its_tab_is_first_picked_never_shown_empty(qtbot: Any, tmp_path: Path) -> None:
    window = new_window(qtbot, tmp_path / "studio.ini")
    window.show()
    teaching, bar = window.teaching, window.modes.pinned
    shown: list[object] = []
    teaching.tabs.currentChanged.connect(lambda _i: shown.append(teaching.tabs.currentWidget()))
    bar.setCurrentIndex(3)  # a click on the pinned bar's Eras
    eras = teaching.built("eras")
    assert eras is not None and teaching.tabs.currentWidget() is eras and shown == [eras]
    assert teaching.tabs.indexOf(eras) == 3 and teaching.tabs.tabText(3) == "Eras" and teaching.tabs.count() == 5
    bar.setCurrentIndex(0)
    bar.setCurrentIndex(3)
    assert teaching.built("eras") is eras  # built once
    # any other way a tab becomes current (the tab widget's own Ctrl+Tab): the view on the next turn
    teaching.tabs.setCurrentIndex(4)
    qtbot.waitUntil(lambda: teaching.built("cluster") is not None)
    assert teaching.tabs.currentWidget() is teaching.built("cluster") and bar.currentIndex() == 4
    assert set(teaching.built_views()) == {"eras", "cluster"}
    window.close()


def test_a_view_built_in_presentation_mode_starts_in_it_and_leaves_it(qtbot: Any, tmp_path: Path) -> None:
    window = new_window(qtbot, tmp_path / "studio.ini")
    window.show()
    window.presentation.enter()
    lessons = window.teaching.lessons  # built now, during the presentation
    assert lessons.presenting
    window.presentation.leave()
    assert not lessons.presenting
    window.close()


def test_closing_the_window_builds_no_view_and_stops_a_built_cluster(qtbot: Any, tmp_path: Path) -> None:
    window = new_window(qtbot, tmp_path / "studio.ini")
    window.show()
    window.close()
    assert window.teaching.built_views() == {}
    again = new_window(qtbot, tmp_path / "studio.ini")
    again.show()
    stopped: list[bool] = []
    again.teaching.cluster.shutdown = lambda: stopped.append(True)
    again.close()
    assert stopped == [True]


def test_a_view_built_later_is_laid_out_for_the_mode_it_arrives_in(qtbot: Any, tmp_path: Path) -> None:
    window = new_window(qtbot, tmp_path / "studio.ini")
    window.show()
    window.modes.switch("learn")  # builds the lessons (its tab); Eras shares the mode and is not built yet
    assert set(window.teaching.built_views()) == {"lessons"}
    eras = window.teaching.eras  # built in Learn: laid out for the whole window, as if it had been there
    assert eras.whole_window
    window.modes.switch("debug")
    assert not eras.whole_window
    window.close()


def test_the_window_says_complete_once_painted_with_no_view_it_does_not_show(qtbot: Any, tmp_path: Path) -> None:
    window = new_window(qtbot, tmp_path / "studio.ini")
    said: list[bool] = []
    window.complete.connect(lambda: said.append(window.teaching.built_views() == {}
                                                and window.modes.current == "debug"))
    window.show()
    assert not window.is_complete  # nothing painted yet
    qtbot.waitUntil(lambda: window.is_complete, timeout=10000)
    assert said == [True]  # once, with the Teach menu's entries there and no hidden view built
    assert len(window.modes.menu.actions()) == 5 and window.modes.menu.actions()[0].text() == "&Flow diagram"
    window.update()
    settle()
    assert said == [True]  # a later paint does not say it again
    window.close()


def test_complete_waits_for_the_mode_last_left_in(qtbot: Any, loop: asyncio.AbstractEventLoop, tmp_path: Path) -> None:
    path = tmp_path / "studio.ini"
    first = open_window(qtbot, path)
    first.modes.switch("lab")
    first.close()
    second = new_window(qtbot, path)
    modes: list[str] = []
    second.complete.connect(lambda: modes.append(second.modes.current))
    second.show()
    qtbot.waitUntil(lambda: second.is_complete, timeout=10000)
    assert modes == ["lab"] and second.teaching.tabs.currentWidget() is second.teaching.lab
    second.close()
