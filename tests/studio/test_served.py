"""The studio serves its engine to outside clients and records their flows, stitched by requestState."""

import pytest

from mrtr_studio.client.auto_answers import auto_respond
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.studio.controller import Studio
from mrtr_studio.studio.served_engine import LABEL
from mrtr_studio.transport.http_client import HttpClientTransport
from tests.interop.test_sdk_client_http import client as sdk_client
from tests.interop.test_sdk_client_http import text_of

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def recorded(studio: Studio) -> list[tuple[str, list[tuple[int, str, str]]]]:
    return [(op.outcome, [(m.round, m.direction, m.kind) for m in studio.store.messages_of(op.id)])
            for op in studio.store.operations if op.label == LABEL]


async def test_an_outside_clients_flow_is_recorded_round_by_round() -> None:
    studio = Studio()
    url = await studio.start_serving()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
    outside = ClientSession(HttpClientTransport(url, bearer_token="alice-token"), ClientSettings(era="modern"),
                            auto_respond)
    try:
        await outside.list_tools()  # not an MRTR method: recorded in the session's operation
        done = await outside.call_tool("deploy_wizard", {})
        counted = await outside.call_tool("count_roots", {})
    finally:
        await outside.close()
        await studio.close()
    assert done.drive.outcome == "complete" and counted.drive.outcome == "complete"
    flows = recorded(studio)
    assert [outcome for outcome, _ in flows] == ["complete", "complete"]
    assert [r for r, _, _ in flows[0][1]] == [1, 1, 2, 2, 3, 3, 4, 4]
    assert [k for _, _, k in flows[0][1]][-1] == "complete"
    session, first = studio.store.operations[:2]
    assert (session.method, session.era, session.label) == ("session", "modern", f"{LABEL}: session")
    assert "tools/list" in [m.method_name for m in studio.store.messages_of(session.id)]
    assert (first.target, first.era, first.server) == ("deploy_wizard", "modern", f"served at {url}")
    request = studio.store.messages_of(first.id)[0]
    assert request.transport["request_headers"]["authorization"] == "Bearer ***"
    assert studio.serving_url is None  # closed


async def test_the_official_sdk_client_is_recorded_too() -> None:
    studio = Studio()
    url = await studio.start_serving()
    try:
        async with sdk_client(url) as outside:
            result = await outside.call_tool("delete_file", {"path": "/tmp/x"})
        async with sdk_client(url, mode="legacy") as legacy:
            roots = await legacy.call_tool("count_roots", {})
    finally:
        await studio.close()
    assert text_of(result) == "File deleted" and "2 root(s)" in text_of(roots)
    flows = recorded(studio)
    assert flows[0] == ("complete", [(1, "client->server", "request"), (1, "server->client", "input_required"),
                                     (2, "client->server", "request"), (2, "server->client", "complete")])
    assert flows[1] == ("complete", [(1, "client->server", "request"), (1, "server->client", "server_request"),
                                     (1, "client->server", "client_response"), (1, "server->client", "complete")])


async def test_two_legacy_sessions_at_once_keep_their_server_requests_apart() -> None:
    """Server request ids repeat across legacy sessions ("server-1" in each); each answer joins its own call."""
    import asyncio

    studio = Studio()
    url = await studio.start_serving()
    try:
        async def legacy_roots() -> str:
            async with sdk_client(url, mode="legacy") as legacy:
                return text_of(await legacy.call_tool("count_roots", {}))

        results = await asyncio.gather(legacy_roots(), legacy_roots())
    finally:
        await studio.close()
    assert all("2 root(s)" in text for text in results)
    flows = recorded(studio)
    assert [outcome for outcome, _ in flows] == ["complete", "complete"]
    for _, messages in flows:
        assert [k for _, _, k in messages] == ["request", "server_request", "client_response", "complete"]


async def test_an_outside_clients_task_is_one_operation_with_its_polls_and_answer() -> None:
    from mrtr_studio.client.settings import ALL_CAPABILITIES

    studio = Studio()
    url = await studio.start_serving()
    outside = ClientSession(HttpClientTransport(url), ClientSettings(era="modern",
                                                                     capabilities=ALL_CAPABILITIES | {"tasks"}),
                            auto_respond)
    try:
        run = await outside.call_tool("confirm_delete", {"filename": "served.txt"})
    finally:
        await outside.close()
        await studio.close()
    assert run.task is not None and run.task.outcome == "complete"
    flows = [op for op in studio.store.operations if op.label == LABEL]
    assert len(flows) == 1
    op = flows[0]
    assert (op.outcome, op.task_id, op.task_status, op.task_round) == ("complete", run.task.task_id, "completed", 1)
    methods = [(m.round, m.method) for m in studio.store.messages_of(op.id) if m.direction == "client->server"]
    assert methods[0] == (1, "tools/call") and (3, "tasks/update") in methods and methods[-1][1] == "tasks/get"
    update_at = methods.index((3, "tasks/update"))
    assert all(r == 2 for r, _ in methods[1:update_at]) and all(r == 3 for r, _ in methods[update_at:])
