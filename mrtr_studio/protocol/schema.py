"""Validation of wire messages against the official MCP JSON Schemas (shipped in resources/).

`problems(instance, "CallToolResult")` lists what is wrong; an empty list means valid.
`message_problems(message, method=...)` picks the right definition for a whole JSON-RPC message.

Every recorded message is validated, so the verdict comes first from jsonschema-rs (compiled, in
Rust: tens of microseconds where the Python jsonschema takes near a millisecond on an
InputRequiredResult); only a message it finds invalid goes through the Python validator, whose
error messages (and best match) are the ones people read. Formats are not asserted by either.
"""

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .tasks_extension import NOTIFICATION_KINDS, REQUEST_KINDS, RESULT_KINDS, task_problems
from .versions import MODERN_VERSION

SCHEMA_VERSIONS = ("2026-07-28", "2025-11-25")

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator


def resources_dir() -> Path:
    """The shipped resources: inside the package when installed as a wheel, else the repo's."""
    packaged = Path(__file__).resolve().parent.parent / "_resources"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "resources"


@cache
def schema_document(version: str = MODERN_VERSION) -> dict[str, Any]:
    if version not in SCHEMA_VERSIONS:
        raise ValueError(f"no schema for protocol version {version!r}")
    path = resources_dir() / "mcp-schema" / f"{version}.schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def _validator(definition: str, version: str) -> "Draft202012Validator":
    from jsonschema import Draft202012Validator  # with the first message checked, not at import

    document = schema_document(version)
    if definition not in document["$defs"]:
        raise KeyError(f"{definition} is not defined in the {version} schema")
    root = {"$defs": document["$defs"], "$ref": f"#/$defs/{definition}"}
    return Draft202012Validator(root)


@cache
def _fast_validator(definition: str, version: str) -> Any:
    """The compiled verdict for `$defs/definition` (None when jsonschema-rs cannot build it: the
    Python validator alone then decides)."""
    import jsonschema_rs  # here, not at the top: the window imports this module at launch, and validates later

    root = _validator(definition, version).schema
    try:
        return jsonschema_rs.Draft202012Validator(root, validate_formats=False)
    except Exception:  # any refusal only means no fast path
        return None


def problems(instance: Any, definition: str, version: str = MODERN_VERSION) -> list[str]:
    """Human-readable validation errors of `instance` against `$defs/definition`."""
    validator = _validator(definition, version)
    fast = _fast_validator(definition, version)
    if fast is not None:
        try:
            if fast.is_valid(instance):
                return []
        except (ValueError, TypeError, OverflowError):  # a value it cannot take (a huge integer): Python decides
            pass
    errors = list(validator.iter_errors(instance))
    if not errors:
        return []
    from jsonschema.exceptions import best_match

    best = best_match(errors)
    where = "/".join(str(p) for p in best.absolute_path) or "(root)"
    found = [f"{where}: {best.message}"]
    found += [
        f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}" for e in errors if e is not best
    ]
    return found[:8]


_REQUEST_DEFS = {
    "tools/call": "CallToolRequest",
    "tools/list": "ListToolsRequest",
    "prompts/get": "GetPromptRequest",
    "prompts/list": "ListPromptsRequest",
    "resources/read": "ReadResourceRequest",
    "resources/list": "ListResourcesRequest",
    "resources/templates/list": "ListResourceTemplatesRequest",
    "server/discover": "DiscoverRequest",
    "initialize": "InitializeRequest",
    "ping": "PingRequest",
    "elicitation/create": "ElicitRequest",
    "sampling/createMessage": "CreateMessageRequest",
    "roots/list": "ListRootsRequest",
    "completion/complete": "CompleteRequest",
    "logging/setLevel": "SetLevelRequest",
    "resources/subscribe": "SubscribeRequest",
    "resources/unsubscribe": "UnsubscribeRequest",
    "subscriptions/listen": "SubscriptionsListenRequest",
}

_RESULT_DEFS = {
    "tools/call": "CallToolResult",
    "tools/list": "ListToolsResult",
    "prompts/get": "GetPromptResult",
    "prompts/list": "ListPromptsResult",
    "resources/read": "ReadResourceResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "server/discover": "DiscoverResult",
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "elicitation/create": "ElicitResult",
    "sampling/createMessage": "CreateMessageResult",
    "roots/list": "ListRootsResult",
    "completion/complete": "CompleteResult",
    "logging/setLevel": "EmptyResult",
    "resources/subscribe": "EmptyResult",
    "resources/unsubscribe": "EmptyResult",
    "subscriptions/listen": "SubscriptionsListenResult",
}


def message_problems(message: Any, method: str | None = None, version: str = MODERN_VERSION) -> list[str]:
    """Validate a whole JSON-RPC message; `method` names the request a response answers."""
    doc_defs = schema_document(version)["$defs"]
    if not isinstance(message, dict):
        return ["(root): a JSON-RPC message must be an object"]
    if "method" in message:
        envelope = "JSONRPCRequest" if "id" in message else "JSONRPCNotification"
        extension = (REQUEST_KINDS if "id" in message else NOTIFICATION_KINDS).get(str(message["method"]))
        if extension and version == MODERN_VERSION:  # the tasks extension's own schema (2026-07-28 only)
            return task_problems(message, extension)
        specific = _REQUEST_DEFS.get(message["method"])
        if specific and specific in doc_defs and "id" in message:
            # The typed request names method and params; the envelope adds `jsonrpc` and `id` only.
            found = problems(message, specific, version)
            if message.get("jsonrpc") != "2.0":
                found.append("jsonrpc: '2.0' was expected")
            if isinstance(message["id"], bool) or not isinstance(message["id"], str | int):
                found.append("id: must be a string or an integer")
            return found
        return problems(message, envelope, version)
    if "error" in message:
        return problems(message, "JSONRPCErrorResponse", version)
    found = problems(message, "JSONRPCResultResponse", version)
    body = message.get("result")
    if found or not isinstance(body, dict) or method is None:
        return found
    if body.get("resultType") == "input_required":
        return problems(body, "InputRequiredResult", version)
    if body.get("resultType") == "task":
        return task_problems(body, "CreateTaskResult")
    if method in RESULT_KINDS:
        return task_problems(body, RESULT_KINDS[method])
    specific = _RESULT_DEFS.get(method)
    if specific and specific in doc_defs:
        found += problems(body, specific, version)
    return found
