"""The studio over real transports: a stdio server process and `mrtr-studio serve` over HTTP."""

import asyncio
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mrtr_studio.studio.controller import Studio
from mrtr_studio.studio.server_entries import http_entry, stdio_entry

FAKE_STDIO = Path(__file__).resolve().parents[1] / "transport" / "stdio_fake_server.py"


def test_stdio_entry_connects_and_runs() -> None:
    async def body() -> None:
        studio = Studio()
        catalog = await studio.connect(stdio_entry(f"{sys.executable} {FAKE_STDIO} engine"))
        assert catalog is not None and "delete_file" in {t["name"] for t in catalog.tools}
        result = await studio.run("tools/call", "delete_file", {"path": "/x"})
        assert result is not None and result.drive.outcome == "complete"
        assert result.operation.server.endswith("engine")
        assert await studio.connect(stdio_entry("/nonexistent/command")) is None
        assert studio.last_error is not None and "cannot connect" in studio.last_error
        await studio.close()

    asyncio.run(asyncio.wait_for(body(), 30))


@pytest.fixture
def http_server() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "mrtr_studio", "serve", "--port", str(port), "--user",
                             "alice:alice-token", "--user", "bob:bob-token", "--explain-rejections"],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on" in line, line
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.slow
def test_http_identities_are_bearer_tokens(http_server: str) -> None:
    async def body() -> None:
        studio = Studio()
        assert await studio.connect(http_entry(http_server)) is not None
        studio.set_identity("alice")
        studio.tamper("identity:bob")
        result = await studio.run("tools/call", "delete_file", {"path": "/x"})
        assert result is not None and result.drive.error is not None
        assert result.drive.error["data"]["reason"] == "principal"
        again = await studio.run("tools/call", "delete_file", {"path": "/x"})
        assert again is not None and again.drive.outcome == "complete"
        await studio.close()

    asyncio.run(asyncio.wait_for(body(), 30))
