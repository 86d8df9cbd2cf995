"""The official Python SDK (mcp 2.3.0) as the client of `mrtr-studio serve`'s app over real HTTP.

Its automatic MRTR loop must complete every demo flow; `mode="legacy"` must complete count_roots
through a server-initiated roots/list on the request's SSE stream; replayed state is rejected.
"""

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from mrtr_studio.engine import MrtrOptions, ServerOptions
from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.transport.http_host import ServerThread
from mrtr_studio.transport.http_server import HttpServerConfig

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]
TOKENS = {"alice-token": "alice", "bob-token": "bob"}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Any]]:
    server = build_demo_server(ServerOptions(mrtr=MrtrOptions(secret="interop", explain_rejections=True)))
    with ServerThread(server, config=HttpServerConfig(users=TOKENS)) as thread:
        yield thread.url, server


async def elicit(context: Any, params: Any) -> types.ElicitResult:
    schema = getattr(params, "requested_schema", None) or {}
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    content: dict[str, Any] = {}
    for name, spec in props.items():
        if spec.get("type") == "boolean":
            content[name] = True
        elif "enum" in spec:
            content[name] = spec["enum"][-1]
        else:
            content[name] = spec.get("default", "2.0.0")
    return types.ElicitResult(action="accept", content=content)


async def sample(context: Any, params: Any) -> types.CreateMessageResult:
    return types.CreateMessageResult(role="assistant", model="test-model", stop_reason="endTurn",
                                     content=types.TextContent(type="text", text="A short summary."))


async def roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work/a", name="a"),
                                        types.Root(uri="file:///work/b", name="b")])


def client(url: str, token: str | None = None, mode: str = "auto") -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    return Client(transport, mode=mode, elicitation_callback=elicit, sampling_callback=sample,
                  list_roots_callback=roots, cache=None)


def run(make: Callable[[], Awaitable[Any]]) -> Any:
    """Run one client flow; an MCPError comes out as itself, not wrapped in anyio's exception groups."""
    try:
        return asyncio.run(asyncio.wait_for(make(), 30))
    except BaseExceptionGroup as group:
        raise _leaf(group) from group


def _leaf(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


def text_of(result: Any) -> str:
    return " ".join(block.text for block in result.content if getattr(block, "text", None))


@pytest.mark.parametrize(("tool", "arguments", "expected"), [
    ("delete_file", {"path": "/tmp/x"}, "File deleted"),
    ("deploy_wizard", {}, "Deployed"),
    ("summarize", {"text": "long text"}, "Summary: A short summary."),
    ("count_roots", {}, "2 root(s)"),
])
def test_sdk_mrtr_loop_completes_tools(served: tuple[str, Any], tool: str, arguments: dict[str, Any],
                                       expected: str) -> None:
    url, _ = served

    async def go() -> Any:
        async with client(url) as c:
            assert c.protocol_version == "2026-07-28"
            return await c.call_tool(tool, arguments)

    result = run(go)
    assert not result.is_error
    assert expected in text_of(result)


def test_sdk_completes_prompt_and_resource(served: tuple[str, Any]) -> None:
    url, _ = served

    async def go() -> tuple[Any, Any]:
        async with client(url) as c:
            prompt = await c.get_prompt("code_review", {"code": "print(1)"})
            resource = await c.read_resource("config://secrets")
            return prompt, resource

    prompt, resource = run(go)
    assert "focus on style" in prompt.messages[0].content.text
    assert "API_KEY" in resource.contents[0].text


def test_sdk_legacy_mode_count_roots_through_server_initiated_request(served: tuple[str, Any]) -> None:
    url, _ = served

    async def go() -> Any:
        async with client(url, mode="legacy") as c:
            assert c.protocol_version == "2025-11-25"
            return await c.call_tool("count_roots", {})

    result = run(go)
    assert text_of(result) == "2 root(s): file:///work/a, file:///work/b"


def test_sdk_legacy_mode_gets_32603_for_modern_only_tool(served: tuple[str, Any]) -> None:
    url, _ = served

    async def go() -> None:
        async with client(url, mode="legacy") as c:
            await c.call_tool("delete_file", {"path": "x"})

    with pytest.raises(MCPError) as raised:
        run(go)
    assert raised.value.error.code == -32603


async def first_round(url: str, token: str | None = None) -> str:
    async with client(url, token) as c:
        first = await c.session.call_tool("delete_file", {"path": "/a"}, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
        assert first.request_state
        return first.request_state


async def replay(url: str, state: str, arguments: dict[str, Any], token: str | None = None) -> Any:
    async with client(url, token) as c:
        answer = {"confirm": types.ElicitResult(action="accept", content={"confirm": True})}
        return await c.call_tool("delete_file", arguments, input_responses=answer, request_state=state)


@pytest.mark.parametrize(("reason", "arguments", "token"), [
    ("arguments", {"path": "/etc/passwd"}, "alice-token"),
    ("principal", {"path": "/a"}, "bob-token"),
])
def test_replayed_state_is_rejected(served: tuple[str, Any], reason: str, arguments: dict[str, Any],
                                    token: str) -> None:
    url, _ = served

    async def go() -> Any:
        state = await first_round(url, "alice-token")
        ok = await replay(url, state, {"path": "/a"}, "alice-token")
        assert text_of(ok) == "File deleted"
        return await replay(url, state, arguments, token)

    with pytest.raises(MCPError) as raised:
        run(go)
    assert raised.value.error.code == -32602
    assert raised.value.error.data["reason"] == reason


def test_expired_state_is_rejected(served: tuple[str, Any]) -> None:
    url, server = served

    async def go() -> Any:
        state = await first_round(url)
        server.codec.clock = lambda: time.time() + 3600
        try:
            return await replay(url, state, {"path": "/a"})
        finally:
            server.codec.clock = time.time

    with pytest.raises(MCPError) as raised:
        run(go)
    assert raised.value.error.data["reason"] == "expired"
