"""A big log filters on a worker thread: the newest filter wins, a narrower one tests only the last
matches, live rows join the matching ones, and the selection comes back after the swap."""

import threading
from typing import Any

import pytest

from mrtr_studio.trace import TraceStore
from mrtr_studio.ui import filter_bar
from mrtr_studio.ui.log import MessageLogView, filter_proxy
from mrtr_studio.ui.selection import Selection
from tests.trace.view_flows import synthetic_trace


@pytest.fixture
def big(qtbot, monkeypatch: pytest.MonkeyPatch) -> tuple[MessageLogView, TraceStore, list[dict[str, Any]]]:  # type: ignore[no-untyped-def]
    """A log that counts as big (every size is filtered on the worker), with each run's thread and domain."""
    monkeypatch.setattr(filter_proxy, "SYNC_BELOW", 0)
    runs: list[dict[str, Any]] = []
    real = filter_proxy.select

    def recorded(columns: Any, bound: Any, conditions: Any = (), domain: Any = None, cancelled: Any = None) -> Any:
        runs.append({"thread": threading.get_ident(), "domain": domain,
                     "source": bound.filter.source if bound is not None else None})
        return real(columns, bound, conditions, domain, cancelled)

    monkeypatch.setattr(filter_proxy, "select", recorded)
    store = TraceStore()
    view = MessageLogView(store, Selection())
    qtbot.addWidget(view)
    store.load(*synthetic_trace(250))  # 1,000 messages
    qtbot.waitUntil(lambda: view.model.rowCount() == 1000)
    yield view, store, runs
    view.proxy.shutdown()


def shown(view: MessageLogView) -> list[int]:
    return [view.model.message_at(view.proxy.mapToSource(view.proxy.index(r, 0)).row()).seq
            for r in range(view.proxy.rowCount())]


def settled(view: MessageLogView) -> bool:
    return not view.proxy.busy()


def test_the_filter_runs_off_the_gui_thread_and_the_newest_wins(qtbot, big) -> None:  # type: ignore[no-untyped-def]
    view, store, runs = big
    counts: list[int] = []
    view.proxy.filtered.connect(lambda: counts.append(view.proxy.rowCount()))
    view.filter_bar.set_text("f1")
    view.filter_bar.set_text("kind:complete")  # typed over before the first run could land
    qtbot.waitUntil(lambda: settled(view) and view.proxy.rowCount() == 250)
    assert shown(view) == [m.seq for m in store.messages if m.kind == "complete"]
    assert runs and all(run["thread"] != threading.get_ident() for run in runs)
    assert counts == [250]  # the first run's rows were never shown


def test_a_narrower_filter_tests_only_the_last_matches(qtbot, big) -> None:  # type: ignore[no-untyped-def]
    view, store, runs = big
    view.filter_bar.set_text("f1")
    qtbot.waitUntil(lambda: settled(view) and bool(runs) and view.proxy.rowCount() > 0)
    view.filter_bar.set_text("f12")
    qtbot.waitUntil(lambda: settled(view) and runs[-1]["source"] == "f12")
    qtbot.waitUntil(lambda: view.proxy.rowCount() < 100)
    bound = view.filter_bar.bound()
    assert bound is not None
    assert shown(view) == [m.seq for m in store.messages if bound.matches(m)]
    assert runs[-1]["domain"] is not None and runs[0]["domain"] is None
    view.filter_bar.set_text("kind:request")  # not narrower: every row again
    qtbot.waitUntil(lambda: settled(view) and view.proxy.rowCount() == 500)
    assert runs[-1]["domain"] is None


def test_keystrokes_on_a_big_trace_are_filtered_once(qtbot, big, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    view, _store, runs = big
    monkeypatch.setattr(filter_bar, "DEBOUNCE_ABOVE", 0)
    qtbot.keyClicks(view.filter_bar.edit, "round:2")
    qtbot.waitUntil(lambda: settled(view) and view.proxy.rowCount() == 500)
    assert [run["source"] for run in runs] == ["round:2"]


def test_live_rows_join_and_the_selection_comes_back(qtbot, big) -> None:  # type: ignore[no-untyped-def]
    view, store, _runs = big
    wanted = store.messages[6]  # a retry (round 2)
    view.selection.select(wanted)
    view.filter_bar.set_text("round:2 dir:c2s")
    qtbot.waitUntil(lambda: settled(view) and view.proxy.rowCount() == 250)
    assert view.current_message_seq() == wanted.seq
    op = store.begin_operation("tools/call", "x", {}, "2026-07-28", "embedded")
    store.record(op.id, 2, "client->server", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}})
    store.record(op.id, 1, "client->server", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}})
    qtbot.waitUntil(lambda: settled(view) and view.proxy.rowCount() == 251)
    assert shown(view)[-1] == store.messages[-2].seq
    view.filter_bar.set_text("")
    qtbot.waitUntil(lambda: view.proxy.rowCount() == 1002)


def test_a_repaint_of_every_row_reaches_the_rows_shown(qtbot, big) -> None:  # type: ignore[no-untyped-def]
    """A colouring rule repaints rows 0..last of the source; the filter hides both ends (the first
    message is a request, the last a complete), yet the shown rows between are repainted."""
    view, _, _ = big
    view.filter_bar.set_text("kind:input_required")
    qtbot.waitUntil(lambda: settled(view) and view.proxy.rowCount() == 250)
    repainted: list[tuple[int, int]] = []
    view.proxy.dataChanged.connect(lambda first, last, *_: repainted.append((first.row(), last.row())))
    model = view.model
    model.dataChanged.emit(model.index(0, 0), model.index(model.rowCount() - 1, model.columnCount() - 1))
    assert repainted == [(0, 249)]
    model.dataChanged.emit(model.index(2, 0), model.index(2, 0))  # a hidden row alone: nothing to repaint
    assert repainted == [(0, 249)]


def test_typing_on_in_the_text_box_tests_only_the_last_matches(qtbot, big) -> None:  # type: ignore[no-untyped-def]
    """The log's own text box narrows like the filter bar: a text that holds the last one can only
    match among the last matches; a different text starts over."""
    view, _store, runs = big
    view.text_edit.setText("delete")
    qtbot.waitUntil(lambda: settled(view) and len(runs) == 1)
    first = view.proxy.rowCount()
    view.text_edit.setText("delete_file")
    qtbot.waitUntil(lambda: settled(view) and len(runs) == 2)
    assert runs[0]["domain"] is None and runs[1]["domain"] is not None
    model = view.model
    expected = [m.seq for m in model.rows if "delete_file" in model.search_text_of(m)]
    assert shown(view) == expected and 0 < len(expected) <= first
    view.text_edit.setText("tools")  # not narrower
    qtbot.waitUntil(lambda: settled(view) and len(runs) == 3)
    assert runs[2]["domain"] is None


def test_live_messages_sealed_while_the_log_filters_are_found_by_the_text_column(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Messages recorded live are sealed into blocks every 256 (the store); the log's native text
    search (trace/text_column.py) finds exactly what the per-message filter finds, before and after
    more of them are sealed, its unsealed tail included."""
    from mrtr_studio.trace import filter_columns
    from mrtr_studio.trace.filter import compile_filter

    monkeypatch.setattr(filter_proxy, "SYNC_BELOW", 0)
    monkeypatch.setattr(filter_columns, "NATIVE_FROM", 1)
    searched: list[int] = []
    real = filter_columns.TextColumn.search
    monkeypatch.setattr(filter_columns.TextColumn, "search",
                        lambda self, patterns, cancelled: searched.append(self.count)
                        or real(self, patterns, cancelled))
    store = TraceStore()
    view = MessageLogView(store, Selection())
    qtbot.addWidget(view)
    _operations, loaded = synthetic_trace(150)

    ids: dict[str, str] = {}

    def record(messages: list[Any]) -> None:
        for entry in messages:
            if entry.operation_id not in ids:
                ids[entry.operation_id] = store.begin_operation("tools/call", "delete_file", {}, "modern",
                                                                "embedded").id
            store.record(ids[entry.operation_id], entry.round, entry.direction, entry.message,
                         timestamp=entry.timestamp)

    def expected(text: str) -> list[int]:
        bound = compile_filter(text).bind(store.operations, store.messages)
        return [m.seq for m in store.messages if bound.matches(m)]

    record(loaded[:400])
    qtbot.waitUntil(lambda: view.model.rowCount() == 400)
    for text in ("F1", "delete", "/f12?", "requeststate"):
        view.filter_bar.set_text(text)
        qtbot.waitUntil(lambda text=text: settled(view) and shown(view) == expected(text), timeout=10_000)
    assert searched and searched[-1] == 256  # one block coded; its 144 unsealed rows searched row by row
    record(loaded[400:])
    qtbot.waitUntil(lambda: view.model.rowCount() == 600)
    view.filter_bar.set_text("F1")
    qtbot.waitUntil(lambda: settled(view) and shown(view) == expected("F1"), timeout=10_000)
    assert searched[-1] == 512 and expected("F1")
    view.proxy.shutdown()
