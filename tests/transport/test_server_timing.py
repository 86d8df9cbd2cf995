"""The server's own time travels as W3C Server-Timing (`mcp;dur=MS`) on every JSON answer of the HTTP
server, and the client records it as `server_ms` beside its round trip, so the waterfall can tell the
network's time from the server's."""

import asyncio

import pytest

from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.transport.base import Tap
from mrtr_studio.transport.http_client import HttpClientTransport
from mrtr_studio.transport.http_host import ServerThread
from mrtr_studio.transport.server_timing import server_timing_ms

CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "delete_file", "arguments": {"path": "/a"},
                   "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}}


@pytest.mark.parametrize(("header", "expected"), [
    ("mcp;dur=1.25", 1.25), ('db;desc="x";dur="3"', 3.0), ("mcp", None), ("mcp;dur=abc", None),
    ("mcp;dur=-1", None), (None, None), ("x;dur=1" + "0" * 2000, None), ("a;dur=2, b;dur=9", 2.0)])
def test_the_first_metric_duration_is_read(header: str | None, expected: float | None) -> None:
    assert server_timing_ms(header) == expected


def test_serve_says_its_time_and_the_client_records_it() -> None:
    tap = Tap()
    events = []
    tap.listen(events.append)
    with ServerThread(build_demo_server()) as served:
        async def go() -> dict:
            client = HttpClientTransport(served.url, tap=tap)
            try:
                reply = await client.send(CALL)
                assert reply is not None
                return reply
            finally:
                await client.close()

        reply = asyncio.run(go())
    assert reply["result"]["resultType"] == "input_required"
    answer = events[-1].meta
    assert 0 <= answer["server_ms"] <= answer["duration_ms"]
