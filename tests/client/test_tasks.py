"""The client's task phase: polling at the server's interval, answering once, cancelling, resuming."""

import asyncio
from pathlib import Path
from typing import Any

import pytest

from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ALL_CAPABILITIES, ClientSettings
from mrtr_studio.client.task_follower import follow_task, poll_seconds
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.trace import TraceStore, files, lint
from mrtr_studio.transport.http_client import HttpClientTransport
from mrtr_studio.transport.memory import MemoryTransport
from tests.transport.serve_process import serve

pytestmark = pytest.mark.anyio
YES = R.table({"*": {"action": "accept", "content": {"confirm": True}}})
TASKS = frozenset({*ALL_CAPABILITIES, "tasks"})


def task(status: str, **extra: Any) -> dict[str, Any]:
    return {"resultType": "complete", "taskId": "t1", "status": status, "createdAt": "2026-01-01T00:00:00Z",
            "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 60000, "pollIntervalMs": 250, **extra}


ASK = {"ok": {"method": "elicitation/create", "params": {"mode": "form", "message": "Go?",
                                                          "requestedSchema": {"type": "object"}}}}


class ScriptedTaskServer:
    """Answers tasks/get from a script; keeps showing a key after it was answered (eventual consistency)."""

    def __init__(self, script: list[dict[str, Any]]) -> None:
        self.script = script
        self.sent: list[dict[str, Any]] = []

    async def dispatch(self, message: dict[str, Any]) -> dict[str, Any]:
        self.sent.append(message)
        if message["method"] == "tasks/get":
            body = self.script.pop(0) if len(self.script) > 1 else self.script[0]
            return {"jsonrpc": "2.0", "id": message["id"], "result": body}
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"resultType": "complete"}}


def make(method: str, params: dict[str, Any]) -> dict[str, Any]:
    make.n += 1  # type: ignore[attr-defined]
    return {"jsonrpc": "2.0", "id": make.n, "method": method, "params": params}  # type: ignore[attr-defined]


make.n = 0  # type: ignore[attr-defined]


async def test_polls_at_the_interval_and_answers_a_key_only_once() -> None:
    server = ScriptedTaskServer([task("working"), task("input_required", inputRequests=ASK),
                                 task("input_required", inputRequests=ASK), task("working"),
                                 task("completed", result={"content": [{"type": "text", "text": "done"}]})])
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    asked: list[str] = []

    async def respond(requests: dict[str, Any], round_number: int) -> dict[str, Any]:
        asked.extend(requests)
        return {key: {"action": "accept", "content": {}} for key in requests}

    run = await follow_task("t1", server.dispatch, make, respond, sleep, first=task("working"))
    assert run.ok and run.result == {"content": [{"type": "text", "text": "done"}]}
    assert asked == ["ok"], "the key shown again after its answer is not answered twice"
    assert [m["method"] for m in server.sent].count("tasks/update") == 1
    assert waits == [0.25] * 5 and run.polls == 5
    assert all(m["params"]["taskId"] == "t1" for m in server.sent)


async def test_stop_sends_tasks_cancel_and_a_broken_task_is_a_protocol_error() -> None:
    server = ScriptedTaskServer([task("working")])
    polls = iter([False, False, True])

    async def sleep(seconds: float) -> None:
        pass

    run = await follow_task("t1", server.dispatch, make, YES, sleep, stop=lambda: next(polls))
    assert run.outcome == "stopped" and server.sent[-1]["method"] == "tasks/cancel"
    broken = ScriptedTaskServer([task("input_required")])  # no inputRequests
    run = await follow_task("t1", broken.dispatch, make, YES, sleep)
    assert run.outcome == "protocol_error" and "inputRequests" in (run.problem or "")
    assert poll_seconds({"pollIntervalMs": 1}) == 0.05 and poll_seconds({"pollIntervalMs": "x"}) == 1.0


def memory_session(server: Any = None, user: str = "alice", caps: frozenset[str] = TASKS,
                   store: TraceStore | None = None) -> ClientSession:
    transport = MemoryTransport(server or build_demo_server(), user=user)
    session = ClientSession(transport, ClientSettings(era="modern", capabilities=caps), YES, store=store)
    lint.attach(session.store)
    return session


async def test_long_report_in_memory_working_input_required_update_completed() -> None:
    session = memory_session()
    run = await session.call_tool("long_report", {"sections": 2, "seconds_per_section": 0.01})
    assert run.task is not None and run.task.outcome == "complete"
    assert run.operation.outcome == "complete" and run.operation.task_status == "completed"
    assert run.operation.task_id == run.task.task_id and run.operation.task_round == 1
    assert run.task.result == {"content": [{"type": "text", "text": "Report on quarterly figures: 2 sections written"}]}
    methods = [m.method for m in session.store.messages_of(run.operation.id) if m.direction == "client->server"]
    assert methods[0] == "tools/call" and methods.count("tasks/update") == 1 and "tasks/get" in methods
    update = next(m for m in session.store.messages_of(run.operation.id) if m.method == "tasks/update")
    assert update.round == 3 and list(update.message["params"]["inputResponses"]) == ["continue"]
    findings = [f.rule for m in session.store.messages_of(run.operation.id) for f in m.findings]
    assert findings == [], "the studio's own client keeps the task rules (pace, keys, schema)"


async def test_without_the_extension_long_report_says_which_capability() -> None:
    session = memory_session(caps=ALL_CAPABILITIES)
    run = await session.call_tool("long_report", {"sections": 2})
    assert run.operation.outcome == "error" and "-32021" in (run.operation.problem or "")
    assert run.task is None


async def test_stop_cancels_the_task_on_the_server() -> None:
    server = build_demo_server()
    session = memory_session(server)
    running = asyncio.ensure_future(session.call_tool("slow_compute", {"seconds": 60}))
    for _ in range(200):
        op = session.store.operations[-1] if session.store.operations else None
        if op is not None and op.task_id and any(m.method == "tasks/get" for m in session.store.messages_of(op.id)):
            break
        await asyncio.sleep(0.01)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    op = session.store.operations[-1]
    assert op.outcome == "aborted" and op.task_status == "cancelled"
    record = await server.tasks.store.get(str(op.task_id))
    assert record is not None and record.status == "cancelled"
    assert [m.method for m in session.store.messages_of(op.id)][-2] == "tasks/cancel"


class Dropping(MemoryTransport):
    """A connection that dies right after the first tasks/update (the client crashed mid-task)."""

    dead = False

    async def send(self, message: dict[str, Any]) -> dict[str, Any] | None:
        if self.dead:
            raise ConnectionError("the client went away")
        reply = await super().send(message)
        self.dead = message.get("method") == "tasks/update"
        return reply


def two_asks(session: Any, request: Any, response: Any) -> None:
    form = {"type": "object", "properties": {}}

    async def body(task: Any) -> None:
        for key in ("first", "second"):
            task.input_required.add_elicitation(key, f"{key}?", form)
            await task.wait_for_input()
        task.result.content.add_text("both answered")

    response.start_task(body, poll_interval_ms=50)


async def test_a_reopened_trace_resumes_polling_without_answering_again(tmp_path: Path) -> None:
    server = build_demo_server()
    server.tool("two_asks", task_support="optional")(two_asks)
    asked: list[str] = []

    async def respond(requests: dict[str, Any], round_number: int) -> dict[str, Any]:
        asked.extend(requests)
        return {key: {"action": "accept", "content": {}} for key in requests}

    first = ClientSession(Dropping(server, user="alice"), ClientSettings(era="modern", capabilities=TASKS), respond)
    crashed = await first.call_tool("two_asks")
    assert crashed.operation.outcome == "transport_error" and asked == ["first"]
    path = files.save(tmp_path / "t.mrtr.json", first.store)
    reopened = TraceStore()
    files.load_into(reopened, path)
    op_id = crashed.operation.id
    assert reopened.operation(op_id).task_id == crashed.operation.task_id
    second = ClientSession(MemoryTransport(server, user="alice"), ClientSettings(era="modern", capabilities=TASKS),
                           respond, store=reopened)
    resumed = await second.resume_task(op_id)
    assert resumed.outcome == "complete" and resumed.result == {"content": [{"type": "text", "text": "both answered"}]}
    assert asked == ["first", "second"], "the key the trace shows as answered is not asked again"
    assert reopened.operation(op_id).outcome == "complete"


async def test_over_http_with_two_principals() -> None:
    with serve("--user", "alice:token-a", "--user", "bob:token-b") as served:
        alice = ClientSession(HttpClientTransport(served.url, bearer_token="token-a"),
                              ClientSettings(era="modern", capabilities=TASKS, bearer_token="token-a"), YES)
        bob = ClientSession(HttpClientTransport(served.url, bearer_token="token-b"),
                            ClientSettings(era="modern", capabilities=TASKS, bearer_token="token-b"), YES)
        try:
            run = await alice.call_tool("confirm_delete", {"filename": "x.txt"})
            assert run.task is not None and run.task.outcome == "complete"
            assert run.task.result == {"content": [{"type": "text", "text": "Deleted x.txt"}]}
            with pytest.raises(RuntimeError, match="-32602"):
                await bob.request("tasks/get", {"taskId": run.task.task_id})
            got = await alice.request("tasks/get", {"taskId": run.task.task_id})
            assert got["status"] == "completed"
            sent = [m for m in alice.store.messages_of(run.operation.id) if m.method == "tasks/get"]
            assert sent and all(m.message["params"]["taskId"] == run.task.task_id for m in sent)
            lint.lint_all(alice.store)
            assert [f.rule for m in alice.store.messages_of(run.operation.id) for f in m.findings] == []
        finally:
            await alice.close()
            await bob.close()
