"""The tasks extension's wire (SEP-2663, `io.modelcontextprotocol/tasks`): names and shapes.

The official 2026-07-28 schema does not define tasks (they are an extension), so the shapes the
extension adds are transcribed here from SEP-2663's TypeScript as JSON Schema: `CreateTaskResult`
(`resultType: "task"`), the `DetailedTask` a `tasks/get` returns, and the empty acknowledgement of
`tasks/update` and `tasks/cancel`.
"""

from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TASK_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
#: What a -32021 names when a request needs the extension the client did not declare.
REQUIRED_TASKS: dict[str, Any] = {"extensions": {TASKS_EXTENSION: {}}}


def declares_tasks(client_capabilities: dict[str, Any]) -> bool:
    extensions = client_capabilities.get("extensions")
    return isinstance(extensions, dict) and isinstance(extensions.get(TASKS_EXTENSION), dict)


_TASK_FIELDS: dict[str, Any] = {
    "taskId": {"type": "string", "minLength": 1},
    "status": {"enum": ["working", "input_required", "completed", "cancelled", "failed"]},
    "statusMessage": {"type": "string"},
    "createdAt": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}"},
    "lastUpdatedAt": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}"},
    "ttlMs": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
    "pollIntervalMs": {"type": "integer", "minimum": 1},
    "_meta": {"type": "object"},
}
_REQUIRED = ["taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"]
_INPUT_REQUESTS = {"type": "object", "additionalProperties": {
    "type": "object", "required": ["method"],
    "properties": {"method": {"type": "string"}, "params": {"type": "object"}}}}

SCHEMAS: dict[str, dict[str, Any]] = {
    "CreateTaskResult": {
        "type": "object",
        "required": ["resultType", *_REQUIRED],
        "properties": {**_TASK_FIELDS, "resultType": {"const": "task"}},
        "not": {"anyOf": [{"required": [name]} for name in ("result", "error", "inputRequests", "requestState")]},
    },
    "DetailedTask": {
        "type": "object",
        "required": ["resultType", *_REQUIRED],
        "properties": {**_TASK_FIELDS, "resultType": {"const": "complete"}, "inputRequests": _INPUT_REQUESTS,
                       "result": {"type": "object"}, "error": {
                           "type": "object", "required": ["code", "message"],
                           "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}}},
        "not": {"required": ["requestState"]},
        "allOf": [
            {"if": {"properties": {"status": {"const": "input_required"}}},
             "then": {"required": ["inputRequests"]}},
            {"if": {"properties": {"status": {"const": "completed"}}},
             "then": {"required": ["result"], "not": {"required": ["error"]}}},
            {"if": {"properties": {"status": {"const": "failed"}}},
             "then": {"required": ["error"], "not": {"required": ["result"]}}},
        ],
    },
    "TaskAck": {
        "type": "object",
        "required": ["resultType"],
        "properties": {"resultType": {"const": "complete"}, "_meta": {"type": "object"}},
        "additionalProperties": False,
    },
}

RESULT_KINDS = {"tasks/get": "DetailedTask", "tasks/update": "TaskAck", "tasks/cancel": "TaskAck"}


@cache
def _validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(SCHEMAS[kind])


def task_problems(body: Any, kind: str) -> list[str]:
    """What is wrong with `body` as the named extension shape (`CreateTaskResult`, `DetailedTask`, `TaskAck`)."""
    found = []
    for error in sorted(_validator(kind).iter_errors(body), key=lambda e: list(e.path)):
        where = "/".join(str(p) for p in error.path) or "(root)"
        found.append(f"{where}: {error.message}")
    return found
