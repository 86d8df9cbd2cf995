"""The studio starts and stops recording proxies and hears wrapped stdio sessions; each is its own source."""

import asyncio
import os
import sys
from pathlib import Path

import pytest

from mrtr_studio.client.auto_answers import auto_respond
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.studio.controller import Studio
from mrtr_studio.studio.operations import OperationsIndex
from mrtr_studio.transport.http_client import HttpClientTransport

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
ROOT = Path(__file__).resolve().parents[2]
BAD_SERVER = Path(__file__).parents[1] / "cli" / "check_bad_server.py"


async def test_a_proxy_started_by_the_studio_records_into_its_trace(tmp_path: Path) -> None:
    upstream = Studio()
    studio = Studio()
    index = OperationsIndex()
    studio.store.subscribe(index.apply)
    served = await upstream.start_serving()
    try:
        url = await studio.watching.start_proxy(served)
        client = ClientSession(HttpClientTransport(url), ClientSettings(era="modern"), auto_respond)
        try:
            done = await client.call_tool("delete_file", {"path": "/a"})
        finally:
            await client.close()
        await studio.watching.stop_proxy(url)
        assert studio.watching.proxies == {}
    finally:
        await studio.close()
        await upstream.close()
    assert done.drive.outcome == "complete"
    (op,) = studio.store.operations
    assert (op.target, op.rounds, op.outcome) == ("delete_file", 2, "complete")
    assert index.rows[0].source == f"proxy {url} -> {served}"


async def test_wrapped_sessions_arrive_live_each_as_its_own_source(tmp_path: Path) -> None:
    studio = Studio()
    studio.watching.feed_home = tmp_path / "home"
    index = OperationsIndex()
    studio.store.subscribe(index.apply)
    await studio.watching.start_feed()
    line = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm_tool","arguments":{},'
            b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            b'"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MRTR_STUDIO_HOME": str(tmp_path / "home")}
    try:
        for _ in range(2):
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "mrtr_studio", "wrap", "--trace", str(tmp_path / "w.mrtr.json"), "--",
                sys.executable, str(BAD_SERVER), "forget-caps", stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, env=env)
            out, _ = await proc.communicate(line)
            assert b'"input_required"' in out
        for _ in range(200):  # the feed is live: wait for the second session's answer to be read
            if len([m for m in studio.store.messages if m.kind == "input_required"]) == 2:
                break
            await asyncio.sleep(0.05)
    finally:
        await studio.close()
    assert studio.watching.wrapped_sessions == ["wrapped session 1", "wrapped session 2"]
    assert [row.source.split(":")[0] for row in index.rows] == ["wrapped session 1", "wrapped session 2"]
    assert all(op.rounds == 1 for op in studio.store.operations)
