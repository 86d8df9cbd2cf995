"""The keep-alive timeout of `serve`'s connections: one timer per idle period, timed from the moment the
connection went idle (`http_connections._IdleTimer`), on a fake loop whose clock the test moves; and
on a real server, one timer for a connection that keeps sending requests."""

import asyncio
from collections.abc import Callable
from typing import Any

from mrtr_studio.engine import McpServer
from mrtr_studio.transport.http_connections import _IdleTimer
from mrtr_studio.transport.http_host import serve_in_background

TIMEOUT = 5.0


class FakeLoop:
    def __init__(self) -> None:
        self.now = 100.0
        self.timers: list[FakeTimer] = []

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], None]) -> "FakeTimer":
        timer = FakeTimer(self.now + delay, callback)
        self.timers.append(timer)
        return timer

    def fire(self, at: float) -> None:
        """Move the clock to `at`, running the timers due by then in order (as the loop would)."""
        while True:
            due = [t for t in self.timers if not t.cancelled and not t.ran and t.when <= at]
            if not due:
                break
            timer = min(due, key=lambda t: t.when)
            self.now = timer.when
            timer.ran = True
            timer.callback()
        self.now = at

    def armed(self) -> list["FakeTimer"]:
        return [t for t in self.timers if not t.cancelled and not t.ran]


class FakeTimer:
    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False
        self.ran = False

    def cancel(self) -> None:
        self.cancelled = True


class Transport:
    def __init__(self) -> None:
        self.closed = False

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


class Counter:
    total_requests = 0


class Flow:
    def __init__(self) -> None:
        self.resumed = 0

    def resume_reading(self) -> None:
        self.resumed += 1


class Base:
    """What `_IdleTimer` finds below it in uvicorn's protocol."""

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = exc


class Connection(_IdleTimer, Base):
    timeout_keep_alive = TIMEOUT

    def __init__(self) -> None:
        self.loop = FakeLoop()
        self.transport = Transport()
        self.server_state = Counter()
        self.flow = Flow()
        self.pipeline: list[tuple[Any, Any]] = []
        self.started: list[Any] = []

    def _unset_keepalive_if_required(self) -> None:
        pass

    def _start_asgi_task(self, cycle: Any, app: Any) -> None:
        self.started.append(cycle)

    def timeout_keep_alive_handler(self) -> None:  # uvicorn's: close unless closing already
        if not self.transport.is_closing():
            self.transport.close()

    def request_arrives(self) -> None:  # what the connection's data_received does first
        self._idle_since = None


def test_an_idle_connection_closes_when_the_timeout_has_passed_since_its_last_response() -> None:
    connection = Connection()
    connection.on_response_complete()
    assert [t.when for t in connection.loop.armed()] == [100.0 + TIMEOUT]
    assert connection.server_state.total_requests == 1 and connection.flow.resumed == 1
    connection.loop.fire(100.0 + TIMEOUT - 0.01)
    assert not connection.transport.closed
    connection.loop.fire(100.0 + TIMEOUT)
    assert connection.transport.closed


def test_responses_within_the_timeout_arm_no_new_timer_and_the_last_one_counts() -> None:
    connection = Connection()
    connection.on_response_complete()  # idle from 100
    first = connection.loop.armed()
    for moment in (101.0, 102.5, 104.0):  # three more requests, each answered within the timeout
        connection.loop.fire(moment)
        connection.request_arrives()
        connection.on_response_complete()
    assert connection.loop.timers == first  # still the one timer
    connection.loop.fire(100.0 + TIMEOUT)  # it fires: idle only since 104, so it waits for the rest
    assert not connection.transport.closed
    assert [t.when for t in connection.loop.armed()] == [104.0 + TIMEOUT]
    connection.loop.fire(104.0 + TIMEOUT)
    assert connection.transport.closed


def test_a_connection_serving_a_request_when_the_timer_fires_stays_open_and_is_timed_from_its_answer() -> None:
    connection = Connection()
    connection.on_response_complete()
    connection.loop.fire(103.0)
    connection.request_arrives()  # a slow request: still running when the timer fires
    connection.loop.fire(100.0 + TIMEOUT + 10)
    assert not connection.transport.closed and connection.loop.armed() == []
    connection.on_response_complete()  # answered at 115: a new idle period, a new timer
    assert [t.when for t in connection.loop.armed()] == [115.0 + TIMEOUT]
    connection.loop.fire(115.0 + TIMEOUT)
    assert connection.transport.closed


def test_a_pipelined_request_starts_instead_of_an_idle_period() -> None:
    connection = Connection()
    connection.pipeline.append(("cycle", "app"))
    connection.on_response_complete()
    assert connection.started == ["cycle"] and connection.loop.armed() == []
    assert connection._idle_since is None


def test_a_closing_connection_is_counted_and_left_alone() -> None:
    connection = Connection()
    connection.transport.close()
    connection.on_response_complete()
    assert connection.server_state.total_requests == 1
    assert connection.loop.armed() == [] and connection.flow.resumed == 0


def test_a_lost_connection_cancels_its_timer() -> None:
    connection = Connection()
    connection.on_response_complete()
    timer = connection.loop.armed()[0]
    connection.connection_lost(None)
    assert timer.cancelled and connection.lost is None


def test_a_connection_sending_request_after_request_holds_one_timer_on_a_real_server() -> None:
    """Through uvicorn and the direct lane: 30 answered requests on one keep-alive connection arm the
    keep-alive timer once (uvicorn's own protocol arms one a response)."""
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'

    async def main() -> int:
        loop = asyncio.get_running_loop()
        armed = 0
        real_call_later = loop.call_later

        def counting(delay: float, callback: Any, *args: Any) -> asyncio.TimerHandle:
            nonlocal armed
            if getattr(callback, "__name__", "") in ("_idle_check", "timeout_keep_alive_handler"):
                armed += 1
            return real_call_later(delay, callback, *args)

        loop.call_later = counting  # type: ignore[method-assign,assignment]
        async with serve_in_background(McpServer()) as url:
            port = int(url.split(":")[2].split("/")[0])
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            for _ in range(30):
                writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n%s" % (port, len(body), body))
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                await reader.readexactly(length)
            writer.close()
            await writer.wait_closed()
        return armed

    assert asyncio.run(main()) == 1
