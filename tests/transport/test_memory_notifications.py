"""A server notification on the in-memory transport reaches the tap and is not answered like a request."""

import asyncio

import pytest

from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.transport.memory import MemoryTransport

pytestmark = pytest.mark.anyio


async def test_resource_updated_reaches_the_tap_unanswered() -> None:
    transport = MemoryTransport(build_demo_server())
    seen = []
    transport.tap.listen(seen.append)
    await transport.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    await transport.send({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
                          "params": {"uri": "test://watched-resource"}})
    assert await transport.server.notify_resource_updated("test://watched-resource") == 1
    await asyncio.sleep(0)
    pushed = [e.message for e in seen if e.meta.get("server_initiated")]
    assert pushed == [{"jsonrpc": "2.0", "method": "notifications/resources/updated",
                       "params": {"uri": "test://watched-resource"}}]
    assert not transport._tasks  # nothing was sent back as if it were a request
    await transport.close()
