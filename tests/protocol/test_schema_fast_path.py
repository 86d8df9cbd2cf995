"""The compiled verdict (jsonschema-rs) must agree with the Python jsonschema on every message shape the
recorder sees: a message it calls valid is never one the Python validator would fault."""

import copy
from typing import Any

import pytest

from mrtr_studio.protocol import schema

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
FORM = {"mode": "form", "message": "Delete?", "requestedSchema": {
    "type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}}
SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("CallToolRequest", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "delete_file", "arguments": {"path": "/a"}, "_meta": META}}),
    ("CallToolRequest", {"jsonrpc": "2.0", "id": "r-2", "method": "tools/call",
                         "params": {"name": "delete_file", "arguments": {"path": "/a"}, "requestState": "v1.x",
                                    "inputResponses": {"confirm": {"action": "accept",
                                                                   "content": {"confirm": True}}},
                                    "_meta": META}}),
    ("InputRequiredResult", {"resultType": "input_required", "requestState": "v1.abc",
                             "inputRequests": {"confirm": {"method": "elicitation/create", "params": FORM}}}),
    ("CallToolResult", {"resultType": "complete", "content": [{"type": "text", "text": "File deleted"}]}),
    ("JSONRPCErrorResponse", {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "bad"}}),
]


def _mutations(value: Any) -> list[Any]:
    """The value with one thing broken at a time: each key dropped, each scalar given the wrong type."""
    out = []
    if isinstance(value, dict):
        for key in value:
            dropped = {k: v for k, v in value.items() if k != key}
            out.append(dropped)
            for changed in _mutations(value[key]):
                out.append({**value, key: changed})
        out.append({**value, "unexpected": object.__name__})
    elif isinstance(value, list):
        for index, item in enumerate(value):
            for changed in _mutations(item):
                out.append([*value[:index], changed, *value[index + 1:]])
        out.append([*value, 42])
    elif isinstance(value, str):
        out += [7, None]
    elif isinstance(value, bool):
        out += ["yes", 1]
    elif isinstance(value, int):
        out += ["1", 1.5, True]
    return out


@pytest.mark.parametrize(("definition", "sample"), SAMPLES)
def test_the_compiled_verdict_matches_the_python_validator(definition: str, sample: dict[str, Any]) -> None:
    python = schema._validator(definition, "2026-07-28")
    fast = schema._fast_validator(definition, "2026-07-28")
    assert fast is not None
    candidates = [copy.deepcopy(sample), *_mutations(sample)]
    assert len(candidates) > 10
    disagreements = [c for c in candidates if fast.is_valid(c) != python.is_valid(c)]
    assert disagreements == []
    assert any(not python.is_valid(c) for c in candidates)  # the mutations do break things


def test_an_invalid_message_still_gets_the_python_validators_words() -> None:
    message = {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "done"}]}}
    assert schema.message_problems(message, "tools/call") == ["result: 'resultType' is a required property"]
