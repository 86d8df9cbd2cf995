"""The message log: rows follow store events, filters narrow them, a 10k file loads with one reset."""

from mrtr_studio.trace import Finding, TraceStore
from mrtr_studio.ui.log import COLUMNS, MessageLogView, TraceFilterProxy, TraceMessageModel
from mrtr_studio.ui.selection import Selection
from tests.trace.view_flows import run_flow, synthetic_trace


def counting(model: TraceMessageModel) -> dict[str, int]:
    counts = {"reset": 0, "inserted": 0, "changed": 0}
    model.modelReset.connect(lambda: counts.__setitem__("reset", counts["reset"] + 1))
    model.rowsInserted.connect(lambda *_: counts.__setitem__("inserted", counts["inserted"] + 1))
    model.dataChanged.connect(lambda *_: counts.__setitem__("changed", counts["changed"] + 1))
    return counts


def test_rows_appear_one_insert_per_message(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    model = TraceMessageModel(store)
    counts = counting(model)
    run_flow(store, "delete_file")
    assert model.rowCount() == 4 and counts == {"reset": 0, "inserted": 4, "changed": 0}
    assert model.columnCount() == len(COLUMNS) == 9
    row = [model.index(1, c).data() for c in range(len(COLUMNS))]
    assert row[0] == 1 and row[2] == "← server" and row[3] == 1
    assert row[4] == "tools/call"  # the response's method, taken from its request
    assert row[6] == "input_required" and "confirm" in row[7]


def test_findings_update_the_row(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    model = TraceMessageModel(store)
    run_flow(store, "delete_file")
    counts = counting(model)
    store.add_findings(store.messages[2], [Finding("state-echo", "warning", "state changed")])
    assert counts["changed"] == 1
    assert model.index(2, 8).data() == "warning: state-echo"


def test_filters(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    model = TraceMessageModel(store)
    proxy = TraceFilterProxy()
    proxy.setSourceModel(model)
    modern = run_flow(store, "delete_file")
    legacy = run_flow(store, "count_roots", era="legacy", arguments={})
    store.add_findings(store.messages[1], [Finding("r1", "error", "bad")])
    store.add_findings(store.messages[3], [Finding("r2", "info", "fyi")])
    assert proxy.rowCount() == 8

    def seqs() -> list[int]:
        return [proxy.index(r, 0).data() for r in range(proxy.rowCount())]

    proxy.set_filter(direction="server->client")
    assert seqs() == [1, 3, 5, 7]
    proxy.set_filter(direction="", operation=legacy.id)
    assert seqs() == [4, 5, 6, 7]
    proxy.set_filter(operation="", method="roots/list")
    assert seqs() == [5, 6]
    proxy.set_filter(method="", finding="any")
    assert seqs() == [1, 3]
    proxy.set_filter(finding="error")
    assert seqs() == [1]
    proxy.set_filter(finding="rule:r2")
    assert seqs() == [3]
    proxy.set_filter(finding="", text="FILE DELETED")
    assert seqs() == [3]
    proxy.set_filter(text=modern.id)
    assert seqs() == [0, 1, 2, 3]


def test_ten_thousand_messages_load_with_a_single_reset(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    view = MessageLogView(store, Selection())
    qtbot.addWidget(view)
    counts = counting(view.model)
    operations, messages = synthetic_trace(2500)
    store.load(operations, messages)
    qtbot.waitUntil(lambda: view.model.rowCount() == 10_000)
    assert counts == {"reset": 1, "inserted": 0, "changed": 0}
    assert view.proxy.rowCount() == 10_000
    assert view.method_box.findData("tools/call") >= 0
    # A live message after the load is a plain insert again.
    op = store.begin_operation("tools/call", "x", {}, "2026-07-28", "embedded")
    store.record(op.id, 1, "client->server", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}})
    assert view.model.rowCount() == 10_001 and counts["inserted"] == 1


def test_selection_follows_both_ways(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    selection = Selection()
    view = MessageLogView(store, selection)
    qtbot.addWidget(view)
    run_flow(store, "delete_file")
    selection.select(store.messages[2])
    assert view.current_message_seq() == 2
    view.table.selectRow(0)
    assert selection.message_seq == 0
    view.only_operation.setChecked(True)
    assert view.proxy.rowCount() == 4


def test_live_adds_on_a_big_trace_are_inserted_together(qtbot) -> None:  # type: ignore[no-untyped-def]
    from mrtr_studio.ui.log.message_model import BATCH_ABOVE

    store = TraceStore()
    view = MessageLogView(store, Selection())
    qtbot.addWidget(view)
    operations, messages = synthetic_trace(BATCH_ABOVE // 4)
    store.load(operations, messages)
    qtbot.waitUntil(lambda: view.model.rowCount() == BATCH_ABOVE)
    counts = counting(view.model)
    op = store.begin_operation("tools/call", "x", {}, "2026-07-28", "embedded")
    added = [store.record(op.id, 1, "client->server", {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                                        "params": {}}) for i in range(5)]
    assert view.model.rowCount() == BATCH_ABOVE and counts["inserted"] == 0  # gathered, not yet inserted
    qtbot.waitUntil(lambda: view.model.rowCount() == BATCH_ABOVE + 5)
    assert counts["inserted"] == 1  # one block of five rows
    late = store.record(op.id, 1, "client->server", {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {}})
    assert view.model.row_of(late.seq) == BATCH_ABOVE + 5  # asking for it inserts it at once
    assert view.model.message_at(BATCH_ABOVE + 4) is added[-1]
