"""StdioClientTransport: the demo engine and the official SDK over pipes, and servers that misbehave."""

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.transport.base import BUSY, Tap, TransportError, TransportLimits, WireEvent
from mrtr_studio.transport.stdio_client import StdioClientTransport

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
HERE = Path(__file__).parent
FAKE = [sys.executable, str(HERE / "stdio_fake_server.py")]
SDK = [sys.executable, str(HERE.parent / "interop" / "sdk_server.py"), "stdio"]
CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "count_roots", "arguments": {}}}
RESPOND = R.compose(elicitation=R.from_callback(lambda k, r, n: {"action": "accept", "content": {"confirm": True}}),
                    roots=R.RootsList.of(["file:///p"]), sampling=R.echo)


def kinds(session: ClientSession, op_id: str) -> list[tuple[int, str]]:
    return [(m.round, m.kind) for m in session.store.messages_of(op_id)]


@pytest.mark.parametrize("era", ["modern", "legacy", "auto"])
async def test_demo_engine_over_stdio(era: str) -> None:
    session = ClientSession(StdioClientTransport([*FAKE, "engine"]), ClientSettings(era=era), RESPOND,
                            server_label="stdio")
    try:
        run = await session.run("tools/call", "count_roots", {})
    finally:
        await session.close()
    assert run.drive.outcome == "complete", run.drive.problem
    assert run.drive.result is not None
    assert run.drive.result["content"][0]["text"] == "1 root(s): file:///p"
    if era == "legacy":
        assert kinds(session, run.operation.id) == [(1, "request"), (1, "server_request"),
                                                   (1, "client_response"), (1, "complete")]
    else:
        assert kinds(session, run.operation.id) == [(1, "request"), (1, "input_required"),
                                                   (2, "request"), (2, "complete")]


@pytest.mark.parametrize("era", ["modern", "legacy"])
async def test_official_sdk_server_over_stdio(era: str) -> None:
    session = ClientSession(StdioClientTransport(SDK), ClientSettings(era=era), RESPOND)
    try:
        run = await session.run("tools/call", "sdk_delete", {"path": "/a"})
    finally:
        await session.close()
    assert run.drive.outcome == "complete", run.drive.problem
    assert run.drive.result is not None and run.drive.result["content"][0]["text"] == "deleted /a"


async def send_to(mode: str, timeout: float = 30.0) -> tuple[str, StdioClientTransport]:
    transport = StdioClientTransport([*FAKE, mode], timeout=timeout)
    try:
        with pytest.raises(TransportError) as caught:
            await transport.send(CALL)
        return str(caught.value), transport
    finally:
        await transport.close()


async def test_garbage_line_fails_the_request_clearly() -> None:
    message, _ = await send_to("garbage")
    assert message == "stdio: the server wrote a line that is not JSON: 'this is not json'"


async def test_server_exit_names_code_and_stderr() -> None:
    message, transport = await send_to("exit")
    assert message == "stdio: the server exited (code 3) before answering; stderr: fatal: cannot open database"
    assert transport.returncode == 3


async def test_silent_server_times_out_and_is_stopped() -> None:
    message, transport = await send_to("silent", timeout=0.3)
    assert message == "stdio: no response to id 1 within 0.3 s"
    assert transport.returncode is not None


async def test_missing_command_is_a_transport_error() -> None:
    transport = StdioClientTransport(["/nonexistent/mcp-server"])
    with pytest.raises(TransportError, match=r"^stdio: cannot start '/nonexistent/mcp-server': "):
        await transport.send(CALL)


async def test_session_records_a_dead_server_as_a_transport_error() -> None:
    session = ClientSession(StdioClientTransport([*FAKE, "exit"]), ClientSettings(era="modern"), RESPOND)
    try:
        run = await session.run("tools/call", "x", {})
    finally:
        await session.close()
    assert run.drive.outcome == "transport_error"
    assert run.operation.outcome == "transport_error"
    expected: Any = ("TransportError: stdio: the server exited (code 3) before answering; "
                     "stderr: fatal: cannot open database")
    assert run.operation.problem == expected


SECOND = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x", "arguments": {}}}


@pytest.mark.parametrize(("mode", "message", "error"), [
    ("bad-id", "stdio: the server sent a response whose id [1] is not a string or a number, so it answers no request",
     "invalid id"),
    ("long-line", "stdio: the server wrote a line longer than 100000 bytes (max_body_bytes)", "line too long"),
    ("error-no-id", "stdio: the server answered with an error without id: -32700 Parse error", None),
])
async def test_a_spoiled_answer_fails_at_once_and_the_reader_goes_on(mode: str, message: str,
                                                                    error: str | None) -> None:
    events: list[WireEvent] = []
    tap = Tap()
    tap.listen(events.append)
    transport = StdioClientTransport([*FAKE, mode], tap=tap,
                                     limits=TransportLimits(max_body_bytes=100_000, idle_timeout=20))
    try:
        with pytest.raises(TransportError) as caught:
            await transport.send(CALL)
        assert str(caught.value) == message
        assert await transport.send(SECOND) == {"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": "fine"}]}}
    finally:
        await transport.close()
    assert next(e.meta.get("error") for e in events if e.direction == "server->client") == error


async def test_a_flood_of_server_requests_is_answered_a_few_at_a_time_and_the_rest_refused() -> None:
    events: list[WireEvent] = []
    tap = Tap()
    tap.listen(events.append)
    running = most = 0
    never = asyncio.Event()

    async def slow(request: dict[str, Any]) -> dict[str, Any]:
        nonlocal running, most
        running += 1
        most = max(most, running)
        try:
            await never.wait()
            return {}
        finally:
            running -= 1

    limits = TransportLimits(idle_timeout=20, request_timeout=2, max_concurrent_answers=3, max_waiting_answers=5)
    transport = StdioClientTransport([*FAKE, "flood"], tap=tap, limits=limits)
    transport.on_server_request(slow)
    try:
        with pytest.raises(TransportError) as caught:
            await transport.send(CALL)
    finally:
        await transport.close()
    assert str(caught.value) == "stdio: no response to id 1 within the overall deadline of 2 s"
    assert most == 3
    refused = [e.message for e in events if e.direction == "client->server" and e.meta.get("server_initiated")]
    assert len(refused) > 100
    assert all(r["error"] == {"code": -32603, "message": BUSY} for r in refused)


async def test_a_slow_answer_to_a_legacy_server_request_is_waited_for() -> None:
    """The idle window pauses while the client answers (a person at a form), then restarts."""

    async def slow_roots(key: str, request: dict[str, Any], round_number: int) -> dict[str, Any]:
        await asyncio.sleep(1.0)
        return {"roots": [{"uri": "file:///p"}]}

    transport = StdioClientTransport([*FAKE, "engine"])
    session = ClientSession(transport, ClientSettings(era="legacy"), R.compose(roots=slow_roots))
    try:
        await session.ensure_era()  # the server process starts at its own pace
        transport.timeout = 0.3
        run = await session.run("tools/call", "count_roots", {})
    finally:
        await session.close()
    assert run.drive.outcome == "complete", run.drive.problem

