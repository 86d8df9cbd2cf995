"""`serve` bounds a request's header section: past its size or its number of fields the answer is 431
(a JSON-RPC error naming the limit) before the parser holds any more of it; ordinary requests, with
and without a body in the same packet, and keep-alive requests after a refusal's neighbours, still pass."""

import orjson
import pytest

from mrtr_studio.transport.header_limits import HeadCounter, refusal_431, whole_head

from .serve_process import connect, raw_post, read_response, serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
PING = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
ACCEPT = ("Accept", "application/json, text/event-stream")
TYPE = ("Content-Type", "application/json")


def test_oversized_and_overcounted_headers_get_431_and_ordinary_ones_pass() -> None:
    with serve() as server:
        big = raw_post(server.port, PING, [ACCEPT, TYPE, ("Authorization", "Bearer " + "a" * 70_000)])
        assert big.status == 431
        assert big.json()["error"]["code"] == -32600 and "65536 bytes" in big.json()["error"]["message"]
        many = raw_post(server.port, PING, [ACCEPT, TYPE, *((f"X-F{i}", "1") for i in range(120))])
        assert many.status == 431 and "fields" in many.json()["error"]["message"]
        fine = raw_post(server.port, PING, [ACCEPT, TYPE, ("X-Big", "a" * 8000),
                                            *((f"X-F{i}", "1") for i in range(40))])
        assert fine.status == 200 and fine.json()["result"] == {}
        # A large body in the same packet as small headers is not mistaken for a header section.
        padded = orjson.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"_meta": {"x": "p" * 200_000}}})
        assert raw_post(server.port, padded, [ACCEPT, TYPE]).status != 431
        assert "Traceback" not in server.log()


def test_the_bounds_are_flags() -> None:
    with serve("--max-header-bytes", "2048", "--max-header-fields", "30") as server:
        assert raw_post(server.port, PING, [ACCEPT, TYPE, ("X-Big", "a" * 3000)]).status == 431
        assert raw_post(server.port, PING, [ACCEPT, TYPE, *((f"X-F{i}", "1") for i in range(40))]).status == 431
        assert raw_post(server.port, PING, [ACCEPT, TYPE, ("X-Big", "a" * 1000)]).status == 200


def test_keep_alive_requests_each_get_their_own_count() -> None:
    with serve() as server, connect(server.port) as sock:
        for _ in range(3):
            head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Length: {len(PING)}\r\n"
                    "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                    + "".join(f"X-F{i}: {'v' * 500}\r\n" for i in range(60)) + "\r\n")
            sock.sendall(head.encode() + PING)
            assert read_response(sock).status == 200


def test_the_counter_bounds_bytes_and_fields_across_chunks() -> None:
    counter = HeadCounter(max_bytes=100, max_fields=3)
    assert counter.feed(b"GET / HTTP/1.1\r\nA: 1\r\n") is None
    assert counter.feed(b"B: 2\r\n\r\n" + b"x" * 1000) is None  # the body after the blank line is not counted
    assert "bytes" in (HeadCounter(max_bytes=100).feed(b"GET / HTTP/1.1\r\nA: " + b"1" * 100) or "")
    fields = HeadCounter(max_fields=3)
    assert fields.feed(b"GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n") is not None
    assert refusal_431("why").startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")


def test_a_whole_head_in_the_first_read_is_judged_without_a_counter() -> None:
    head = b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}"
    assert whole_head(head, 1024, 10) == (True, None)
    assert whole_head(head, 1024, 1) == (True, "too many request header fields: the limit is 1")
    assert whole_head(head[:20], 1024, 10) == (False, None)  # the rest is to come: a HeadCounter follows it
    assert whole_head(head, 30, 10) == (False, None)  # past the byte bound: the counter refuses it
    assert whole_head(b"POST / HTTP/1.1\n\nX: y\r\n\r\n", 1024, 10) == (False, None)  # bare LF ends it earlier
