"""Interop: the studio's client against the official Python SDK server (mcp==2.3.0) over HTTP."""

from typing import Any

import pytest

from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.transport.http_client import HttpClientTransport

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def answer_form(key: str, request: dict[str, Any], n: int) -> dict[str, Any]:
    return {"action": "accept", "content": {"confirm": True, "focus": "speed"}}


RESPOND = R.compose(elicitation=R.from_callback(answer_form), sampling=R.canned("short"),
                    roots=R.RootsList.of(["file:///work/a", "file:///work/b"]))


def text_of(result: dict[str, Any]) -> str:
    if "content" in result:
        return str(result["content"][0]["text"])
    if "messages" in result:
        return str(result["messages"][0]["content"]["text"])
    return str(result["contents"][0]["text"])


def flow(session: ClientSession, op_id: str) -> list[tuple[int, str, str]]:
    return [(m.round, m.direction, m.kind) for m in session.store.messages_of(op_id)]


MODERN_FLOW = [(1, "client->server", "request"), (1, "server->client", "input_required"),
               (2, "client->server", "request"), (2, "server->client", "complete")]
CASES = [
    ("tools/call", "sdk_delete", {"path": "/tmp/x"}, "deleted /tmp/x", "deleted /tmp/x"),
    ("tools/call", "sdk_summarize_roots", {"text": "abc"}, "short | roots: file:///work/a, file:///work/b",
     "short | roots: file:///work/a, file:///work/b"),
    ("prompts/get", "sdk_review", {"code": "x=1"}, "Review x=1 focusing on speed (state prompt-1)",
     "Review x=1 focusing on speed (legacy)"),
    ("resources/read", "notes://todo", None, "note todo: speed", "note todo: speed (legacy)"),
]


@pytest.mark.parametrize(("method", "target", "arguments", "modern_text", "legacy_text"), CASES)
async def test_modern_era(sdk_url: str, method: str, target: str, arguments: Any, modern_text: str,
                          legacy_text: str) -> None:
    session = ClientSession(HttpClientTransport(sdk_url), ClientSettings(era="modern"), RESPOND)
    try:
        run = await session.run(method, target, arguments)
    finally:
        await session.close()
    assert run.drive.outcome == "complete", run.drive.problem
    assert run.drive.result is not None and run.drive.result["resultType"] == "complete"
    assert text_of(run.drive.result) == modern_text
    assert flow(session, run.operation.id) == MODERN_FLOW
    first, retry = run.drive.rounds[0].request, run.drive.rounds[1].request
    assert first["id"] != retry["id"]
    asked = run.drive.rounds[0].response["result"]  # type: ignore[index]
    assert set(retry["params"]["inputResponses"]) == set(asked["inputRequests"])
    assert retry["params"].get("requestState") == asked.get("requestState")
    if method == "tools/call" and target == "sdk_summarize_roots":
        methods = sorted(r["method"] for r in asked["inputRequests"].values())
        assert methods == ["roots/list", "sampling/createMessage"]
    sent = session.store.messages_of(run.operation.id)[0]
    headers = sent.transport["request_headers"]
    assert headers["MCP-Protocol-Version"] == "2026-07-28"
    assert headers["Mcp-Method"] == method
    assert headers["Mcp-Name"] == target
    assert headers["Accept"] == "application/json, text/event-stream"


@pytest.mark.parametrize(("method", "target", "arguments", "modern_text", "legacy_text"), CASES)
async def test_legacy_era_answers_server_requests_with_the_same_responders(
        sdk_url: str, method: str, target: str, arguments: Any, modern_text: str, legacy_text: str) -> None:
    session = ClientSession(HttpClientTransport(sdk_url), ClientSettings(era="legacy"), RESPOND)
    try:
        run = await session.run(method, target, arguments)
    finally:
        await session.close()
    assert run.drive.outcome == "complete", run.drive.problem
    assert run.drive.result is not None and "resultType" not in run.drive.result
    assert text_of(run.drive.result) == legacy_text
    kinds = [kind for _, _, kind in flow(session, run.operation.id)]
    asked = 2 if target == "sdk_summarize_roots" else 1
    assert kinds == ["request", *(["server_request", "client_response"] * asked), "complete"]
    assert session.legacy_version == "2025-11-25"
    first = session.store.messages_of(run.operation.id)[0]
    assert first.transport["request_headers"]["MCP-Protocol-Version"] == "2025-11-25"
    assert "Mcp-Session-Id" in first.transport["request_headers"]


async def test_auto_era_detects_the_sdk_as_modern(sdk_url: str) -> None:
    session = ClientSession(HttpClientTransport(sdk_url), ClientSettings(era="auto"), RESPOND)
    try:
        assert (await session.ensure_era()).value == "modern"
        assert [t["name"] for t in await session.list_tools()] == ["sdk_delete", "sdk_summarize_roots"]
    finally:
        await session.close()


async def test_undeclared_capability_is_the_servers_error(sdk_url: str) -> None:
    settings = ClientSettings(era="modern", capabilities=frozenset({"elicitation"}))
    session = ClientSession(HttpClientTransport(sdk_url), settings, RESPOND)
    try:
        run = await session.run("tools/call", "sdk_summarize_roots", {"text": "abc"})
    finally:
        await session.close()
    assert run.drive.outcome == "error"
    assert run.drive.error is not None and run.drive.error["code"] == -32021
