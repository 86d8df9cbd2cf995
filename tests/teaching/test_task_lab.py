"""The lab's task attacks against the embedded engine: every one is refused or ignored as the extension says."""

from typing import Any

import pytest

from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.teaching.lab import LabTarget
from mrtr_studio.teaching.task_lab import TASK_ATTACKS, TaskLab
from mrtr_studio.trace import TraceStore
from mrtr_studio.transport.memory import MemoryTransport

pytestmark = pytest.mark.anyio


def target(server: Any, identities: tuple[str, str | None] = ("alice", "bob")) -> LabTarget:
    return LabTarget(connect=lambda user: MemoryTransport(server, user=user), identities=identities)


async def test_the_engine_passes_every_task_attack() -> None:
    server = build_demo_server()
    store = TraceStore()
    run = await TaskLab(target(server), store).run_tasks()
    assert [(r.attack.id, r.status, r.verdict) for r in run.results] == [
        ("task-other-identity", "rejected", "pass"), ("task-key-twice", "rejected", "pass"),
        ("task-key-unknown", "rejected", "pass")]
    other = run.results[0]
    assert other.answer.count("-32602") == 3
    assert all(op.task_id for op in store.operations)
    assert await server.tasks.store.count_live("alice") == 0, "every attack cancels the task it left waiting"


async def test_a_server_that_lets_anyone_read_a_task_fails_the_must() -> None:
    server = build_demo_server()
    server.get_request_principal = lambda session: ""  # type: ignore[method-assign]  # no binding at all
    run = await TaskLab(target(server), TraceStore()).run_tasks(attacks=TASK_ATTACKS[:1])
    assert (run.results[0].status, run.results[0].verdict) == ("accepted", "fail")


async def test_without_a_second_identity_the_identity_attack_is_skipped() -> None:
    run = await TaskLab(target(build_demo_server(), ("", None)), TraceStore()).run_tasks(attacks=TASK_ATTACKS[:1])
    assert run.results[0].verdict == "skipped"
