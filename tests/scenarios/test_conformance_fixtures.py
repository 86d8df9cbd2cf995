"""The conformance fixtures, run in memory the way the official suite runs them over HTTP.

Every response is validated against the official 2026-07-28 schema, as the suite's
`wire-schema-valid` check does.
"""

import asyncio
import itertools
from typing import Any

import pytest

from mrtr_studio.engine import Session
from mrtr_studio.protocol.schema import message_problems
from mrtr_studio.scenarios.demo import build_demo_server

ALL_CAPS = {"sampling": {}, "elicitation": {}, "roots": {"listChanged": True}}
_ids = itertools.count(1)
MOCK = {
    "elicitation/create": {"action": "accept", "content": {"name": "Alice", "ok": True, "context": "c",
                                                           "color": "blue"}},
    "sampling/createMessage": {"role": "assistant", "content": {"type": "text", "text": "Paris."},
                               "model": "test-model", "stopReason": "endTurn"},
    "roots/list": {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]},
}


def meta(caps: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "conformance-test-client", "version": "1.0.0"},
            "io.modelcontextprotocol/clientCapabilities": ALL_CAPS if caps is None else caps, **extra}


def call(method: str, params: dict[str, Any], caps: dict[str, Any] | None = None) -> dict[str, Any]:
    server = build_demo_server()
    return asyncio.run(_call(server, method, params, caps))


async def _call(server: Any, method: str, params: dict[str, Any], caps: dict[str, Any] | None = None
                ) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": next(_ids), "method": method,
               "params": {**params, "_meta": meta(caps)}}
    response = await server.handle(message, Session())
    assert response is not None
    assert response["id"] == message["id"]
    assert message_problems(response, method=method) == []
    return response


def run_flow(method: str, name: str, rounds: int = 1) -> list[dict[str, Any]]:
    """Answer every input request with the suite's mock responses until complete."""
    server = build_demo_server()

    async def flow() -> list[dict[str, Any]]:
        seen = [await _call(server, method, {"name": name, "arguments": {}})]
        while seen[-1].get("result", {}).get("resultType") == "input_required":
            result = seen[-1]["result"]
            answers = {key: MOCK[req["method"]] for key, req in result["inputRequests"].items()}
            params = {"name": name, "arguments": {}, "inputResponses": answers,
                      "requestState": result["requestState"]}
            seen.append(await _call(server, method, params))
        return seen

    return asyncio.run(flow())


@pytest.mark.parametrize(("name", "methods"), [
    ("test_input_required_result_elicitation", {"elicitation/create"}),
    ("test_input_required_result_sampling", {"sampling/createMessage"}),
    ("test_input_required_result_list_roots", {"roots/list"}),
    ("test_input_required_result_request_state", {"elicitation/create"}),
    ("test_input_required_result_multiple_inputs",
     {"elicitation/create", "sampling/createMessage", "roots/list"}),
    ("test_input_required_result_tampered_state", {"elicitation/create"}),
    ("test_streaming_elicitation", {"elicitation/create"}),
])
def test_two_round_tools(name: str, methods: set[str]) -> None:
    first, last = run_flow("tools/call", name)
    asked = first["result"]["inputRequests"]
    assert {r["method"] for r in asked.values()} == methods
    assert isinstance(first["result"]["requestState"], str)
    assert last["result"]["resultType"] == "complete"
    assert last["result"]["content"]


def test_elicitation_key_and_greeting() -> None:
    first, last = run_flow("tools/call", "test_input_required_result_elicitation")
    assert "user_name" in first["result"]["inputRequests"]
    assert last["result"]["content"][0]["text"] == "Hello, Alice!"


def test_multi_round_changes_state_each_round() -> None:
    rounds = run_flow("tools/call", "test_input_required_result_multi_round")
    assert len(rounds) == 3
    assert rounds[0]["result"]["requestState"] != rounds[1]["result"]["requestState"]
    assert rounds[2]["result"]["content"][0]["text"] == "Alice likes blue"


def test_prompt_completes_with_messages() -> None:
    first, last = run_flow("prompts/get", "test_input_required_result_prompt")
    assert first["result"]["resultType"] == "input_required"
    assert last["result"]["messages"]


def test_elicitation_completes_without_state_and_ignores_extra_keys() -> None:
    answers = {"user_name": MOCK["elicitation/create"],
               "unknown_extra_key": {"action": "accept", "content": {}}}
    response = call("tools/call", {"name": "test_input_required_result_elicitation", "arguments": {},
                                   "inputResponses": answers})
    assert response["result"]["resultType"] == "complete"


def test_missing_answer_is_asked_again() -> None:
    response = call("tools/call", {"name": "test_input_required_result_elicitation", "arguments": {},
                                   "inputResponses": {"wrong_key": {"action": "accept", "content": {}}}})
    assert response["result"]["resultType"] == "input_required"


@pytest.mark.parametrize("responses", [{"user_name": 12345}, None])
def test_invalid_input_responses_are_errors(responses: Any) -> None:
    response = call("tools/call", {"name": "test_input_required_result_elicitation", "arguments": {},
                                   "inputResponses": responses})
    assert response["error"]["code"] == -32602


def test_tampered_state_is_rejected() -> None:
    first, _ = run_flow("tools/call", "test_input_required_result_tampered_state")
    response = call("tools/call", {"name": "test_input_required_result_tampered_state", "arguments": {},
                                   "inputResponses": {"confirm": MOCK["elicitation/create"]},
                                   "requestState": first["result"]["requestState"] + "-TAMPERED"})
    assert response["error"]["code"] == -32602


def test_capabilities_fixture_asks_only_through_declared_ones() -> None:
    response = call("tools/call", {"name": "test_input_required_result_capabilities", "arguments": {}},
                    caps={"sampling": {}})
    asked = response["result"]["inputRequests"]
    assert asked and {r["method"] for r in asked.values()} == {"sampling/createMessage"}


def test_missing_capability_is_32021_with_object_data() -> None:
    response = call("tools/call", {"name": "test_missing_capability", "arguments": {}}, caps={})
    assert response["error"]["code"] == -32021
    assert response["error"]["data"]["requiredCapabilities"] == {"sampling": {}}


def test_logging_tool_is_silent_without_log_level() -> None:
    server = build_demo_server()
    sent: list[str] = []

    async def notify(method: str, params: dict[str, Any]) -> None:
        sent.append(method)

    async def go(extra: dict[str, Any]) -> dict[str, Any] | None:
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "test_logging_tool", "arguments": {}, "_meta": meta({}, **extra)}}
        return await server.handle(message, Session(), notify)

    assert asyncio.run(go({}))["result"]["content"]  # type: ignore[index]
    assert sent == []
    asyncio.run(go({"io.modelcontextprotocol/logLevel": "info"}))
    assert sent == ["notifications/message", "notifications/message"]


@pytest.mark.parametrize("method", ["tools/list", "prompts/list", "server/discover"])
def test_listings_are_complete_and_schema_valid(method: str) -> None:
    response = call(method, {})
    assert response["result"]["resultType"] == "complete"


def test_fixtures_are_listed() -> None:
    names = {t["name"] for t in call("tools/list", {})["result"]["tools"]}
    assert {"test_missing_capability", "test_streaming_elicitation", "test_logging_tool",
            "test_input_required_result_elicitation"} <= names
