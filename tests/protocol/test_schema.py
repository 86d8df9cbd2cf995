"""The shipped official schemas validate the spec's own examples, and reject what they must."""

import json
from pathlib import Path

import pytest

from mrtr_studio.protocol import schema
from mrtr_studio.protocol.capabilities import declares, missing, required_for
from mrtr_studio.protocol.models import ElicitResult, InputRequiredResult

EXAMPLES = sorted((schema.resources_dir() / "mcp-examples").glob("*/*.json"))


def test_examples_are_shipped() -> None:
    assert len(EXAMPLES) > 80


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_spec_example_validates(path: Path) -> None:
    assert schema.problems(json.loads(path.read_text(encoding="utf-8")), path.parent.name) == []


def test_invalid_messages_are_reported_with_where() -> None:
    bad = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": "not a list"}}
    found = schema.message_problems(bad, method="tools/call")
    assert found and found[0].startswith("content:")
    assert schema.message_problems({"jsonrpc": "2.0", "id": True, "method": "tools/list", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}}) != []
    assert schema.message_problems([]) == ["(root): a JSON-RPC message must be an object"]


def test_input_required_needs_result_type() -> None:
    assert schema.problems({"inputRequests": {}}, "InputRequiredResult") != []
    assert schema.problems(InputRequiredResult(request_state="x").wire(), "InputRequiredResult") == []


def test_models_speak_camel_case() -> None:
    wire = InputRequiredResult(input_requests={"k": {"method": "roots/list"}}, request_state="s").wire()
    assert wire == {"resultType": "input_required", "inputRequests": {"k": {"method": "roots/list", "params": {}}},
                    "requestState": "s"}
    assert ElicitResult.model_validate({"action": "accept", "content": {"a": 1}}).wire() == {
        "action": "accept", "content": {"a": 1}}


def test_capability_rules() -> None:
    assert required_for("elicitation/create", {"mode": "url"}) == {"elicitation": {"url": {}}}
    assert required_for("sampling/createMessage", {"tools": [{}]}) == {"sampling": {"tools": {}}}
    assert declares({"elicitation": {}}, {"elicitation": {}})  # empty object: form mode (2025-06-18 compat)
    assert not declares({"elicitation": {"url": {}}}, {"elicitation": {}})
    requests = {"a": {"method": "roots/list"}, "b": {"method": "elicitation/create", "params": {"mode": "url"}}}
    assert missing({"elicitation": {"form": {}}}, requests) == {"roots": {}, "elicitation": {"url": {}}}


MODEL_EXAMPLES = {
    "ElicitResult": "ElicitResult", "ListRootsResult": "ListRootsResult", "InputRequiredResult": "InputRequiredResult",
}


@pytest.mark.parametrize("path", [p for p in EXAMPLES if p.parent.name in MODEL_EXAMPLES],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_models_read_and_write_the_spec_examples_unchanged(path: Path) -> None:
    from mrtr_studio.protocol import models

    example = json.loads(path.read_text(encoding="utf-8"))
    model = getattr(models, MODEL_EXAMPLES[path.parent.name])
    assert model.model_validate(example).wire() == example
