"""subscriptions/listen (2026-07-28): acknowledged first, filtered, tagged, bounded; every message schema-checked."""

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mrtr_studio.engine import Session
from mrtr_studio.protocol import jsonrpc
from mrtr_studio.protocol.schema import message_problems
from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.transport.http_host import ServerThread

from .wire import Wire, meta

pytestmark = pytest.mark.anyio
TAG = "io.modelcontextprotocol/subscriptionId"


class Stream:
    """One open listen request on the engine, its notifications collected and schema-checked."""

    def __init__(self, server: Any, request_id: int, notifications: dict[str, Any]) -> None:
        self.server = server
        self.frames: list[dict[str, Any]] = []
        message = {"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen",
                   "params": {"_meta": meta(), "notifications": notifications}}
        self.task = asyncio.create_task(server.handle(message, Session(), self._notify))

    async def _notify(self, method: str, params: dict[str, Any]) -> None:
        frame = jsonrpc.notification(method, params)
        assert message_problems(frame) == [], frame
        self.frames.append(frame)

    async def settle(self) -> None:
        for _ in range(20):
            await asyncio.sleep(0)

    async def close(self) -> None:
        self.task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await self.task


async def call_tool(server: Any, name: str) -> dict[str, Any]:
    return await Wire(server).call(name)


async def test_acknowledged_first_with_the_honoured_subset_then_tagged_changes() -> None:
    server = build_demo_server()
    stream = Stream(server, 41, {"toolsListChanged": True, "resourceSubscriptions": [
        "test://watched-resource", "test://no-such-thing"]})
    await stream.settle()
    assert stream.frames == [{"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
        "_meta": {TAG: 41},
        "notifications": {"toolsListChanged": True, "resourceSubscriptions": ["test://watched-resource"]}}}]
    await call_tool(server, "test_trigger_tool_change")
    assert await server.notify_resource_updated("test://watched-resource") == 1
    assert await server.notify_resource_updated("test://static-text") == 0
    await stream.settle()
    assert [(f["method"], f["params"]["_meta"][TAG]) for f in stream.frames[1:]] == [
        ("notifications/tools/list_changed", 41), ("notifications/resources/updated", 41)]
    assert stream.frames[2]["params"]["uri"] == "test://watched-resource"
    await stream.close()
    assert server.listeners.streams == []


async def test_a_stream_gets_only_what_it_asked_for() -> None:
    server = build_demo_server()
    prompts_only = Stream(server, 1, {"promptsListChanged": True})
    await prompts_only.settle()
    listed = (await Wire(server).send("tools/list", {"_meta": meta()}))["result"]["tools"]
    await call_tool(server, "test_trigger_tool_change")
    after = (await Wire(server).send("tools/list", {"_meta": meta()}))["result"]["tools"]
    assert {t["name"] for t in after} - {t["name"] for t in listed} == {"test_dynamic_tool"}
    await call_tool(server, "test_trigger_prompt_change")
    await prompts_only.settle()
    assert [f["method"] for f in prompts_only.frames] == [
        "notifications/subscriptions/acknowledged", "notifications/prompts/list_changed"]
    await prompts_only.close()


async def test_the_stream_ends_gracefully_with_its_id() -> None:
    server = build_demo_server()
    server.listeners.max_seconds = 0.05
    stream = Stream(server, "listen-7", {"toolsListChanged": True})
    reply = await asyncio.wait_for(stream.task, 5)
    assert reply is not None and message_problems(reply, method="subscriptions/listen") == []
    assert reply["result"] == {"resultType": "complete", "_meta": {TAG: "listen-7"}}


async def ignore(method: str, params: dict[str, Any]) -> None:
    raise AssertionError(f"nothing may be sent on a refused stream: {method}")


@pytest.mark.parametrize("notifications", [None, [], {"toolsListChanged": "yes"},
                                           {"resourceSubscriptions": "test://static-text"}])
async def test_bad_filters_are_invalid_params(notifications: Any) -> None:
    reply = await build_demo_server().handle(
        {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
         "params": {"_meta": meta(), "notifications": notifications}}, Session(), ignore)
    assert reply is not None and reply["error"]["code"] == -32602


async def test_no_stream_without_a_channel_and_none_for_legacy() -> None:
    server = build_demo_server()
    reply = await Wire(server).send("subscriptions/listen", {"_meta": meta(), "notifications": {}})
    assert reply["error"]["code"] == -32603  # the in-process call has no stream to hold open
    legacy = Wire(server)
    await legacy.send("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                     "clientInfo": {"name": "l", "version": "1"}}, version="2025-11-25")
    old = await legacy.send("subscriptions/listen", {"notifications": {}}, version="2025-11-25")
    assert old["error"]["code"] == -32601


# --- over real HTTP -----------------------------------------------------------------------------------

@pytest.fixture
def url() -> Iterator[str]:
    with ServerThread(build_demo_server()) as thread:
        yield thread.url


def headers(method: str, name: str | None = None) -> dict[str, str]:
    found = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
             "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if name:
        found["Mcp-Name"] = name
    return found


@pytest.mark.timeout(60)
def test_listen_over_http_streams_changes_until_the_client_leaves(url: str) -> None:
    listen = {"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen",
              "params": {"_meta": meta(), "notifications": {"toolsListChanged": True}}}
    trigger = {"jsonrpc": "2.0", "id": 6, "method": "tools/call",
               "params": {"_meta": meta(), "name": "test_trigger_tool_change", "arguments": {}}}
    frames: list[dict[str, Any]] = []
    with httpx.Client(timeout=10) as http, http.stream("POST", url, content=json.dumps(listen),
                                                        headers=headers("subscriptions/listen")) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = response.iter_lines()
        for line in lines:
            if line.startswith("data:"):
                frames.append(json.loads(line[5:]))
                if len(frames) == 1:
                    done = httpx.post(url, content=json.dumps(trigger),
                                      headers=headers("tools/call", "test_trigger_tool_change"), timeout=10)
                    assert "Tool list changed; 1 listen stream(s) told" in done.text
                else:
                    break
    assert [f["method"] for f in frames] == ["notifications/subscriptions/acknowledged",
                                             "notifications/tools/list_changed"]
    assert all(f["params"]["_meta"][TAG] == 5 and message_problems(f) == [] for f in frames)


async def test_updating_the_watched_resource_tells_its_subscribers() -> None:
    server = build_demo_server()
    stream = Stream(server, 9, {"resourceSubscriptions": ["test://watched-resource"]})
    await stream.settle()
    done = await call_tool(server, "test_update_watched_resource")
    assert done["result"]["content"][0]["text"].endswith("revision 1; 1 subscriber(s) told")
    await stream.settle()
    assert stream.frames[-1]["method"] == "notifications/resources/updated"
    read = await Wire(server).call("test://watched-resource", method="resources/read")
    assert read["result"]["contents"][0]["text"] == "Watched resource content (revision 1)"
    await stream.close()


async def test_a_stream_that_does_not_read_holds_a_bounded_queue() -> None:
    from mrtr_studio.engine.listen import MAX_QUEUED

    server = build_demo_server()
    stalled = asyncio.Event()

    async def never_done(method: str, params: dict[str, Any]) -> None:
        if method != "notifications/subscriptions/acknowledged":
            await stalled.wait()  # a client that stopped reading

    message = {"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen",
               "params": {"_meta": meta(), "notifications": {"toolsListChanged": True}}}
    task = asyncio.create_task(server.handle(message, Session(), never_done))
    for _ in range(10):
        await asyncio.sleep(0)
    told = [server.notify_list_changed("tools") for _ in range(MAX_QUEUED + 50)]
    assert sum(told) == MAX_QUEUED  # the rest are dropped, not piled up
    for _ in range(10):
        await asyncio.sleep(0)  # the stream takes one (and stalls sending it): room for exactly one more
    assert [server.notify_list_changed("tools") for _ in range(3)] == [1, 0, 0]
    assert server.listeners.streams[0].queue.qsize() == MAX_QUEUED
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


class TaskStream(Stream):
    """A listen stream asking for task status notifications, as `principal`, with `caps`."""

    def __init__(self, server: Any, request_id: int, task_ids: Any, session: Session,
                 caps: dict[str, Any] | None = None) -> None:
        self.server = server
        self.frames = []
        message = {"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen",
                   "params": {"_meta": meta(TASKS if caps is None else caps), "notifications": {"taskIds": task_ids}}}
        self.task = asyncio.create_task(server.handle(message, session, self._notify))

    async def _notify(self, method: str, params: dict[str, Any]) -> None:
        self.frames.append(jsonrpc.notification(method, params))

    async def until(self, done: Any) -> None:
        for _ in range(2000):
            if done():
                return
            await asyncio.sleep(0.005)
        raise AssertionError(f"not reached; frames {self.frames}")


async def test_task_status_notifications_follow_the_requesters_task_to_its_end() -> None:
    server = build_demo_server()
    alice, bob = Wire(server, user="alice"), Wire(server, user="bob")
    created = (await alice.call("slow_compute", {"seconds": 0.2, "label": "x"}, caps=TASKS))["result"]
    theirs = (await bob.call("slow_compute", {"seconds": 60, "label": "y"}, caps=TASKS))["result"]
    stream = TaskStream(server, 51, [created["taskId"], theirs["taskId"], "no-such-task", created["taskId"]],
                        alice.session)
    await stream.until(lambda: any(f["method"] == "notifications/tasks" and f["params"]["status"] == "completed"
                                   for f in stream.frames))
    ack, *updates = stream.frames
    assert ack["method"] == "notifications/subscriptions/acknowledged"
    assert ack["params"]["notifications"] == {"taskIds": [created["taskId"]]}  # bob's and unknown ones: not here
    assert [f["method"] for f in updates] == ["notifications/tasks"] * len(updates)
    assert all(f["params"]["taskId"] == created["taskId"] and f["params"]["_meta"][TAG] == 51 for f in updates)
    assert updates[0]["params"]["status"] == "working" and updates[-1]["params"]["status"] == "completed"
    got = await alice.send("tasks/get", {"taskId": created["taskId"], "_meta": meta(TASKS)})
    final = {k: v for k, v in updates[-1]["params"].items() if k != "_meta"}
    assert final == {k: v for k, v in got["result"].items() if k != "resultType"}  # the DetailedTask tasks/get gives
    assert "result" in final
    await stream.close()
    await bob.send("tasks/cancel", {"taskId": theirs["taskId"], "_meta": meta(TASKS)})


async def test_task_notifications_need_the_extension_and_well_formed_ids() -> None:
    server = build_demo_server()
    session = server.open_session(user="alice")
    refused = await server.handle({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "_meta": meta(), "notifications": {"taskIds": ["t-1"]}}}, session, ignore)
    assert refused["error"]["code"] == -32021
    assert refused["error"]["data"]["requiredCapabilities"] == {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    for bad in ("t-1", [1, 2], ["x" * 300], [f"t-{i}" for i in range(65)]):
        reply = await server.handle({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {
            "_meta": meta(TASKS), "notifications": {"taskIds": bad}}}, session, ignore)
        assert reply["error"]["code"] == -32602, bad


async def test_one_principal_cannot_take_every_listen_slot() -> None:
    server = build_demo_server()
    server.listeners.max_per_principal = 3
    server.listeners.max_streams = 5

    def listen(user: str, request_id: int) -> "asyncio.Task[Any]":
        message = {"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen",
                   "params": {"_meta": meta(), "notifications": {"toolsListChanged": True}}}

        async def quiet(method: str, params: dict[str, Any]) -> None:
            pass

        return asyncio.create_task(server.handle(message, server.open_session(user=user), quiet))

    mallory = [listen("mallory", i) for i in range(3)]
    for _ in range(20):
        await asyncio.sleep(0)
    refused = await asyncio.wait_for(listen("mallory", 9), 5)
    assert refused is not None and refused["error"]["code"] == -32603
    assert "for this principal (at most 3)" in refused["error"]["message"]
    alice = [listen("alice", 10 + i) for i in range(2)]  # the others still get in
    for _ in range(20):
        await asyncio.sleep(0)
    assert sorted(s.principal for s in server.listeners.streams) == ["alice", "alice"] + ["mallory"] * 3
    full = await asyncio.wait_for(listen("bob", 20), 5)  # the server-wide bound still holds
    assert full is not None and "at most 5" in full["error"]["message"]
    for task in mallory + alice:
        task.cancel()
    await asyncio.gather(*mallory, *alice, return_exceptions=True)
    assert server.listeners.streams == []
