"""The window's layout at two screen sizes (the screen's available geometry given to the window):
it fits, its panels never overlap, it never grows by itself, and its layout comes back as it was left.
"""

import asyncio
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QLineEdit, QWidget

from mrtr_studio.studio.controller import Studio
from mrtr_studio.ui import theme
from mrtr_studio.ui.main_window import MainWindow
from tests.ui.test_main_window import Runner, arun, run_tool, until  # noqa: F401  (fixtures)

SIZES = [(1366, 768), (1920, 1080)]


def make_window(qtbot: Any, settings: QSettings, size: tuple[int, int]) -> MainWindow:
    win = MainWindow(Studio(), settings, interactive_answers=False, available=QRect(0, 0, *size))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    QApplication.processEvents()
    return win


@pytest.fixture(params=SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def sized(request: Any, qtbot: Any, arun: Runner, tmp_path: Path) -> Iterator[MainWindow]:  # noqa: F811
    settings = QSettings(str(tmp_path / "studio.ini"), QSettings.Format.IniFormat)
    win = make_window(qtbot, settings, request.param)
    arun(win.start())
    yield win
    arun(win.studio.close())


def in_window(win: MainWindow, widget: QWidget) -> QRect:
    return QRect(widget.mapTo(win, QPoint(0, 0)), widget.size())


def visible_panels(win: MainWindow) -> dict[str, QWidget]:
    bench = win.workbench
    panels: dict[str, QWidget] = {"menu": win.menuBar(), "status": win.statusBar(), "centre": bench.centre,
                                  **bench.panels()}
    panels.update({f"toolbar{i}": bar for i, bar in enumerate(win.findChildren(QWidget, "runToolbar"))})
    return {name: w for name, w in panels.items() if w.isVisible()}


def assert_no_overlap(win: MainWindow) -> None:
    rects = {name: in_window(win, w) for name, w in visible_panels(win).items()}
    room = win.rect()
    for name, rect in rects.items():
        assert rect.width() > 0 and rect.height() > 0, name
        assert room.contains(rect), (name, rect, room)
    for (a, ra), (b, rb) in combinations(rects.items(), 2):
        assert not ra.intersects(rb), (a, ra, b, rb)


def test_the_window_fits_the_screen_and_its_panels_do_not_overlap(sized: MainWindow) -> None:
    win = sized
    room = win.available_geometry()
    assert room.contains(win.frameGeometry()), (win.frameGeometry(), room)
    assert win.width() >= min(1280, room.width()) * 9 // 10
    minimum = win.minimumSizeHint()
    assert minimum.width() <= 1280 and minimum.height() <= 720, minimum
    assert set(visible_panels(win)) >= {"side", "centre", "inspectors", "bottom"}
    assert_no_overlap(win)
    sections = [in_window(win, section) for section in win.workbench.sections.values()]
    for one, other in combinations(sections, 2):  # Server, Client, Arguments one below the other
        assert not one.intersects(other) and one.bottom() < other.top(), (one, other)
    # every inspector page fills the inspector's height (nothing squeezed into a few rows)
    inspectors = win.workbench.inspectors
    for index in range(inspectors.count()):
        inspectors.setCurrentIndex(index)
        QApplication.processEvents()
        page = inspectors.widget(index)
        assert page is not None and page.height() >= inspectors.height() - 60, (index, page.height())


def test_nothing_overlaps_when_the_window_is_squeezed_to_1280x720(qtbot: Any, tmp_path: Path) -> None:
    win = make_window(qtbot, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), (1280, 720))
    win.resize(1280, 720)
    QApplication.processEvents()
    assert (win.width(), win.height()) == (1280, 720)
    assert_no_overlap(win)


def test_clicking_arrows_never_changes_the_window_size(sized: MainWindow, arun: Runner, qtbot: Any) -> None:  # noqa: F811
    win = sized
    result = arun(run_tool(win, "plan_trip", {}))
    assert result is not None
    arun(asyncio.sleep(0.1))
    bench = win.workbench
    bench.set_column_sizes([180, win.width() - 360, 180])  # narrow side panels: their content must scroll, not push
    QApplication.processEvents()
    before, panels = win.size(), bench.column_sizes()
    view = win.diagram
    assert view.arrow_items
    for seq in sorted(view.arrow_items):
        qtbot.mouseClick(view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=view.arrow_position(seq).toPoint())
        QApplication.processEvents()
        assert win.selection.message_seq == seq
        assert win.size() == before, (seq, win.size(), before)
        assert bench.column_sizes() == panels, (seq, bench.column_sizes(), panels)
    for index in range(win.workbench.inspectors.count()):  # and whichever inspector shows the message
        win.workbench.inspectors.setCurrentIndex(index)
        QApplication.processEvents()
        assert win.size() == before and bench.column_sizes() == panels
    assert_no_overlap(win)


def test_reset_layout_restores_the_default(sized: MainWindow) -> None:
    win = sized
    bench = win.workbench
    default_top, default_main = bench.column_sizes(), bench.right.sizes()
    bench.set_column_sizes([500, 300, 200])
    bench.right.setSizes([600, 100])
    bench.sections["client"].set_expanded(False)
    win.panel_actions["inspectors"].trigger()
    toolbar = win.findChild(QWidget, "runToolbar")
    assert toolbar is not None
    toolbar.hide()
    bench.inspectors.setCurrentIndex(2)
    QApplication.processEvents()
    assert bench.inspectors.isHidden() and bench.column_sizes() != default_top
    win.reset_layout()
    QApplication.processEvents()
    assert not bench.inspectors.isHidden() and bench.sections["client"].expanded and not toolbar.isHidden()
    assert bench.inspectors.currentIndex() == 0
    assert all(abs(a - b) <= 2 for a, b in zip(bench.column_sizes(), default_top, strict=True)), bench.column_sizes()
    assert all(abs(a - b) <= 2 for a, b in zip(bench.right.sizes(), default_main, strict=True)), bench.right.sizes()
    assert_no_overlap(win)


def test_layout_and_active_tabs_are_restored(qtbot: Any, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    first = make_window(qtbot, settings, (1920, 1080))
    bench = first.workbench
    bench.set_column_sizes([420, 900, 520])
    first.show_inspector(first.state_inspector)
    bench.show_page(bench.bottom, first.log)
    first.teaching.show("lessons")
    bench.sections["arguments"].set_expanded(False)
    QApplication.processEvents()
    sizes, state_tab, bottom_tab = bench.column_sizes(), bench.inspectors.currentIndex(), bench.bottom.currentIndex()
    first.close()
    second = make_window(qtbot, settings, (1920, 1080))
    again = second.workbench
    assert again.column_sizes() == sizes
    assert (again.inspectors.currentIndex(), again.bottom.currentIndex()) == (state_tab, bottom_tab) != (0, 0)
    assert second.teaching.tabs.currentWidget() is second.teaching.lessons
    assert not again.sections["arguments"].expanded and again.sections["client"].expanded
    second.close()


def test_a_layout_saved_by_an_older_version_or_a_bigger_screen_still_fits(qtbot: Any, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    big = make_window(qtbot, settings, (2560, 1440))
    big.resize(2400, 1300)
    big.close()
    small = make_window(qtbot, settings, (1366, 768))  # the same settings on a laptop
    assert small.available_geometry().contains(small.frameGeometry())
    small.close()
    settings.setValue("version", 1)  # a layout from before the workbench: ignored, not misapplied
    settings.setValue("window/state", b"not a state")
    old = make_window(qtbot, settings, (1366, 768))
    assert old.available_geometry().contains(old.frameGeometry())
    assert_no_overlap(old)
    old.close()


def test_presentation_mode_hides_the_panels_and_escape_restores_them(sized: MainWindow, qtbot: Any, arun: Runner,  # noqa: F811
                                                                     monkeypatch: Any) -> None:
    win = sized
    flow = arun(run_tool(win, "delete_file", {"path": "/tmp/a.txt"})).operation
    told: list[bool] = []
    win.diagram.set_presentation = told.append  # type: ignore[attr-defined]  # a view that can scale itself
    bench = win.workbench
    sizes, font, geometry = bench.column_sizes(), QApplication.font().pointSizeF(), win.geometry()
    win.presentation_action.trigger()
    QApplication.processEvents()
    assert win.presentation.active and told == [True] and win.isFullScreen()
    assert all(panel.isHidden() for panel in bench.panels().values())
    assert QApplication.font().pointSizeF() > font
    assert bench.centre.width() >= win.width() - 10
    steps: list[str] = []
    win.teaching.show("lessons")
    monkeypatch.setattr(win.teaching.lessons, "step", lambda: steps.append("step"))
    monkeypatch.setattr(win.teaching.lessons, "back", lambda: steps.append("back"))
    for key in (Qt.Key.Key_Right, Qt.Key.Key_PageDown, Qt.Key.Key_Left, Qt.Key.Key_PageUp):
        qtbot.keyClick(win.teaching.tabs, key)
    assert steps == ["step", "step", "back", "back"]
    win.teaching.show("flow")  # on the flow diagram, the clicker steps through the shown flow's arrows
    messages = win.studio.store.messages_of(flow.id)
    win.selection.select(messages[0])
    qtbot.keyClick(win.teaching.tabs, Qt.Key.Key_Right)
    assert win.selection.message_seq == messages[1].seq
    qtbot.keyClick(win.teaching.tabs, Qt.Key.Key_PageDown)
    assert win.selection.message_seq == messages[2].seq
    qtbot.keyClick(win.teaching.tabs, Qt.Key.Key_PageUp)
    assert win.selection.message_seq == messages[1].seq
    qtbot.keyClick(win.teaching.tabs, Qt.Key.Key_Escape)
    QApplication.processEvents()
    assert not win.presentation.active and told == [True, False] and not win.isFullScreen()
    assert win.geometry() == geometry
    assert not any(panel.isHidden() for panel in bench.panels().values())
    assert bench.column_sizes() == sizes and QApplication.font().pointSizeF() == font
    assert_no_overlap(win)


def test_dark_and_light_colours_are_chosen_in_the_view_menu_and_saved(sized: MainWindow) -> None:
    win = sized
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        win.theme_actions["dark"].trigger()
        assert theme.is_dark() and app.palette().window().color().lightness() < 100
        assert app.palette().text().color().lightness() > 180  # text readable on it
        assert win.settings.value("view/theme") == "dark"
        win.theme_actions["light"].trigger()
        assert not theme.is_dark() and app.palette().window().color().lightness() > 180
        assert app.style().name().lower() == "fusion"
    finally:
        win.set_theme("system")


def test_status_bar_success_is_not_red_and_errors_are_marked(sized: MainWindow, arun: Runner) -> None:  # noqa: F811
    win = sized
    arun(run_tool(win, "delete_file", {"path": "/tmp/a.txt"}))
    bar = win.statusBar()
    assert bar.currentMessage().startswith("✓ ") and "complete" in bar.currentMessage()
    assert theme.status_colours()["success"] in bar.styleSheet()
    assert QColor(theme.status_colours()["success"]).red() < 128
    win.show_error("something broke")
    assert bar.currentMessage() == "✗ something broke" and theme.status_colours()["error"] in bar.styleSheet()
    bar.showMessage("a status tip")
    assert bar.styleSheet() == ""


@pytest.mark.slow
def test_screenshots_are_taken_at_the_screen_size_asked_for(tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    from tests.ui.test_main_window import run_auto

    sizes = {}
    for size in ("1366x768", "1920x1080"):
        out = tmp_path / size
        done = run_auto("--scenario", "missing_capability", "--screenshot-dir", str(out), "--screen-size", size)
        assert done.returncode == 0, done.stderr
        image = QImage(str(out / "03-error.png"))
        sizes[size] = (image.width(), image.height())
    (w1, h1), (w2, h2) = sizes["1366x768"], sizes["1920x1080"]
    assert 1280 <= w1 <= 1366 and 720 <= h1 <= 768, sizes  # all of a laptop screen, frame aside
    assert 1366 < w2 <= 1920 and 768 < h2 <= 1080, sizes
    bad = run_auto("--scenario", "missing_capability", "--screen-size", "huge")
    assert bad.returncode == 2 and "WIDTHxHEIGHT" in bad.stderr


def test_the_tabs_are_there_before_the_first_paint_and_a_window_closed_before_it_is_fine(qtbot: Any,
                                                                                     tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(Studio(), settings, interactive_answers=False, available=QRect(0, 0, 1366, 768))
    qtbot.addWidget(win)
    assert win._teaching is not None  # built with the window, nothing painted yet
    assert win.workbench.centre.widget() is win.teaching.tabs and win.teaching.tabs.widget(0) is win.diagram
    assert win.teaching.built_views() == {}  # the Flow tab is shown: no teaching view is built
    early = MainWindow(Studio(), settings, interactive_answers=False, available=QRect(0, 0, 1366, 768))
    early.show()
    early.repaint()  # complete is scheduled by the first paint...
    early.close()
    early.deleteLater()  # ...and the window goes before it runs
    QApplication.processEvents()
    QApplication.processEvents()  # and nothing is left to run on a deleted window (a crash here before)


def test_what_a_run_needs_is_in_view_without_scrolling_the_side_column(sized: MainWindow) -> None:
    """Target list, era, declared capabilities and the arguments' first field, all inside the side
    column's viewport at 1366x768 as at 1920x1080; the column does not scroll."""
    win = sized
    side = win.workbench.side
    assert win.explorer.select("delete_file")
    QApplication.processEvents()
    viewport = QRect(side.viewport().mapTo(win, QPoint(0, 0)), side.viewport().size())
    assert side.verticalScrollBar().maximum() == 0, side.verticalScrollBar().maximum()
    needed: list[QWidget] = [win.explorer.tree, win.client_panel.era_box, win.client_panel.identity_box,
                             *win.client_panel.capability_boxes.values()]
    first_field = win.arguments.editor.findChild(QLineEdit)
    assert first_field is not None
    needed.append(first_field)
    for widget in needed:
        assert widget.isVisible() and viewport.contains(in_window(win, widget)), (widget, in_window(win, widget))
    rows = win.explorer.tree.viewport().height() // max(1, win.explorer.tree.sizeHintForRow(1))
    assert rows >= 6, rows  # a handful of targets listed, not a sliver
    sections = [in_window(win, section) for section in win.workbench.sections.values()]
    for one, other in combinations(sections, 2):
        assert not one.intersects(other)
