"""The reference fixtures the suite's non-MRTR scenarios call, run in memory on both eras.

Each answer is checked against the official schema of its era (the suite's `wire-schema-valid`
check) and against what the scenario texts specify.
"""

import asyncio
import json
from typing import Any

import pytest

from mrtr_studio.engine import Session
from mrtr_studio.protocol import jsonrpc
from mrtr_studio.protocol.schema import message_problems
from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.scenarios.reference import DEFAULTS_SCHEMA, ENUMS_SCHEMA, JSON_SCHEMA_2020_12, PNG_BASE64
from tests.engine.wire import Wire, meta

pytestmark = pytest.mark.anyio
LEGACY = "2025-11-25"


async def tool(name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    reply = await Wire(build_demo_server()).call(name, arguments or {})
    assert "result" in reply, reply
    return dict(reply["result"])


@pytest.mark.parametrize(("name", "content"), [
    ("test_simple_text", [{"type": "text", "text": "This is a simple text response for testing."}]),
    ("test_image_content", [{"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}]),
    ("test_embedded_resource", [{"type": "resource", "resource": {
        "uri": "test://embedded-resource", "mimeType": "text/plain",
        "text": "This is an embedded resource content."}}]),
])
async def test_content_tools(name: str, content: list[dict[str, Any]]) -> None:
    result = await tool(name)
    assert result["content"] == content and result["resultType"] == "complete"


async def test_audio_and_mixed_content() -> None:
    audio = (await tool("test_audio_content"))["content"]
    assert [c["type"] for c in audio] == ["audio"] and audio[0]["mimeType"] == "audio/wav"
    mixed = (await tool("test_multiple_content_types"))["content"]
    assert [c["type"] for c in mixed] == ["text", "image", "resource"]
    assert json.loads(mixed[2]["resource"]["text"]) == {"test": "data", "value": 123}


async def test_error_handling_is_a_tool_error_not_a_protocol_error() -> None:
    result = await tool("test_error_handling")
    assert result["isError"] is True
    assert result["content"][0]["text"] == "This tool intentionally returns an error for testing"


async def test_json_schema_2020_12_is_listed_untouched() -> None:
    listed = await Wire(build_demo_server()).send("tools/list", {"_meta": meta()})
    found = [t for t in listed["result"]["tools"] if t["name"] == "json_schema_2020_12_tool"]
    assert found and found[0]["inputSchema"] == JSON_SCHEMA_2020_12
    result = await tool("json_schema_2020_12_tool", {"name": "Ada", "email": "a@b.c"})
    assert result["content"][0]["text"] == 'JSON Schema 2020-12 tool called with: {"name":"Ada","email":"a@b.c"}'


async def test_progress_goes_out_only_for_a_progress_token() -> None:
    server = build_demo_server()
    sent: list[dict[str, Any]] = []

    async def notify(method: str, params: dict[str, Any]) -> None:
        message = jsonrpc.notification(method, params)
        assert message_problems(message) == []
        sent.append(message)

    for token in (None, "progress-test-1"):
        params: dict[str, Any] = {"name": "test_tool_with_progress", "arguments": {}, "_meta": meta()}
        if token:
            params["_meta"]["progressToken"] = token
        reply = await server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params},
                                    Session(), notify)
        assert reply is not None and reply["result"]["resultType"] == "complete"
    assert [(n["params"]["progressToken"], n["params"]["progress"], n["params"]["total"]) for n in sent] == [
        ("progress-test-1", 0, 100), ("progress-test-1", 50, 100), ("progress-test-1", 100, 100)]


# --- asking the client ----------------------------------------------------------------------------

async def test_sampling_is_mrtr_on_2026() -> None:
    wire = Wire(build_demo_server())
    asked = (await wire.call("test_sampling", {"prompt": "Test prompt for sampling"}))["result"]
    request = asked["inputRequests"]["sample"]
    assert request["method"] == "sampling/createMessage" and request["params"]["maxTokens"] == 100
    assert request["params"]["messages"][0]["content"]["text"] == "Test prompt for sampling"
    answer = {"role": "assistant", "content": {"type": "text", "text": "Paris."}, "model": "m",
              "stopReason": "endTurn"}
    done = await wire.call("test_sampling", {"prompt": "Test prompt for sampling"}, responses={"sample": answer},
                           state=asked["requestState"])
    assert done["result"]["content"][0]["text"] == "LLM response: Paris."
    refused = await wire.call("test_sampling", {"prompt": "x"}, caps={})
    assert refused["error"]["code"] == -32021


class LegacyClient:
    """A 2025-11-25 session whose client answers server-initiated requests the way `answers` says."""

    def __init__(self, answers: dict[str, dict[str, Any]], caps: dict[str, Any]) -> None:
        self.server = build_demo_server()
        self.answers = answers
        self.caps = caps
        self.asked: list[dict[str, Any]] = []
        self.session = self.server.open_session(outbound=self._outbound)
        self.tasks: set[asyncio.Task[None]] = set()

    async def _outbound(self, request: dict[str, Any]) -> None:
        assert message_problems(request, version=LEGACY) == [], request
        self.asked.append(request)
        task = asyncio.create_task(self.server.handle(
            jsonrpc.result(request["id"], self.answers[request["method"]]), self.session))  # type: ignore[arg-type]
        self.tasks.add(task)

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        wire = Wire(self.server)
        wire.session = self.session
        await wire.send("initialize", {"protocolVersion": LEGACY, "capabilities": self.caps,
                                       "clientInfo": {"name": "legacy", "version": "1"}}, version=LEGACY)
        reply = await wire.send("tools/call", {"name": name, "arguments": arguments}, version=LEGACY)
        return dict(reply["result"])


async def test_legacy_sampling_asks_on_the_session() -> None:
    client = LegacyClient({"sampling/createMessage": {
        "role": "assistant", "content": {"type": "text", "text": "This is a test response from the client"},
        "model": "test-model", "stopReason": "endTurn"}}, caps={"sampling": {}})
    result = await client.call("test_sampling", {"prompt": "Test prompt for sampling"})
    assert result["content"][0]["text"] == "LLM response: This is a test response from the client"
    assert [r["method"] for r in client.asked] == ["sampling/createMessage"]


async def test_legacy_elicitation_without_the_capability_is_a_tool_error() -> None:
    client = LegacyClient({}, caps={})
    result = await client.call("test_elicitation", {"message": "Please provide your information"})
    assert result["isError"] is True and client.asked == []


@pytest.mark.parametrize(("name", "schema"), [("test_elicitation_sep1034_defaults", DEFAULTS_SCHEMA),
                                              ("test_elicitation_sep1330_enums", ENUMS_SCHEMA)])
async def test_legacy_elicitation_forms(name: str, schema: dict[str, Any]) -> None:
    client = LegacyClient({"elicitation/create": {"action": "accept", "content": {"name": "Jane Smith"}}},
                          caps={"elicitation": {}})
    result = await client.call(name, {})
    assert client.asked[0]["params"]["requestedSchema"] == schema
    assert result["content"][0]["text"] == 'Elicitation completed: action=accept, content={"name":"Jane Smith"}'


# --- prompts and resources ------------------------------------------------------------------------

async def prompt(name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return await Wire(build_demo_server()).call(name, arguments or {}, method="prompts/get")


async def test_prompts() -> None:
    with_args = (await prompt("test_prompt_with_arguments", {"arg1": "hello", "arg2": "world"}))["result"]
    assert with_args["messages"][0]["content"]["text"] == "Prompt with arguments: arg1='hello', arg2='world'"
    embedded = (await prompt("test_prompt_with_embedded_resource", {"resourceUri": "test://x"}))["result"]
    assert embedded["messages"][0]["content"]["resource"]["uri"] == "test://x"
    image = (await prompt("test_prompt_with_image"))["result"]
    assert image["messages"][0]["content"] == {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}
    simple = (await prompt("test_simple_prompt"))["result"]
    assert simple["messages"] == [{"role": "user", "content": {"type": "text",
                                                               "text": "This is a simple prompt for testing."}}]
    missing = await prompt("test_prompt_with_arguments", {"arg1": "only"})
    assert missing["error"]["code"] == -32602 and "arg2" in missing["error"]["message"]


async def test_resources_and_the_template() -> None:
    wire = Wire(build_demo_server())
    text = (await wire.call("test://static-text", method="resources/read"))["result"]
    assert text["contents"] == [{"uri": "test://static-text", "mimeType": "text/plain",
                                 "text": "This is the content of the static text resource."}]
    blob = (await wire.call("test://static-binary", method="resources/read"))["result"]
    assert blob["contents"][0]["blob"] == PNG_BASE64
    templated = (await wire.call("test://template/123/data", method="resources/read"))["result"]
    assert templated["contents"][0]["uri"] == "test://template/123/data"
    assert json.loads(templated["contents"][0]["text"]) == {"id": "123", "templateTest": True,
                                                            "data": "Data for ID: 123"}


async def test_the_first_listed_resource_reads_complete_and_cacheable() -> None:
    wire = Wire(build_demo_server())
    first = (await wire.send("resources/list", {"_meta": meta()}))["result"]["resources"][0]["uri"]
    read = (await wire.call(first, method="resources/read"))["result"]
    assert read["resultType"] == "complete" and "ttlMs" in read and "cacheScope" in read


async def test_demo_tools_are_listed_before_the_fixtures() -> None:
    tools = (await Wire(build_demo_server()).send("tools/list", {"_meta": meta()}))["result"]["tools"]
    names = [t["name"] for t in tools]
    first_fixture = next(i for i, name in enumerate(names) if name.startswith(("test_", "json_schema")))
    assert all(name.startswith(("test_", "json_schema")) for name in names[first_fixture:]), names
    assert names[0] == "delete_file"
