"""The tasks extension's wire (SEP-2663, `io.modelcontextprotocol/tasks`): names and shapes.

The official 2026-07-28 schema does not define tasks (they are an extension). The extension publishes
its own generated JSON Schema, vendored unchanged in resources/tasks-schema/ (ext-tasks commit e4345978,
the one after PR #18 that constrains InputRequest/InputResponse and requires the resultType
discriminators); every task message is validated against it. A few rules of the extension's prose that
the schema does not encode are checked on top (PROSE_RULES): a task never carries a requestState, a
CreateTaskResult carries no outcome, a completed task no error and a failed one no result, and the
acknowledgement of tasks/update and tasks/cancel is empty.
"""

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # jsonschema loads with the first task checked, not with the engine
    from jsonschema import Draft202012Validator


TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TASK_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
#: What a -32021 names when a request needs the extension the client did not declare.
REQUIRED_TASKS: dict[str, Any] = {"extensions": {TASKS_EXTENSION: {}}}


def declares_tasks(client_capabilities: dict[str, Any]) -> bool:
    extensions = client_capabilities.get("extensions")
    return isinstance(extensions, dict) and isinstance(extensions.get(TASKS_EXTENSION), dict)


#: The extension's prose, where its schema is silent (each is a MUST of SEP-2663's text).
PROSE_RULES: dict[str, dict[str, Any]] = {
    "CreateTaskResult": {
        "not": {"anyOf": [{"required": [name]} for name in ("result", "error", "inputRequests", "requestState")]}},
    "GetTaskResult": {
        "not": {"required": ["requestState"]},
        "allOf": [
            {"if": {"properties": {"status": {"const": "completed"}}}, "then": {"not": {"required": ["error"]}}},
            {"if": {"properties": {"status": {"const": "failed"}}}, "then": {"not": {"required": ["result"]}}},
        ]},
    "UpdateTaskResult": {"properties": {"resultType": {}, "_meta": {}}, "additionalProperties": False},
    "CancelTaskResult": {"properties": {"resultType": {}, "_meta": {}}, "additionalProperties": False},
}
#: Old names for the shapes (kept for callers): the hand-transcribed schema's, before the vendored one.
ALIASES = {"DetailedTask": "GetTaskResult", "TaskAck": "UpdateTaskResult"}

RESULT_KINDS = {"tasks/get": "GetTaskResult", "tasks/update": "UpdateTaskResult", "tasks/cancel": "CancelTaskResult"}
REQUEST_KINDS = {"tasks/get": "GetTaskRequest", "tasks/update": "UpdateTaskRequest",
                 "tasks/cancel": "CancelTaskRequest"}
NOTIFICATION_KINDS = {"notifications/tasks": "TaskStatusNotification"}
SCHEMA_SOURCE = "modelcontextprotocol/ext-tasks@e4345978be1f602f1fc48d89051e8559dd5302a6 (2026-08-21, PR #18)"


def _schema_path() -> Path:
    packaged = Path(__file__).resolve().parent.parent / "_resources"
    base = packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "resources"
    return base / "tasks-schema" / "schema.json"


@cache
def tasks_schema() -> dict[str, Any]:
    """The vendored tasks extension schema (see resources/tasks-schema/README.md)."""
    return json.loads(_schema_path().read_text(encoding="utf-8"))


@cache
def _validator(kind: str) -> "Draft202012Validator":
    from jsonschema import Draft202012Validator

    defs = tasks_schema()["$defs"]
    if kind not in defs:
        raise KeyError(f"{kind} is not defined in the tasks extension schema")
    parts: list[dict[str, Any]] = [{"$ref": f"#/$defs/{kind}"}]
    if kind in PROSE_RULES:
        parts.append(PROSE_RULES[kind])
    return Draft202012Validator({"$defs": defs, "allOf": parts})


def task_problems(body: Any, kind: str) -> list[str]:
    """What is wrong with `body` as the named extension shape (`CreateTaskResult`, `GetTaskResult`, ...);
    the most specific error first (inside the status branch that fits), as for the core schema."""
    errors = list(_validator(ALIASES.get(kind, kind)).iter_errors(body))
    if not errors:
        return []
    from jsonschema.exceptions import best_match

    best = best_match(errors)
    ordered = [best, *sorted((e for e in errors if e is not best), key=lambda e: list(e.absolute_path))]
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}" for e in ordered][:8]
