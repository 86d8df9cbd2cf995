"""Transport metadata is kept once per shape, shared by the messages that have it, and reads back exactly."""

import json
import math

import pytest

from mrtr_studio.trace import files, transport_shapes
from mrtr_studio.trace.model import TraceMessage
from mrtr_studio.trace.store import TraceStore

HEADERS = {"host": "127.0.0.1:8765", "content-type": "application/json", "authorization": "Bearer ***"}


def request_meta(exchange: object) -> dict[str, object]:
    return {"transport": "http-proxy", "exchange": exchange, "http_method": "POST", "http_path": "/mcp",
            "request_headers": dict(HEADERS)}


def message(seq: int, transport: dict[str, object] | None) -> TraceMessage:
    return TraceMessage(seq, "op1", 1, "client->server", "request", {"jsonrpc": "2.0", "id": seq, "method": "ping"},
                        1.0 + seq, "ping", seq, transport)


def test_messages_of_one_shape_share_it_and_read_back_their_own_exchange_in_order() -> None:
    before = transport_shapes.live_shapes()
    entries = [message(seq, request_meta(1000 + seq)) for seq in range(500)]
    assert transport_shapes.live_shapes() - before <= 1
    for seq, entry in enumerate(entries):
        assert entry.transport == request_meta(1000 + seq)
        assert list(entry.transport) == list(request_meta(0))  # keys in their recorded order


def test_a_shape_lasts_only_while_a_message_holds_it() -> None:
    unusual = {"transport": "stdio", "exchange": 7, "only-here": "test_a_shape_lasts"}
    before = transport_shapes.live_shapes()
    entry = message(1, unusual)
    assert transport_shapes.live_shapes() == before + 1
    del entry
    assert transport_shapes.live_shapes() == before


@pytest.mark.parametrize("transport", [
    {"transport": "stdio"},  # no exchange: the whole dict is the shape
    {"exchange": True, "x": 1},  # a bool is not an exchange number
    {"exchange": 2**70, "x": 1},  # past 64 bits: orjson cannot write it
    {"exchange": 3, "n": math.nan},  # NaN would come back null
    {"exchange": "\x00mrtr-exchange\x00", "header": "\x00mrtr-exchange\x00"},  # the mark itself, recorded
    {"exchange": 5, "header": "\x00mrtr-exchange\x00"},
    {"exchange": -4, "nested": {"exchange": 9, "list": [1, {"a": None}]}},
    {1: "a non-string key"},
])
def test_unusual_metadata_reads_back_as_recorded(transport: dict[object, object]) -> None:
    entry = message(1, transport)  # type: ignore[arg-type]
    got = entry.transport
    if any(isinstance(v, float) and math.isnan(v) for v in transport.values()):
        assert math.isnan(got["n"]) and got["exchange"] == 3
    else:
        assert got == transport and list(got) == list(transport)


def test_live_messages_are_kept_like_loaded_ones(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    op = store.begin_operation("tools/call", "t", {}, "modern", "http://127.0.0.1:1/mcp")
    before = transport_shapes.live_shapes()
    for exchange in range(200):
        store.record(op.id, 1, "client->server", {"jsonrpc": "2.0", "id": exchange, "method": "tools/call"},
                     **request_meta(exchange))
    assert transport_shapes.live_shapes() - before <= 1
    live = store.messages[-1]
    assert live.packed()  # the message packed as a loaded one is
    path = files.save(tmp_path / "t.mrtr.json", store)
    reopened = TraceStore()
    files.load_into(reopened, path)
    assert [m.transport for m in reopened.messages] == [request_meta(x) for x in range(200)]
    assert [m.to_json() for m in reopened.messages] == [m.to_json() for m in store.messages]


def test_assigning_transport_replaces_it_whole() -> None:
    entry = message(1, request_meta(1))
    entry.transport = {**entry.transport, "http_status": 200}
    assert entry.transport == {**request_meta(1), "http_status": 200}
    entry.transport = {}
    assert entry.transport == {}


def test_a_proxy_recording_s_varying_headers_are_cut_out_of_the_shape() -> None:
    """What `proxy --trace` records differs on nearly every message (content-length, date,
    server-timing, the connection's peer) and has no exchange number: still one shape per kind."""
    from tools.synthetic_trace import proxy_transport

    before = transport_shapes.live_shapes()
    metas = [proxy_transport(n, "client->server" if n % 2 else "server->client", 100 + n, 1_700_000_000 + n)
             for n in range(400)]
    entries = [message(seq, meta) for seq, meta in enumerate(metas)]
    assert len({m["response_headers"]["server-timing"] for m in metas if "response_headers" in m}) > 100
    assert transport_shapes.live_shapes() - before <= 2
    assert all(type(entry._transport) is transport_shapes.Exchanged for entry in entries)
    for entry, meta in zip(entries, metas, strict=True):
        assert entry.transport == meta
        assert list(entry.transport) == list(meta)
        for name in ("request_headers", "response_headers"):
            if name in meta:
                assert list(entry.transport[name]) == list(meta[name])


@pytest.mark.parametrize("transport", [
    {"peer": "\x00mrtr-exchange\x00", "request_headers": {"date": "\x00mrtr-exchange\x00", "a": "b"}},
    {"peer": 3, "response_headers": {"content-length": "1\x00\"2", "date": True, "etag": 2**70}},
    {"exchange": 1, "peer": "h:1", "request_headers": {"content-length": "5"}, "x": {"date": "kept"}},
    {"request_headers": "not a dict", "peer": None},
])
def test_cut_values_read_back_exactly(transport: dict[str, object]) -> None:
    entry = message(1, transport)
    assert entry.transport == transport
    assert json.dumps(entry.transport) == json.dumps(transport)  # the same keys, in the same order


def test_live_proxy_messages_are_packed_like_the_same_messages_loaded(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A message recorded live through a proxy (metadata differing per message) is kept in the same
    packed forms as the same message loaded from a file: compact JSON, and a shared shape with its
    own cut values, not a dict per message."""
    from tools.synthetic_trace import synthetic_trace

    operations, loaded = synthetic_trace(3, transport=True)
    store = TraceStore()
    op = store.begin_operation("tools/call", "delete_file", {}, "modern", "http://127.0.0.1:1/mcp")
    for entry in loaded:
        store.record(op.id, entry.round, entry.direction, entry.message, timestamp=entry.timestamp,
                     **entry.transport)
    reopened = TraceStore()
    files.load_into(reopened, files.save(tmp_path / "t.mrtr.json", (operations, loaded)))
    for live, opened in zip(store.messages, reopened.messages, strict=True):
        assert live.packed() and opened.packed()
        assert type(live._transport) is type(opened._transport) is transport_shapes.Exchanged
        assert live._transport.shape is opened._transport.shape  # one shape for both
        assert live.message_json() == opened.message_json() and live.transport == opened.transport
