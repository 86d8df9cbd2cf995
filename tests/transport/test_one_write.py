"""Each answer leaves in one socket write (head and body together), through uvicorn's own checks: a
JSON answer is one write, a stream's head still goes at once (its first frame may be long in coming),
`connection: close` closes after the bytes are out, a failure before the body still becomes uvicorn's
500. And a header section that arrives whole in one read is bounded without being copied."""

import asyncio
import logging
from typing import Any

import pytest
from uvicorn.protocols.http.flow_control import FlowControl

from mrtr_studio.transport.header_limits import HeadCounter
from mrtr_studio.transport.one_write import OneWriteCycle, whole_answer


class Transport:
    """What uvicorn's cycle calls on a transport, recorded in order."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def write(self, data: bytes) -> None:
        self.events.append(bytes(data))

    def close(self) -> None:
        self.events.append("close")

    def is_closing(self) -> bool:
        return "close" in self.events

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


def cycle(transport: Transport, keep_alive: bool = True) -> OneWriteCycle:
    log = logging.getLogger("test")
    return OneWriteCycle(scope={"type": "http", "method": "POST", "path": "/mcp", "headers": []},  # type: ignore[typeddict-item]
                         transport=transport, flow=FlowControl(transport), logger=log,  # type: ignore[arg-type]
                         access_logger=log, access_log=False, default_headers=[], message_event=asyncio.Event(),
                         expect_100_continue=False, keep_alive=keep_alive, on_response=lambda: None)


START = {"type": "http.response.start", "status": 200,
         "headers": [(b"content-type", b"application/json"), (b"content-length", b"2")]}


def test_a_json_answer_is_one_write_with_head_and_body() -> None:
    transport = Transport()
    answer = cycle(transport)

    async def scenario() -> None:
        await answer.send(START)
        assert transport.events == []  # held until the body
        await answer.send({"type": "http.response.body", "body": b"{}"})

    asyncio.run(scenario())
    assert len(transport.events) == 1
    assert transport.events[0].startswith(b"HTTP/1.1 200 OK\r\n") and transport.events[0].endswith(b"\r\n\r\n{}")
    assert answer.response_complete


def test_closing_happens_after_the_one_write() -> None:
    transport = Transport()
    answer = cycle(transport, keep_alive=False)

    async def scenario() -> None:
        await answer.send(START)
        await answer.send({"type": "http.response.body", "body": b"{}"})

    asyncio.run(scenario())
    assert len(transport.events) == 2 and transport.events[1] == "close"
    assert b"connection: close\r\n" in transport.events[0]


def test_a_streams_head_goes_at_once_then_each_frame() -> None:
    transport = Transport()
    stream = cycle(transport)
    head = {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]}

    async def scenario() -> None:
        await stream.send(head)
        assert len(transport.events) == 1  # the client sees the stream start before any event is ready
        await stream.send({"type": "http.response.body", "body": b"data: 1\n\n", "more_body": True})
        await stream.send({"type": "http.response.body", "body": b"data: 2\n\n"})

    asyncio.run(scenario())
    first, second, end = transport.events[0], transport.events[1], transport.events[-1]
    assert b"transfer-encoding: chunked" in first and first.endswith(b"\r\n\r\n")
    assert b"data: 1" in second and b"data: 2" in end and end.endswith(b"0\r\n\r\n")


def test_a_second_start_replaces_the_held_head_and_bad_headers_are_still_refused() -> None:
    transport = Transport()
    failed = cycle(transport)
    error = {"type": "http.response.start", "status": 500, "headers": [(b"content-length", b"5")]}

    async def scenario() -> None:
        await failed.send(START)  # the app fails before its body: uvicorn then sends its own 500
        await failed.send(error)
        await failed.send({"type": "http.response.body", "body": b"error"})
        bad = cycle(Transport())
        await bad.send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-length", b"0"), (b"x", b"a\r\nb")]})
        with pytest.raises(RuntimeError, match="header value"):  # refused when the held head is written
            await bad.send({"type": "http.response.body", "body": b""})
        with pytest.raises(RuntimeError, match="header value"):  # a stream's head is refused at once
            await cycle(Transport()).send({"type": "http.response.start", "status": 200, "headers": [(b"x", b"\n")]})

    asyncio.run(scenario())
    assert len(transport.events) == 1 and transport.events[0].startswith(b"HTTP/1.1 500 ")


def test_a_whole_header_section_in_one_read_is_still_bounded() -> None:
    head = b"POST /mcp HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(5)) + b"\r\n"
    assert HeadCounter(max_fields=10).feed(head + b"{}") is None
    assert "fields" in (HeadCounter(max_fields=3).feed(head + b"{}") or "")
    assert "bytes" in (HeadCounter(max_bytes=20).feed(head) or "")
    assert "fields" in (HeadCounter(max_fields=3).feed(head.replace(b"\r\n", b"\n")) or "")  # bare LF lines


@pytest.mark.parametrize("status, headers, body, keep_alive", [
    (200, [(b"content-type", b"application/json"), (b"content-length", b"2")], b"{}", True),
    (202, [(b"Content-Length", b"0"), (b"mcp-session-id", b"ab12")], b"", False),
    (404, [(b"content-length", b"3"), (b"www-authenticate", b'Bearer error="x"')], b"abc", True),
    (200, [(b"content-type", b"text/plain")], b"no length: chunked", True),
    (204, [], b"", True),
    (200, [(b"content-length", b"2"), (b"connection", b"close")], b"{}", True),
])
def test_the_one_write_is_byte_for_byte_what_uvicorn_writes(status: int, headers: list[tuple[bytes, bytes]],
                                                                  body: bytes, keep_alive: bool) -> None:
    ours, theirs = Transport(), Transport()
    one, two = cycle(ours, keep_alive), cycle(theirs, keep_alive)
    two.__class__ = OneWriteCycle.__mro__[1]  # uvicorn's own cycle

    async def scenario(answer: Any) -> None:
        await answer.send({"type": "http.response.start", "status": status, "headers": headers})
        await answer.send({"type": "http.response.body", "body": body})

    asyncio.run(scenario(one))
    asyncio.run(scenario(two))
    written = [e for e in theirs.events if e != "close"]
    with_length = any(name.lower() == b"content-length" for name, _ in headers)
    # with a length, one write of what uvicorn writes in two; without (a stream), uvicorn's writes as they were
    assert [e for e in ours.events if e != "close"] == ([b"".join(written)] if with_length else written)
    assert ("close" in ours.events) == ("close" in theirs.events)
    assert one.response_complete and two.response_complete and one.keep_alive == two.keep_alive


def test_header_checks_hold_after_a_name_has_passed_once() -> None:
    """Names that passed uvicorn's check are remembered lowered; their values are still checked on
    every answer, and a name that failed is refused every time."""
    own = [(b"date", b"today")]
    for _ in range(2):
        good = whole_answer(200, own, [(b"X-Trace", b"abc"), (b"Content-Length", b"2")], b"{}", True)
        assert good == b"HTTP/1.1 200 OK\r\ndate: today\r\nx-trace: abc\r\ncontent-length: 2\r\n\r\n{}"
        assert whole_answer(200, own, [(b"X-Trace", b"a\r\nb"), (b"content-length", b"2")], b"{}", True) is None
        assert whole_answer(200, own, [(b"bad name", b"x"), (b"content-length", b"2")], b"{}", True) is None
        assert whole_answer(200, own, [(b"content-length", b"2 "), (b"x-trace", b"a")], b"{}", True) is None
        assert whole_answer(200, own, [(b"Connection", b"close"), (b"content-length", b"2")], b"{}", True) is None
