"""The Qt-free parts of the operations list: the index kept from store events, the JSON diff, the pairing."""

from mrtr_studio.studio.flow_compare import compare_flows
from mrtr_studio.studio.json_diff import json_diff
from mrtr_studio.studio.operations import OperationsIndex, RunSettings, format_duration
from mrtr_studio.studio.served_engine import LABEL
from mrtr_studio.trace import TraceStore
from mrtr_studio.trace.model import TraceMessage
from tools.synthetic_trace import synthetic_trace


def indexed(store: TraceStore) -> OperationsIndex:
    index = OperationsIndex()
    store.subscribe(index.apply)
    return index


def test_rows_follow_live_operations_and_error_codes() -> None:
    store = TraceStore()
    index = indexed(store)
    op = store.begin_operation("tools/call", "delete_file", {"path": "/a"}, "modern", "http://127.0.0.1:1/mcp")
    index.note_settings(op.id, RunSettings("tools/call", "delete_file", {"path": "/a"}, "bob"))
    row = index.rows[0]
    assert (row.outcome, row.source, row.identity, row.origin) == ("running", "HTTP http://127.0.0.1:1/mcp", "bob",
                                                                    "live")
    store.record(op.id, 1, "client->server", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}})
    store.record(op.id, 1, "server->client", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "x"}})
    store.finish_operation(op.id, "error", "-32602 x")
    assert row.outcome == "error -32602" and row.messages == 2 and row.operation.rounds == 1
    assert row.duration is not None and format_duration(0.25) == "250 ms" and format_duration(None) == "…"
    served = store.begin_operation("tools/call", "t", {}, "legacy", "embedded", LABEL)
    stdio = store.begin_operation("tools/call", "t", {}, "legacy", "python -m srv")
    assert index.get(served.id) is not None and index.get(served.id).source == "served to an outside client"  # type: ignore[union-attr]
    assert index.get(stdio.id).source == "stdio python -m srv"  # type: ignore[union-attr]
    named = store.begin_operation("tools/call", "t", {}, "modern", "work: https://mcp.example/mcp")
    named_stdio = store.begin_operation("tools/call", "t", {}, "modern", "local: python srv.py")
    assert index.get(named.id).source == "HTTP work: https://mcp.example/mcp"  # type: ignore[union-attr]
    assert index.get(named_stdio.id).source == "stdio local: python srv.py"  # type: ignore[union-attr]
    store.finish_operation(stdio.id, "aborted", "stopped")
    assert index.get(stdio.id).outcome == "aborted"  # type: ignore[union-attr]


def test_a_loaded_trace_gives_one_row_per_operation() -> None:
    store = TraceStore()
    index = indexed(store)
    ops, messages = synthetic_trace(300)
    store.load(ops, messages)
    assert len(index.rows) == 300 and {r.origin for r in index.rows} == {"loaded"}
    assert {r.messages for r in index.rows} == {4} and {r.outcome for r in index.rows} == {"complete"}
    store.clear()
    assert index.rows == []


def test_json_diff_names_each_changed_path() -> None:
    left = {"id": 1, "params": {"arguments": {"path": "/a"}, "list": [1, 2]}, "gone": True}
    right = {"id": 2, "params": {"arguments": {"path": "/b"}, "list": [1, 2, 3]}, "new": None}
    found = {d.dotted: d.kind for d in json_diff(left, right, ignore=frozenset({("id",)}))}
    assert found == {"params.arguments.path": "changed", "params.list[2]": "added", "gone": "removed",
                     "new": "added"}
    assert json_diff({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) == []
    assert json_diff(1, True) != []  # a bool is not the integer 1
    deep: dict = {}
    cursor = deep
    for _ in range(200):
        cursor["x"] = {}
        cursor = cursor["x"]
    assert len(json_diff(deep, {"x": 1})) == 1
    assert len(json_diff(list(range(2000)), [])) == 500  # bounded


def test_flows_pair_by_round_and_mark_differences() -> None:
    ops, messages = synthetic_trace(2)
    one = [m for m in messages if m.operation_id == ops[0].id]
    two = [m for m in messages if m.operation_id == ops[1].id]
    pairs = compare_flows(one, two)
    assert len(pairs) == 4 and all(p.differs for p in pairs[:3])
    assert "params.arguments.path" in [d.dotted for d in pairs[0].differences]
    assert not pairs[3].differs  # the same "File deleted" answer (its id aside)
    shorter = compare_flows(one, two[:2])
    assert [p.right is None for p in shorter] == [False, False, True, True]


def test_an_authorization_inside_a_round_does_not_shift_the_mrtr_pairs() -> None:
    store = TraceStore()
    plain = store.begin_operation("tools/call", "t", {}, "modern", "http://127.0.0.1:1/mcp")
    authorized = store.begin_operation("tools/call", "t", {}, "modern", "http://127.0.0.1:1/mcp")
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}
    store.record(plain.id, 1, "client->server", request)
    store.record(plain.id, 1, "server->client", answer)
    store.record(authorized.id, 1, "server->client", {"phase": "challenge", "status": 401}, auth_phase="challenge")
    store.record(authorized.id, 1, "client->server", {"phase": "token request", "status": 200},
                 auth_phase="token request")
    store.record(authorized.id, 1, "client->server", request)
    store.record(authorized.id, 1, "server->client", answer)
    pairs = compare_flows(store.messages_of(plain.id), store.messages_of(authorized.id))
    assert [(p.left.kind if p.left else None, p.right.kind if p.right else None) for p in pairs] == [
        (None, "auth"), (None, "auth"), ("request", "request"), ("complete", "complete")]
    assert not pairs[2].differs and not pairs[3].differs


def test_recovered_operations_are_marked() -> None:
    store = TraceStore()
    index = indexed(store)
    ops, messages = synthetic_trace(3)
    store.load(ops, messages)
    assert index.mark_recovered([ops[0].id, "unknown"]) == [0]
    assert [r.origin for r in index.rows] == ["recovered", "loaded", "loaded"]


def test_the_per_round_traceparent_is_no_difference_between_two_flows() -> None:
    def sent(span: str) -> TraceMessage:
        return TraceMessage(0, "op", 1, "client->server", "request", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                            "params": {"name": "t", "_meta": {"traceparent": f"00-{'a' * 32}-{span}-01"}}}, 0.0)

    (pair,) = compare_flows([sent("1" * 16)], [sent("2" * 16)])
    assert not pair.differs


def test_clear_then_undo_brings_the_rows_back_as_they_were() -> None:
    """Undo after Clear loads the same operations again: their rows keep how they ran (identity,
    live or recovered), both when the adds come one by one and when the list rebuilds at once."""
    store = TraceStore()
    index = indexed(store)
    op = store.begin_operation("tools/call", "delete_file", {"path": "/a"}, "modern", "embedded")
    index.note_settings(op.id, RunSettings("tools/call", "delete_file", {"path": "/a"}, "bob"))
    store.finish_operation(op.id, "complete")
    other, _ = synthetic_trace(1)
    store.load([op, *other], list(store.messages_of(op.id)))  # as an opened file plus the live run
    assert [(r.identity, r.origin) for r in index.rows] == [("bob", "live"), ("—", "loaded")]
    index.mark_recovered([other[0].id])
    operations, messages = list(store.operations), list(store.messages)
    store.clear()
    assert index.rows == []
    store.load(operations, messages)  # what Studio.undo_clear does
    rows = [(r.identity, r.origin, r.source) for r in index.rows]
    assert rows == [("bob", "live", "embedded"), ("—", "recovered", index.rows[1].source)]
    index.rebuild(store.operations, store.messages)  # the Qt model rebuilds on "loaded"
    assert [(r.identity, r.origin) for r in index.rows] == [("bob", "live"), ("—", "recovered")]
