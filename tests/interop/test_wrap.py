"""The official Python SDK over stdio through `mrtr-studio wrap`: the flows complete, the trace file
holds one operation per flow with its rounds, and a running studio's feed receives them live."""

import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from mrtr_studio.proxy.local_feed import FeedServer
from mrtr_studio.trace import TraceStore, files
from tests.interop.test_sdk_client_http import elicit, roots, sample, text_of

pytestmark = [pytest.mark.slow, pytest.mark.anyio, pytest.mark.timeout(90)]
ROOT = Path(__file__).resolve().parents[2]
SDK_SERVER = Path(__file__).with_name("sdk_server.py")


def wrapped(trace: Path, home: Path, mode: str) -> Client:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MRTR_STUDIO_HOME": str(home)}
    params = StdioServerParameters(command=sys.executable, env=env,
                                   args=["-m", "mrtr_studio", "wrap", "--trace", str(trace), "--",
                                         sys.executable, str(SDK_SERVER), "stdio"])
    return Client(params, mode=mode, elicitation_callback=elicit, sampling_callback=sample,  # type: ignore[arg-type]
                  list_roots_callback=roots, cache=None)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_sdk_client_through_wrap_is_recorded_and_streamed_live(tmp_path: Path, mode: str) -> None:
    studio_store = TraceStore()
    feed = FeedServer(studio_store, tmp_path / "home")
    await feed.start()
    token = tmp_path / "home" / "feed.token"
    assert (token.stat().st_mode & 0o777, (tmp_path / "home").stat().st_mode & 0o777) == (0o600, 0o700)
    try:
        async with wrapped(tmp_path / "wrap.mrtr.json", tmp_path / "home", mode) as client:
            deleted = await client.call_tool("sdk_delete", {"path": "/srv/a"})
            summary = await client.call_tool("sdk_summarize_roots", {"text": "hello"})
    finally:
        await feed.stop()
    assert text_of(deleted) == "deleted /srv/a" and "roots: file:///work/a" in text_of(summary)
    everything, messages = files.open_trace(tmp_path / "wrap.mrtr.json")
    sessions = [op for op in everything if op.method == "session"]
    operations = [op for op in everything if op.method != "session"]
    assert len(sessions) == 1  # the handshake is recorded too, in the session's operation
    handshake = [m for m in messages if m.operation_id == sessions[0].id]
    assert [m.method for m in handshake[:3]] == ["initialize", None, "notifications/initialized"] \
        if mode == "legacy" else handshake and all(m.kind != "invalid" for m in handshake)
    flows = [(op.target, op.rounds, op.outcome) for op in operations]
    rounds = 1 if mode == "legacy" else 2  # legacy asks with server-initiated requests inside round 1
    assert flows == [("sdk_delete", rounds, "complete"), ("sdk_summarize_roots", rounds, "complete")]
    kinds = [m.kind for m in messages if m.operation_id == operations[0].id]
    expected = ["request", "server_request", "client_response", "complete"] if mode == "legacy" else \
        ["request", "input_required", "request", "complete"]
    assert kinds == expected
    assert [(f.rule, f.message) for m in messages for f in m.findings if f.severity == "error"] == []
    assert feed.sessions == 1 and feed.refused == 0
    live = [(op.target, op.rounds, op.outcome, op.label) for op in studio_store.operations if op.method != "session"]
    assert live == [(t, r, o, "wrapped session 1") for t, r, o in flows]


async def test_a_wrapper_without_the_token_is_refused(tmp_path: Path) -> None:
    import asyncio

    store = TraceStore()
    feed = FeedServer(store, tmp_path / "home")
    path = await feed.start()
    try:
        reader, writer = await asyncio.open_unix_connection(str(path))
        writer.write(b'{"token": "guess", "command": "x"}\n{"d":"c","x":1,"m":{"jsonrpc":"2.0","id":1,'
                     b'"method":"tools/call","params":{"name":"t"}}}\n')
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 10) == b""  # closed without a word
        writer.close()
    finally:
        await feed.stop()
    assert (feed.refused, feed.sessions, store.operations) == (1, 0, [])
