"""The Problems tab: its summary line agrees with the list, and a long notice wraps inside the panel."""

from typing import Any

from PySide6.QtWidgets import QApplication

from mrtr_studio.ui.error_panel import ErrorPanel

RECOVERY = ("Recovered 3 operation(s) from the autosave journal after an unclean exit; File ▸ Discard recovered "
            "operations removes them, File ▸ Reopen the last session brings back the session before.")


def test_the_summary_never_says_no_problems_above_entries(qtbot: Any) -> None:
    panel = ErrorPanel()
    qtbot.addWidget(panel)
    assert panel.latest.text() == "No problems."
    panel.add(RECOVERY, kind="info")
    assert panel.list.count() == 1 and "No problems" not in panel.latest.text()
    assert panel.latest.text() == "No errors; 1 notice below."
    panel.add("cannot connect to http://127.0.0.1:1/mcp")
    assert panel.latest.text().startswith("✗ cannot connect")
    panel.add("another notice", kind="info")
    assert panel.latest.text().startswith("✗ cannot connect")  # an error stays summed up until cleared
    panel.clear()
    assert panel.latest.text() == "No problems." and panel.list.count() == 0


def test_a_long_notice_wraps_within_the_panel(qtbot: Any) -> None:
    panel = ErrorPanel()
    qtbot.addWidget(panel)
    panel.resize(420, 300)
    panel.show()
    qtbot.waitExposed(panel)
    panel.add(RECOVERY, kind="info")
    QApplication.processEvents()
    rect = panel.list.visualItemRect(panel.list.item(0))
    line = panel.list.fontMetrics().lineSpacing()
    assert rect.height() >= 2 * line  # wrapped onto several lines
    assert rect.right() <= panel.list.viewport().width()  # nothing past the right edge
    assert panel.list.horizontalScrollBar().maximum() == 0
    assert panel.list.item(0).toolTip() == RECOVERY
