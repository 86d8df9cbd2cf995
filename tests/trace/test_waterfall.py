"""The diagram to scale (trace/waterfall.py): rows move to their time, never closer than a row, and the
time is split into what the person, the network and the server spent, from a trace with known times."""

import itertools

from mrtr_studio.trace import TraceStore
from mrtr_studio.trace.diagram_layout import ROW, layout_operation
from mrtr_studio.trace.waterfall import to_time_scale

ASK = {"resultType": "input_required", "requestState": "s",
       "inputRequests": {"confirm": {"method": "elicitation/create", "params": {}}}}


def known_times() -> TraceStore:
    """Round 1: 10 ms round trip of which the server says 4; the person answers for 2 s; round 2: 5 ms,
    no server timing."""
    store = TraceStore()
    op = store.begin_operation("tools/call", "delete_file", {}, "modern", "http://x/mcp")
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "delete_file"}}
    store.record(op.id, 1, "client->server", call, timestamp=100.0)
    store.record(op.id, 1, "server->client", {"jsonrpc": "2.0", "id": 1, "result": ASK}, timestamp=100.010,
                 duration_ms=10.0, server_ms=4.0)
    store.note_answer_time(op.id, 2, 2.0)
    retry = {**call, "id": 2, "params": {"name": "delete_file", "inputResponses": {"confirm": {}}}}
    store.record(op.id, 2, "client->server", retry, timestamp=102.010)
    store.record(op.id, 2, "server->client", {"jsonrpc": "2.0", "id": 2, "result": {"content": []}},
                 timestamp=102.015)
    return store


def test_the_time_is_split_into_user_network_and_server() -> None:
    store = known_times()
    op = store.operations[0]
    layout = layout_operation(op, store.messages_of(op.id))
    waterfall = to_time_scale(layout, store.messages_of(op.id))
    spans = sorted((s.round, s.kind, s.ms) for s in waterfall.spans)
    assert spans == [(1, "network", 3.0), (1, "network", 3.0), (1, "server", 4.0),
                     (2, "round_trip", 5.0), (2, "user", 2000.0)]
    assert abs(waterfall.total_ms - 2015.0) < 1e-6
    server = next(s for s in waterfall.spans if s.kind == "server")
    before, after = (s for s in waterfall.spans if s.kind == "network")
    assert before.y1 == server.y0 and server.y1 == after.y0  # one round trip, three parts in order
    assert (server.y1 - server.y0) / (after.y1 - before.y0) == 0.4  # 4 of its 10 ms


def test_rows_keep_their_order_and_room_and_long_waits_take_their_length() -> None:
    store = known_times()
    op = store.operations[0]
    layout = layout_operation(op, store.messages_of(op.id))
    plain = [a.y for a in layout.arrows]
    waterfall = to_time_scale(layout, store.messages_of(op.id))
    timed = [a.y for a in layout.arrows]
    assert all(b - a >= ROW - 1e-9 for a, b in itertools.pairwise(timed))
    assert timed != plain
    user = next(s for s in waterfall.spans if s.kind == "user")
    assert abs((user.y1 - user.y0) - 2000 * waterfall.px_per_ms) < 1.0  # the wait is drawn to scale
    assert layout.height > timed[-1]
    labels = [t.label for t in waterfall.ticks]
    assert labels[0] == "0 ms" and labels[-1].endswith(" s")
    assert [t.y for t in waterfall.ticks] == sorted(t.y for t in waterfall.ticks)
    assert [t.ms for t in waterfall.ticks] == sorted(t.ms for t in waterfall.ticks)
