"""What `serve` bounds: legacy sessions (a cap answered 503, idle expiry with no request needed), slow
and idle connections (header and body deadlines, a connection limit) and the wait for a legacy
client's answer. Real `serve` processes on loopback, with small limits set from the command line."""

import asyncio
import json
import time
from typing import Any

import httpx
import pytest

from mrtr_studio.cli.flags.limits import LEGACY_REQUEST_TIMEOUT, LIMIT_DEFAULTS
from mrtr_studio.engine.options import MrtrOptions
from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.transport.http_server import HttpServerConfig
from mrtr_studio.transport.legacy_sessions import LegacySessions

from .serve_process import closed_by_peer, connect, raw_post, read_response, serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
                   "clientInfo": {"name": "t", "version": "1"}}}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def wait_until(predicate: Any, limit: float = 20.0) -> bool:
    """Poll (no timing is asserted: the deadline only stops a test that would otherwise hang)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


# --- legacy sessions ---------------------------------------------------------------------------------

def test_sessions_past_the_cap_get_503_and_idle_ones_are_reaped_without_a_request() -> None:
    with serve("--max-sessions", "2", "--session-idle", "1") as server, httpx.Client(timeout=10) as http:
        first, second = (http.post(server.url, json=INIT).headers["mcp-session-id"] for _ in range(2))
        refused = http.post(server.url, json=INIT)
        assert refused.status_code == 503
        assert refused.json()["error"]["code"] == -32000
        assert int(refused.headers["retry-after"]) >= 1
        # Nothing is sent for a while; the expiry timer alone must end both sessions, then a new one fits.
        time.sleep(1.5)
        for session in (first, second):
            assert http.post(server.url, json=LIST, headers={"Mcp-Session-Id": session}).status_code == 404
        assert http.post(server.url, json=INIT).status_code == 200
        assert "Traceback" not in server.log()


def test_a_used_session_stays_open() -> None:
    with serve("--session-idle", "1.5") as server, httpx.Client(timeout=10) as http:
        session = http.post(server.url, json=INIT).headers["mcp-session-id"]
        for _ in range(4):
            time.sleep(0.5)
            assert http.post(server.url, json=LIST, headers={"Mcp-Session-Id": session}).status_code == 200


def test_expiry_runs_on_a_timer_and_leaves_no_task() -> None:
    """The table on its own: a fake clock, a real loop; the timer reaps, `stop` cancels it, no task."""
    now = [0.0]

    async def scenario() -> None:
        server = build_demo_server()
        table = LegacySessions(server, idle_seconds=0.2, max_sessions=3, clock=lambda: now[0])
        tasks_before = len(asyncio.all_tasks())
        sessions = [table.open("alice") for _ in range(3)]
        assert table.full()
        assert len(asyncio.all_tasks()) == tasks_before
        with table.using(sessions[0].id):
            now[0] = 1.0
            await asyncio.sleep(0.4)  # the timer fires: the two idle sessions go, the busy one stays
            assert [s.id in server.sessions for s in sessions] == [True, False, False]
        assert table.find(sessions[0].id, "bob") is None  # another principal: as if it were not there
        assert table.find(sessions[0].id, "alice") is sessions[0]
        now[0] = 2.0
        await asyncio.sleep(0.4)
        assert len(table) == 0 and not server.sessions
        table.open("alice")
        table.stop()
        now[0] = 10.0
        await asyncio.sleep(0.3)
        assert len(table) == 1  # stopped: nothing fires any more

    asyncio.run(asyncio.wait_for(scenario(), 20))


# --- connections ---------------------------------------------------------------------------------------

def test_slow_and_idle_connections_are_closed() -> None:
    with serve("--header-timeout", "0.5", "--keep-alive-timeout", "0.5") as server:
        silent = connect(server.port)
        slow = connect(server.port)
        slow.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        kept = connect(server.port)
        kept.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (server.port, len(json.dumps(LIST)), json.dumps(LIST).encode()))
        assert read_response(kept).status in (200, 400)
        for sock in (silent, slow, kept):
            with sock:
                assert closed_by_peer(sock)
        # A request that starts again after a response gets the same header deadline.
        again = connect(server.port)
        with again:
            again.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 2\r\n\r\n{}" % server.port)
            assert read_response(again).status == 400
            again.sendall(b"POST /mcp HTTP/1.1\r\n")
            assert closed_by_peer(again)
        assert raw_post(server.port, json.dumps(LIST).encode(), [("Content-Type", "application/json")]).status == 400


def test_a_body_that_does_not_arrive_in_time_is_408() -> None:
    with serve("--body-timeout", "0.5") as server, connect(server.port) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"jsonrpc\"" % server.port)
        response = read_response(sock)
        assert response.status == 408
        assert response.json()["error"]["code"] == -32600
        assert closed_by_peer(sock)


def test_slow_connections_make_room_for_a_real_client() -> None:
    with serve("--max-connections", "3") as server:
        slow = [connect(server.port, timeout=3) for _ in range(10)]
        for sock in slow:
            sock.sendall(b"POST /mcp HTTP/1.1\r\n")
        try:
            assert httpx.post(server.url, json=LIST, timeout=10).status_code == 400  # served, not refused
            assert all(closed_by_peer(sock) for sock in slow[:7])  # the oldest waiting ones made room
        finally:
            for sock in slow:
                sock.close()


def test_a_low_file_limit_does_not_lock_real_clients_out() -> None:
    """200 slow connections against a process allowed 128 files: the bound stays under the limit."""
    with serve(file_limit=128) as server:
        slow = [connect(server.port, timeout=3) for _ in range(200)]
        try:
            for sock in slow:
                sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            assert httpx.post(server.url, json=LIST, timeout=10).status_code == 400
        finally:
            for sock in slow:
                sock.close()
        assert "Traceback" not in server.log()


def test_busy_connections_past_the_limit_get_503() -> None:
    with serve("--max-connections", "2", "--legacy-request-timeout", "5") as server, \
            httpx.Client(timeout=20) as first, httpx.Client(timeout=20) as second:
        call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "count_roots", "arguments": {}}}
        streams, lines = [], []  # both kept alive: a dropped line iterator closes its connection
        for http in (first, second):
            session = http.post(server.url, json=INIT).headers["mcp-session-id"]
            stream = http.stream("POST", server.url, json=call, headers={"Mcp-Session-Id": session})
            streams.append(stream)
            lines.append(stream.__enter__().iter_lines())
            assert next(lines[-1]).startswith("event:")  # roots/list: the call waits on its answer
        try:
            refused = httpx.post(server.url, json=LIST, timeout=10)
            assert refused.status_code == 503
        finally:
            for stream in streams:
                stream.__exit__(None, None, None)


# --- the legacy server-initiated request wait ----------------------------------------------------------

def test_the_legacy_request_timeout_is_set_from_serve() -> None:
    with serve("--legacy-request-timeout", "0.5") as server, httpx.Client(timeout=20) as http:
        session = http.post(server.url, json=INIT).headers["mcp-session-id"]
        call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "count_roots", "arguments": {}}}
        messages = []
        with http.stream("POST", server.url, json=call, headers={"Mcp-Session-Id": session}) as response:
            for line in response.iter_lines():
                if line.startswith("data:"):
                    messages.append(json.loads(line[5:]))  # roots/list, unanswered, then the final response
        assert messages[0]["method"] == "roots/list"
        final = messages[-1]
        assert final["id"] == 3
        text = json.dumps(final)
        assert "did not answer roots/list in time" in text, text


# --- the flags ---------------------------------------------------------------------------------------

def test_flag_defaults_are_the_servers_own() -> None:
    config = HttpServerConfig()
    assert {name: getattr(config, name) for name in LIMIT_DEFAULTS} == LIMIT_DEFAULTS
    assert MrtrOptions().legacy_request_timeout == LEGACY_REQUEST_TIMEOUT


@pytest.mark.parametrize("flag", ["--max-sessions", "--session-idle", "--header-timeout", "--body-timeout",
                                  "--keep-alive-timeout", "--max-connections", "--legacy-request-timeout"])
@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_non_positive_limits_are_refused(flag: str, value: str) -> None:
    from mrtr_studio.cli.parser import build_parser

    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["serve", flag, value])
    assert exited.value.code == 2


def test_config_refuses_non_positive_limits() -> None:
    with pytest.raises(ValueError, match="session_idle_seconds"):
        HttpServerConfig(session_idle_seconds=0)
    with pytest.raises(ValueError, match="max_sessions"):
        HttpServerConfig(max_sessions=0)


def test_keep_alive_closes_an_idle_connection_on_time_and_a_busy_one_never() -> None:
    """An idle keep-alive connection closes once its timeout passes (not up to a second later, as
    a sweep paced by the far longer header deadline would close it), and a connection that sends
    its next request within the timeout stays open."""
    request = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n%s")
    body = json.dumps(LIST).encode()
    with serve("--header-timeout", "20", "--keep-alive-timeout", "1") as server:
        with connect(server.port, timeout=6) as idle:
            time.sleep(0.1)  # the timeout then ends just after a second-paced sweep would pass
            idle.sendall(request % (server.port, len(body), body))
            assert read_response(idle).status in (200, 400)
            answered = time.monotonic()
            assert closed_by_peer(idle)
            assert 0.9 <= time.monotonic() - answered < 1.6  # a second-paced sweep: about 1.9 s
        with connect(server.port, timeout=6) as busy:
            for _ in range(5):  # 2.4 s in all, 0.6 s between requests: each resets the timeout
                busy.sendall(request % (server.port, len(body), body))
                assert read_response(busy).status in (200, 400)
                time.sleep(0.6)
