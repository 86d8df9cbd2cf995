"""The client mirrors x-mcp-header parameters into Mcp-Param-* headers and drops invalid tool definitions."""

import pytest

from mrtr_studio.client.auto_answers import auto_respond
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.transport.http_client import HttpClientTransport
from mrtr_studio.transport.http_host import serve_in_background

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


async def test_region_is_mirrored_and_the_flow_completes() -> None:
    async with serve_in_background(build_demo_server()) as url:
        transport = HttpClientTransport(url)
        session = ClientSession(transport, ClientSettings(era="modern"), auto_respond)
        try:
            assert "run_query" in [tool["name"] for tool in await session.list_tools()]
            result = await session.call_tool("run_query", {"region": "Zürich", "query": "SELECT 1"})
        finally:
            await session.close()
    assert result.drive.outcome == "complete", result.drive
    assert result.drive.result["content"][0]["text"] == "Ran the query in Zürich"  # type: ignore[index]
    sent = [m for m in session.store.messages_of(result.operation.id) if m.kind == "request"]
    assert [m.transport["request_headers"]["Mcp-Param-Region"] for m in sent] == ["=?base64?WsO8cmljaA==?="] * 2


async def test_tools_with_invalid_annotations_are_dropped_from_the_listing() -> None:
    server = build_demo_server()

    @server.tool("broken_header", input_schema={"type": "object", "properties": {
        "ratio": {"type": "number", "x-mcp-header": "Ratio"}}})
    def broken(session, request, response):  # type: ignore[no-untyped-def]
        response.result.content.add_text("never listed")

    async with serve_in_background(server) as url:
        transport = HttpClientTransport(url)
        session = ClientSession(transport, ClientSettings(era="modern"), auto_respond)
        try:
            names = [tool["name"] for tool in await session.list_tools()]
        finally:
            await session.close()
    assert "broken_header" not in names and "run_query" in names
    assert "number" in transport.rejected_tools["broken_header"]
