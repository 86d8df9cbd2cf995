"""After a rejected retry the requestState inspector scrolls its failed check into view (wherever
it was scrolled before); its payload and diff tables are as tall as their rows, so only the panel
scrolls; the diff shows each value whole (timestamps wrapped, not elided to look alike)."""

import asyncio

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QTableWidget

from mrtr_studio.ui.main_window import MainWindow
from tests.ui.test_main_window import Runner, arun, held_at_round_two, settings, until, window  # noqa: F401


def in_view(win: MainWindow, table: QTableWidget, row: int) -> bool:
    """The row's first cell is inside the inspector's scroll area, as on the screen."""
    area = win.state_inspector.scroll_area
    rect = table.visualItemRect(table.item(row, 0))
    corner = table.viewport().mapTo(area.viewport(), rect.topLeft())
    return area.viewport().rect().contains(QRect(corner, rect.size()))


def test_a_rejection_brings_the_failed_check_into_view(window: MainWindow, arun: Runner) -> None:  # noqa: F811
    inspector = window.state_inspector
    window.show_inspector(inspector)
    window.workbench.right.setSizes([260, 400])  # a short inspector: its content must scroll
    QApplication.processEvents()

    async def body() -> None:
        await held_at_round_two(window)
        bar = inspector.scroll_area.verticalScrollBar()
        await until(lambda: bar.maximum() > 0)
        bar.setValue(bar.maximum())  # the person had scrolled down, to the diff
        window.controls.tampers["signature"].trigger()
        window.controls.continue_.trigger()
        await until(lambda: window.studio.state == "idle")
        await asyncio.sleep(0.1)

    arun(body())
    marked = [row for row in range(inspector.checks_table.rowCount())
              if inspector.checks_table.item(row, 0).font().bold()]
    assert len(marked) == 1
    assert in_view(window, inspector.checks_table, marked[0])


def test_payload_and_diff_never_scroll_and_the_diff_shows_values_whole(window: MainWindow,  # noqa: F811
                                                                       arun: Runner) -> None:  # noqa: F811
    inspector = window.state_inspector
    window.show_inspector(inspector)
    window.workbench.set_column_sizes([300, 700, 360])  # a narrow inspector: long values wrap

    async def body() -> None:
        assert window.explorer.select("deploy_wizard", "tool")  # three rounds: a state compared with the last
        window.controls.run.trigger()
        await until(lambda: window.studio.state == "idle" and window.studio.store.operations != [])
        await asyncio.sleep(0.1)

    arun(body())
    op = window.studio.store.operations[-1]
    minted = [m for m in window.studio.store.messages_of(op.id) if m.kind == "input_required"]
    assert len(minted) >= 2
    window.selection.select(minted[-1])  # the last state the server minted, compared with the one before
    QApplication.processEvents()
    QApplication.processEvents()
    diff = inspector.diff_table
    assert diff.rowCount() > 0
    for table in (inspector.payload_table, diff):
        assert table.rowCount() > 0
        assert table.verticalScrollBar().maximum() == 0
        rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
        assert table.viewport().height() >= rows, table.accessibleName()
    assert diff.textElideMode() == Qt.TextElideMode.ElideNone and diff.wordWrap()
    for row in range(diff.rowCount()):
        for column in (1, 2):
            item = diff.item(row, column)
            width = diff.columnWidth(column) - 10
            lines = QFontMetrics(item.font()).boundingRect(QRect(0, 0, width, 10_000),
                                                           int(Qt.TextFlag.TextWrapAnywhere), item.text())
            assert diff.rowHeight(row) >= lines.height(), (item.text(), diff.rowHeight(row), lines.height())
