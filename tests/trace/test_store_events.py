"""The store's events: a bulk listener is told of a load once; the others see every add."""

from mrtr_studio.trace import TraceStore
from mrtr_studio.trace.store import StoreEvent
from tools.synthetic_trace import synthetic_trace


def test_a_load_reaches_bulk_listeners_as_cleared_then_one_loaded() -> None:
    store = TraceStore()
    every: list[StoreEvent] = []
    bulk: list[StoreEvent] = []
    store.subscribe(every.append)
    store.subscribe(bulk.append, bulk=True)
    operations, messages = synthetic_trace(5)
    store.load(operations, messages)
    assert [e.kind for e in bulk] == ["cleared", "loaded"]
    assert len(store.messages) == len(messages) == 20
    assert [e.kind for e in every].count("message_added") == 20
    assert all(e.loaded for e in every if e.kind == "message_added")
    assert "loaded" not in [e.kind for e in every]


def test_live_changes_still_reach_bulk_listeners_one_by_one() -> None:
    store = TraceStore()
    bulk: list[StoreEvent] = []
    unsubscribe = store.subscribe(bulk.append, bulk=True)
    op = store.begin_operation("tools/call", "delete_file", {}, "2026-07-28", "embedded")
    store.record(op.id, 1, "client->server", {"jsonrpc": "2.0", "id": 1, "method": "tools/call"})
    assert [e.kind for e in bulk] == ["operation_added", "message_added", "operation_updated"]
    unsubscribe()
    store.clear()
    assert len(bulk) == 3


def test_a_live_listener_hears_what_happens_now_not_a_load() -> None:
    """The linter and the studio only care about live traffic: a load of 100,000 messages makes them no
    calls, while a plain listener still hears every add marked loaded."""
    from tools.synthetic_trace import synthetic_trace

    ops, messages = synthetic_trace(3)
    store = TraceStore()
    live: list[str] = []
    plain: list[tuple[str, bool]] = []
    store.subscribe(lambda event: live.append(event.kind), live=True)
    store.load(ops, messages)
    assert live == ["cleared"]
    store.subscribe(lambda event: plain.append((event.kind, event.loaded)))
    store.load(ops, messages)
    assert plain.count(("message_added", True)) == len(messages) and plain[0] == ("cleared", False)
    assert live == ["cleared", "cleared"]
    op = store.begin_operation("tools/call", "t", {}, "modern", "embedded")
    store.record(op.id, 1, "client->server", {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {}})
    assert live[2:] == ["operation_added", "message_added", "operation_updated"]
