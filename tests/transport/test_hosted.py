"""Hosted: the one start/stop of an app on the running loop, for the MCP server (Serving) and the proxy."""

import asyncio
import socket

import httpx
import pytest

from mrtr_studio.proxy.hosting import RunningProxy
from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.transport.http_host import Serving

INIT = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_server_and_proxy_start_answer_and_stop() -> None:
    async def main() -> None:
        serving = Serving(build_demo_server())
        url = await serving.start()
        proxy = RunningProxy(url, lambda event: None)
        proxied = await proxy.start()
        assert proxied.startswith("http://127.0.0.1:") and proxied != url
        async with httpx.AsyncClient(timeout=10) as client:
            for target in (url, proxied):
                answer = await client.post(target, json=INIT, headers={"accept": "application/json, text/event-stream"})
                assert answer.status_code == 200, answer.text
                assert answer.json()["id"] == 1
        ports = [httpx.URL(u).port for u in (url, proxied)]
        await proxy.stop()
        await serving.stop()
        assert all(port is not None and port_is_free(port) for port in ports)
    asyncio.run(main())


def test_a_taken_port_raises_and_leaves_nothing_running() -> None:
    async def main() -> None:
        with socket.socket() as busy:
            busy.bind(("127.0.0.1", 0))
            busy.listen()
            serving = Serving(build_demo_server())
            with pytest.raises(OSError):
                await serving.start(busy.getsockname()[1])
            assert serving.url == ""
            await serving.stop()  # stopping what never started is harmless
    asyncio.run(main())
