"""The side column holds still between clicks: selecting each target in turn (by real clicks) moves
neither the target list nor anything above it, and the connection line stays one line, elided."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtWidgets import QApplication, QWidget

from mrtr_studio.studio.controller import Studio
from mrtr_studio.ui.elided_label import ElidedLabel
from mrtr_studio.ui.main_window import MainWindow
from tests.ui.test_main_window import Runner, arun  # noqa: F401  (fixtures)

SIZES = [(1366, 768), (1920, 1080)]


@pytest.fixture(params=SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def win(request: Any, qtbot: Any, arun: Runner, tmp_path: Path) -> Iterator[MainWindow]:  # noqa: F811
    settings = QSettings(str(tmp_path / "studio.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Studio(), settings, interactive_answers=False, available=QRect(0, 0, *request.param))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    arun(window.start())
    QApplication.processEvents()
    yield window
    arun(window.studio.close())


def geometry_above_the_list(win: MainWindow) -> dict[str, QRect]:
    """Where the list and every widget above it are, in window coordinates."""
    explorer = win.explorer
    widgets: dict[str, QWidget] = {"list": explorer.tree, "status": explorer.status, "kind": explorer.kind_box,
                                   "connect": explorer.connect_button, "header": win.workbench.sections["explorer"],
                                   "side": win.workbench.side, "viewport": explorer.tree.viewport()}
    return {name: QRect(w.mapTo(win, QPoint(0, 0)), w.size()) for name, w in widgets.items()}


def test_selecting_each_target_in_turn_moves_nothing_above_it(win: MainWindow, qtbot: Any) -> None:
    tree = win.explorer.tree
    holder = tree.topLevelItem(tree.topLevelItemCount() - 1)
    holder.setExpanded(True)  # the fixtures too: all 44 tools and the rest
    QApplication.processEvents()
    before = geometry_above_the_list(win)
    scroll = win.workbench.side.verticalScrollBar().value()
    items = win.explorer.items()
    assert len(items) >= 44
    for item in items:
        tree.scrollToItem(item)
        rect = tree.visualItemRect(item)
        qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        QApplication.processEvents()
        target = win.explorer.current_target()
        assert target is not None and target.name == item.text(0)
        assert geometry_above_the_list(win) == before, target.name
        assert win.workbench.side.verticalScrollBar().value() == scroll, target.name


def test_the_connection_line_is_one_line_whatever_it_says(win: MainWindow) -> None:
    status = win.explorer.status
    assert isinstance(status, ElidedLabel)
    height = status.height()
    long = "Connected: " + "a-very-long-server-name " * 12 + "(modern) — 3 problem(s), see Problems"
    status.setText(long)
    QApplication.processEvents()
    assert status.height() == height and status.text() == long
    assert status.shown_text() != long and status.shown_text().endswith("…")
    assert status.toolTip() == long  # the whole text where the line elides it
    status.setText("Connected: x")
    QApplication.processEvents()
    assert status.height() == height and status.toolTip() == ""
