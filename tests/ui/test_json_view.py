"""The JSON inspector shows the selected message as a tree and as copyable text."""

import json

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.json_view import JsonInspector
from mrtr_studio.ui.selection import Selection
from tests.trace.view_flows import run_flow


def test_tree_raw_and_copy(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    selection = Selection()
    widget = JsonInspector(store, selection)
    qtbot.addWidget(widget)
    op = run_flow(store, "delete_file")
    entry = store.messages_of(op.id)[1]
    selection.select(entry)
    assert json.loads(widget.raw.toPlainText()) == entry.message
    top = [widget.tree.topLevelItem(i).text(0) for i in range(widget.tree.topLevelItemCount())]
    assert top == ["jsonrpc", "id", "result"]
    result = widget.tree.topLevelItem(2)
    assert result.isExpanded() and "resultType" in [result.child(i).text(0) for i in range(result.childCount())]
    widget.copy()
    assert json.loads(QGuiApplication.clipboard().text()) == entry.message
    selection.select_message(-1)
    assert widget.raw.toPlainText() == "" and not widget.copy_button.isEnabled()


def test_keys_are_not_cut_off(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    selection = Selection()
    widget = JsonInspector(store, selection)
    qtbot.addWidget(widget)
    widget.resize(380, 500)
    with qtbot.waitExposed(widget):
        widget.show()
    op = run_flow(store, "delete_file")
    selection.select(store.messages_of(op.id)[1])  # input_required: result.inputRequests.confirm.params...
    tree = widget.tree
    metrics = tree.fontMetrics()
    checked = 0
    stack = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    while stack:
        item = stack.pop()
        stack += [item.child(i) for i in range(item.childCount())]
        rect = tree.visualItemRect(item)
        if rect.isValid():
            # the key's text fits between where the item starts and the column's right edge
            assert rect.x() + metrics.horizontalAdvance(item.text(0)) <= tree.columnWidth(0), item.text(0)
            checked += 1
    assert checked > 10
    item = tree.findItems("requestedSchema", Qt.MatchFlag.MatchRecursive | Qt.MatchFlag.MatchExactly)[0]
    assert item.toolTip(0) == "result.inputRequests.confirm.params.requestedSchema"


def test_a_long_header_wraps_instead_of_scrolling_a_narrow_inspector(qtbot) -> None:  # type: ignore[no-untyped-def]
    from mrtr_studio.ui.layout import scrolled

    store = TraceStore()
    selection = Selection()
    widget = JsonInspector(store, selection)
    area = scrolled(widget, "page:json")  # as the window holds it: a tab page that scrolls when squeezed
    qtbot.addWidget(area)
    area.resize(240, 500)
    with qtbot.waitExposed(area):
        area.show()
    op = run_flow(store, "delete_file")
    selection.select(store.messages_of(op.id)[1])
    qtbot.wait(10)
    text = widget.header.text()
    assert widget.header.fontMetrics().horizontalAdvance(text) + widget.copy_button.width() > area.width()
    assert not area.horizontalScrollBar().isVisible() and area.horizontalScrollBar().maximum() == 0
    assert widget.header.geometry().right() < widget.copy_button.geometry().left()
    assert widget.header.height() >= 2 * widget.header.fontMetrics().height() - 2  # wrapped onto two lines
