"""The operations list in the real window: one row per operation with its outcome, Run again, Compare."""

import asyncio
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from mrtr_studio.studio.flow_compare import compare_flows
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.operations_view import COLUMNS
from tests.ui.test_main_window import Runner, arun, run_tool, settings, until, window  # noqa: F401  (fixtures)


def cell(win: MainWindow, row: int, column: str) -> str:
    model = win.operations.model
    return str(model.data(model.index(row, COLUMNS.index(column))))


def click_row(win: MainWindow, qtbot: Any, row: int, modifier: Any = Qt.KeyboardModifier.NoModifier) -> None:
    table = win.operations.table
    rect = table.visualRect(win.operations.model.index(row, 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())
    QApplication.processEvents()


def test_one_row_per_operation_with_its_outcome(window: MainWindow, arun: Runner) -> None:  # noqa: F811
    arun(run_tool(window, "delete_file", {"path": "/tmp/a.txt"}))
    window.client_panel.set_capability("elicitation", False)
    arun(run_tool(window, "delete_file", {"path": "/tmp/b.txt"}))
    window.client_panel.set_capability("elicitation", True)

    async def stopped() -> None:
        assert window.explorer.select("delete_file", "tool")
        window.controls.step.trigger()
        await until(lambda: window.studio.state == "paused")
        window.operations.select_ids([window.studio.store.operations[0].id])
        assert not window.operations.run_again.isEnabled()  # not while another operation runs
        window.controls.stop.trigger()
        await until(lambda: window.studio.state == "idle")
        await asyncio.sleep(0.05)

    arun(stopped())
    assert window.operations.run_again.isEnabled()
    model = window.operations.model
    assert model.rowCount() == len(window.studio.store.operations) == 3
    assert [cell(window, r, "outcome") for r in range(3)] == ["✓ complete", "✗ error -32021", "✗ aborted"]
    assert [cell(window, r, "rounds") for r in range(3)] == ["2", "1", "0"]  # stopped before the first send
    assert {cell(window, r, "source") for r in range(3)} == {"embedded"}
    assert {cell(window, r, "identity") for r in range(3)} == {"anonymous"}
    assert cell(window, 0, "era") == "modern" and cell(window, 0, "duration").endswith(("ms", "s"))


def test_picking_an_operation_shows_it_and_filters_the_log(window: MainWindow, arun: Runner,  # noqa: F811
                                                           qtbot: Any) -> None:
    first = arun(run_tool(window, "delete_file", {"path": "/tmp/a.txt"})).operation.id
    arun(run_tool(window, "count_roots", {}))
    assert window.selection.operation_id != first
    window.teaching.show("lab")
    click_row(window, qtbot, 0)
    assert window.teaching.tabs.currentWidget() is window.diagram
    assert window.selection.operation_id == first
    assert window.diagram.operation_id == first
    log = window.log
    assert log.only_operation.isChecked()
    shown = {log.model.message_at(log.proxy.mapToSource(log.proxy.index(r, 0)).row()).operation_id
             for r in range(log.proxy.rowCount())}
    assert shown == {first} and log.proxy.rowCount() == 4 < log.model.rowCount()


def test_run_again_records_a_second_identical_flow(window: MainWindow, arun: Runner, qtbot: Any) -> None:  # noqa: F811
    window.client_panel.set_identity("alice")
    original = arun(run_tool(window, "delete_file", {"path": "/tmp/again.txt"})).operation
    window.client_panel.set_identity("bob")  # changed since: Run again uses what the run used
    window.arguments.set_arguments({"path": "/tmp/other.txt"})
    click_row(window, qtbot, 0)
    assert window.operations.run_again.isEnabled()

    async def again() -> None:
        window.operations.run_again.click()
        await until(lambda: len(window.studio.store.operations) == 2 and window.studio.state == "idle")
        await asyncio.sleep(0.05)

    arun(again())
    store = window.studio.store
    repeat = store.operations[1]
    assert (repeat.method, repeat.target, repeat.arguments) == (original.method, original.target, original.arguments)
    assert window.studio.identity.name == "alice" and cell(window, 1, "identity") == "alice"
    one, two = store.messages_of(original.id), store.messages_of(repeat.id)
    assert [(m.round, m.direction, m.kind) for m in one] == [(m.round, m.direction, m.kind) for m in two]
    first_requests = [p for p in compare_flows(one, two) if p.left is not None and p.left.kind == "request"]
    assert not first_requests[0].differences  # the same call, field for field (the JSON-RPC id aside)


def test_compare_marks_the_differing_message_and_field(window: MainWindow, arun: Runner, qtbot: Any) -> None:  # noqa: F811
    arun(run_tool(window, "count_roots", {}))
    arun(run_tool(window, "count_roots", {}))
    arun(run_tool(window, "delete_file", {"path": "/tmp/one.txt"}))
    arun(run_tool(window, "delete_file", {"path": "/tmp/two.txt"}))
    click_row(window, qtbot, 2)
    assert not window.operations.compare.isEnabled()
    click_row(window, qtbot, 3, Qt.KeyboardModifier.ControlModifier)
    assert window.operations.compare.isEnabled() and not window.operations.run_again.isEnabled()
    window.operations.compare.click()
    QApplication.processEvents()
    assert window.compare_views
    view = window.compare_views[-1]
    assert view.isVisible()
    marked = view.marked_rows()
    assert 0 in marked  # the first request: its path differs
    view.flows.setCurrentItem(view.flows.topLevelItem(0))
    fields = [view.fields.topLevelItem(i).text(0) for i in range(view.fields.topLevelItemCount())]
    assert "params.arguments.path" in fields
    ids = window.operations.selected_ids()
    assert [d.operation_id for d in view.diagrams] == ids  # the two flows drawn side by side
    assert [s.message_seq for s in view.selections] == [view.pairs[0].left.seq, view.pairs[0].right.seq]
    view.close()
    # two runs of the same call mark nothing in the request
    click_row(window, qtbot, 0)
    click_row(window, qtbot, 1, Qt.KeyboardModifier.ControlModifier)
    same = window.compare(*window.operations.selected_ids())
    assert 0 not in same.marked_rows()
    same.close()


def test_clear_the_trace_can_be_undone(window: MainWindow, arun: Runner) -> None:  # noqa: F811
    arun(run_tool(window, "delete_file", {"path": "/tmp/a.txt"}))
    arun(run_tool(window, "count_roots", {}))
    store = window.studio.store
    ids = [op.id for op in store.operations]
    messages = len(store.messages)
    window.clear_trace()
    arun(asyncio.sleep(0.05))
    assert not store.operations and window.log.model.rowCount() == 0 and window.operations.model.rowCount() == 0
    assert "Undo" in window.statusBar().currentMessage() and window.undo_clear_action.isEnabled()
    window.undo_clear_action.trigger()
    arun(asyncio.sleep(0.05))
    assert [op.id for op in store.operations] == ids and len(store.messages) == messages
    assert window.log.model.rowCount() == messages and window.operations.model.rowCount() == 2
    assert not window.undo_clear_action.isEnabled()


def test_compare_shows_where_two_request_states_differ(window: MainWindow, arun: Runner, qtbot: Any) -> None:  # noqa: F811
    arun(run_tool(window, "delete_file", {"path": "/tmp/one.txt"}))
    arun(run_tool(window, "delete_file", {"path": "/tmp/one.txt"}))
    view = window.compare(*[op.id for op in window.studio.store.operations])
    qtbot.addWidget(view)
    view.resize(1366 * 9 // 10, 700)
    view.show()
    QApplication.processEvents()
    row = next(i for i, pair in enumerate(view.pairs) if any(d.dotted == "result.requestState"
                                                            for d in pair.differences))
    view.flows.setCurrentItem(view.flows.topLevelItem(row))
    items = [view.fields.topLevelItem(i) for i in range(view.fields.topLevelItemCount())]
    item = next(i for i in items if i is not None and i.text(0) == "result.requestState")
    left, right = item.text(2), item.text(3)
    assert left != right and left[-20:] != right[-20:]  # the signatures at the end differ, and are kept
    assert view.fields.textElideMode() == Qt.TextElideMode.ElideMiddle
    view.close()


def test_recovered_operations_open_with_the_newest_picked(qtbot: Any, settings: Any) -> None:  # noqa: F811
    from mrtr_studio.studio.controller import Studio
    from tests.trace.view_flows import run_flow

    studio = Studio()
    first = run_flow(studio.store, "count_roots")  # as a journal would, before the window exists
    for _ in range(10):  # more than the list shows at once
        last = run_flow(studio.store, "delete_file")
    win = MainWindow(studio, settings, interactive_answers=False)
    qtbot.addWidget(win)
    win.adopt_recovered([first.id, last.id])  # as at launch: before the window is shown
    win.show()
    QApplication.processEvents()
    assert win.operations.selected_ids() == [last.id]  # the flow the diagram shows is the one picked
    qtbot.wait(20)
    table = win.operations.table
    assert table.viewport().rect().contains(table.visualRect(table.currentIndex()))  # and in view
    assert win.diagram.operation_id == last.id
    assert "recovered" in str(win.operations.model.data(win.operations.model.index(0, COLUMNS.index("source"))))


def test_an_operation_picked_before_its_row_arrives_is_selected_when_it_does(qtbot: Any) -> None:
    """Whoever hears the store first may pick the new operation before the list has its row: the row is then
    selected as it arrives (the list follows the flow just run, whatever the listeners' order)."""
    from mrtr_studio.trace import TraceStore
    from mrtr_studio.ui.operations_view import OperationsView
    from mrtr_studio.ui.selection import Selection

    store, selection = TraceStore(), Selection()
    store.subscribe(lambda event: selection.select_operation(event.operation.id)
                    if event.kind == "operation_added" and event.operation is not None else None)
    view = OperationsView(store, selection)  # subscribed after the picker above
    qtbot.addWidget(view)
    first = store.begin_operation("tools/call", "a", {}, "modern", "embedded")
    second = store.begin_operation("tools/call", "b", {}, "modern", "embedded")
    qtbot.waitUntil(lambda: view.model.rowCount() == 2)
    QApplication.processEvents()
    assert selection.operation_id == second.id
    assert view.selected_ids() == [second.id] and first.id not in view.selected_ids()
