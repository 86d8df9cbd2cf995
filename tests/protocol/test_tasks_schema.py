"""Task messages are validated against the vendored tasks extension schema (ext-tasks after PR #18): the
resultType discriminators are required, InputRequest/InputResponse are the MRTR shapes (not "anything"),
a CreateTaskResult with _meta is satisfiable, and the prose rules the schema lacks are still checked."""

from pathlib import Path

from mrtr_studio.protocol.schema import message_problems
from mrtr_studio.protocol.tasks_extension import SCHEMA_SOURCE, task_problems, tasks_schema

ROOT = Path(__file__).resolve().parents[2]
TASK = {"taskId": "t1", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
        "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 60000, "pollIntervalMs": 500}
FORM = {"method": "elicitation/create", "params": {"mode": "form", "message": "Go?", "requestedSchema": {
    "type": "object", "properties": {"ok": {"type": "boolean"}}}}}


def test_the_vendored_schema_is_the_one_after_pr_18_and_says_where_it_came_from() -> None:
    readme = (ROOT / "resources" / "tasks-schema" / "README.md").read_text()
    assert "e4345978be1f602f1fc48d89051e8559dd5302a6" in readme and "e4345978" in SCHEMA_SOURCE
    defs = tasks_schema()["$defs"]
    assert {"$ref": "#/$defs/ElicitRequest"} in defs["InputRequest"]["anyOf"]  # no longer anyOf [{}, {}, {}]


def test_result_type_discriminators_are_required() -> None:
    assert task_problems({"resultType": "task", **TASK, "_meta": {"x": 1}}, "CreateTaskResult") == []
    assert any("resultType" in p for p in task_problems(TASK, "CreateTaskResult"))
    assert task_problems({"resultType": "complete", **TASK}, "GetTaskResult") == []
    assert task_problems({"resultType": "task", **TASK}, "GetTaskResult") != []
    assert task_problems({}, "UpdateTaskResult") != []
    assert task_problems({"resultType": "complete"}, "CancelTaskResult") == []


def test_input_requests_and_responses_must_be_mrtr_shapes() -> None:
    waiting = {"resultType": "complete", **TASK, "status": "input_required"}
    assert task_problems({**waiting, "inputRequests": {"k": FORM}}, "GetTaskResult") == []
    bogus = task_problems({**waiting, "inputRequests": {"k": {"method": "files/delete", "params": {}}}},
                          "GetTaskResult")
    assert bogus and bogus[0].startswith("inputRequests/k")
    update = {"jsonrpc": "2.0", "id": 3, "method": "tasks/update",
              "params": {"taskId": "t1", "inputResponses": {"k": {"action": "accept", "content": {"ok": True}}}}}
    assert message_problems(update) == []
    update["params"]["inputResponses"] = {"k": {"action": "shrug"}}
    assert message_problems(update) != []


def test_the_prose_rules_the_schema_lacks_are_still_checked() -> None:
    assert task_problems({"resultType": "task", **TASK, "requestState": "s"}, "CreateTaskResult") != []
    failed = {"resultType": "complete", **TASK, "status": "failed", "error": {"code": -1, "message": "x"}}
    assert task_problems(failed, "GetTaskResult") == []
    assert task_problems({**failed, "result": {}}, "GetTaskResult") != []
    assert task_problems({"resultType": "complete", "extra": 1}, "UpdateTaskResult") != []
