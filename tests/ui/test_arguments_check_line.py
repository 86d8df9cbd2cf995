"""The verdict on the selected tool's arguments is in view without scrolling at 1366x768 (and 1920x1080):
a fixed two-line line above the form, so it never moves the field being typed in."""

from typing import Any

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QWidget

from mrtr_studio.ui.main_window import MainWindow
from tests.ui.test_main_window import Runner, arun  # noqa: F401  (fixtures)
from tests.ui.test_side_column_steady import win  # noqa: F401  (the window at both sizes)


def seen_whole(widget: QWidget) -> bool:
    """Every pixel of `widget` is on screen: not clipped by a scroll box, the column or the window."""
    return widget.isVisible() and widget.visibleRegion().boundingRect() == widget.rect()


def at(widget: QWidget, window: QWidget) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def test_the_schema_warning_shows_without_scrolling_and_moves_no_field(win: MainWindow, qtbot: Any) -> None:  # noqa: F811
    panel = win.arguments
    assert win.explorer.select("delete_file", "tool")
    QApplication.processEvents()
    line = panel.message
    assert line.text().startswith("⚠ Does not match the input schema") and "path" in line.text()
    assert "path" in panel.problem()
    assert seen_whole(line), (line.visibleRegion().boundingRect(), line.rect())
    assert win.workbench.side.verticalScrollBar().value() == 0 and panel.body.verticalScrollBar().value() == 0
    assert at(line, win).bottom() < at(panel.body, win).top() + 1  # above the form's box, not in it
    assert win.rect().contains(at(line, win))
    field = next(f for f in panel.editor.findChildren(QLineEdit) if f.isVisible())
    where, height = at(field, win), line.height()
    qtbot.keyClicks(field, "/tmp/demo.txt")
    QApplication.processEvents()
    assert line.text() == "✔ Matches the input schema" and panel.problem() == ""
    assert at(field, win) == where and line.height() == height  # the field did not move under the typing
    field.clear()
    QApplication.processEvents()
    assert line.text().startswith("⚠") and at(field, win) == where and line.height() == height


def test_a_long_verdict_stays_two_lines_with_the_whole_text_in_its_tooltip(win: MainWindow) -> None:  # noqa: F811
    line = win.arguments.message
    height = line.height()
    long = "Does not match the input schema (it can still be sent): " + "; ".join(
        f"field_{n}: is a required property" for n in range(12))
    line.setText(long)
    QApplication.processEvents()
    assert line.height() == height and line.text() == long
    shown = line.shown_text()
    assert shown.endswith("…") and len(shown) < len(long) and line.toolTip() == long
    lines = line.fontMetrics().boundingRect(line.contentsRect(), int(Qt.TextFlag.TextWordWrap), shown).height()
    assert lines <= 2 * line.fontMetrics().lineSpacing()
    assert seen_whole(line)


def test_every_tools_form_fits_its_scroll_box_so_nothing_is_cut_at_the_right(win: MainWindow) -> None:  # noqa: F811
    panel = win.arguments
    panel.body.setFixedHeight(4 * panel.fontMetrics().lineSpacing())  # a short box: the forms scroll in it
    tree = win.explorer.tree
    tools = tree.topLevelItem(0)
    assert tools is not None and tools.childCount() >= 10
    for index in range(tools.childCount()):
        name = tools.child(index).text(0)
        assert win.explorer.select(name, "tool")
        for _ in range(3):  # the new form, then the scroll bar it brings, then the fitted width
            QApplication.processEvents()
        body, viewport = panel.body.widget(), panel.body.viewport()
        assert panel.body.verticalScrollBar().isVisible() or body.height() <= viewport.height(), name
        # No horizontal scroll bar is offered: content wider than the box would simply be cut.
        assert body.width() <= viewport.width(), (name, body.width(), viewport.width())
        assert at(panel.title, win).right() <= at(viewport, win).right(), name


def test_a_picked_tools_fields_show_at_once(win: MainWindow) -> None:  # noqa: F811
    panel = win.arguments
    assert win.explorer.select("deploy_wizard", "tool")
    assert win.explorer.select("delete_file", "tool")
    # No event processed yet: the form is already shown, not waiting for a later turn of the loop.
    assert panel.editor.isVisibleTo(panel) and panel.editor.isVisible()
    field = next(f for f in panel.editor.findChildren(QLineEdit) if f.isVisibleTo(panel.editor))
    assert field.isVisible()
