"""Serving an McpServer on JSON lines: answers per line, a line over the bound is refused without being
held, text that is not JSON is a parse error, and end of input ends the loop after the answers."""

import asyncio
import io
import json

import pytest

from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.transport.stdio_server import serve_stdio

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}


@pytest.mark.anyio
async def test_lines_are_answered_within_the_bound() -> None:
    reader = asyncio.StreamReader(limit=401)
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "delete_file", "arguments": {"path": "/a"}, "_meta": META}}
    reader.feed_data(b'{"x": "' + b"y" * 5000 + b'"}\n' + b"{not json\n" + json.dumps(call).encode() + b"\n")
    reader.feed_eof()
    out = io.BytesIO()
    await asyncio.wait_for(serve_stdio(build_demo_server(), reader=reader, output=out, max_line_bytes=400), 10)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a.get("error", {}).get("code") for a in answers[:2]] == [-32600, -32700]
    assert "a line over 400 bytes" in answers[0]["error"]["message"]
    assert answers[2]["id"] == 7 and answers[2]["result"]["resultType"] == "input_required"
