"""Multi-round flows, several inputs in one round, prompts and resources that ask."""

import json

import pytest

from mrtr_studio.engine.state_token import decode
from mrtr_studio.scenarios import build_demo_server
from tests.engine.wire import Wire, accept

pytestmark = pytest.mark.anyio


async def test_wizard_three_rounds_state_changes_every_round() -> None:
    wire = Wire(build_demo_server())
    states: list[str] = []
    reply = await wire.call("deploy_wizard")
    answers = [("environment", accept(environment="production")), ("version", accept(version="2.4.1")),
               ("confirm", accept(confirm=True))]
    for key, answer in answers:
        result = reply["result"]
        assert result["resultType"] == "input_required"
        assert list(result["inputRequests"]) == [key]
        states.append(result["requestState"])
        reply = await wire.call("deploy_wizard", responses={key: answer}, state=result["requestState"])
    assert reply["result"]["content"] == [{"type": "text", "text": "Deployed 2.4.1 to production"}]
    assert len(set(states)) == 3
    carried = [json.loads(decode(s).payload["s"]) for s in states]
    assert carried == [{"step": 0}, {"step": 1, "environment": "production"},
                       {"step": 2, "environment": "production", "version": "2.4.1"}]
    assert [decode(s).payload["r"] for s in states] == [1, 2, 3]


async def test_wizard_declined_midway_is_cancelled() -> None:
    wire = Wire(build_demo_server())
    first = (await wire.call("deploy_wizard"))["result"]
    second = (await wire.call("deploy_wizard", responses={"environment": accept(environment="staging")},
                              state=first["requestState"]))["result"]
    done = await wire.call("deploy_wizard", responses={"version": {"action": "decline"}},
                           state=second["requestState"])
    assert done["result"]["content"][0]["text"] == "Deployment cancelled"


async def test_several_inputs_in_one_round_answered_together() -> None:
    server = build_demo_server()

    @server.tool("onboard")
    def onboard(session, request, response):  # type: ignore[no-untyped-def]
        keys = ("name", "motto", "roots")
        if not all(request.has_input_response(k) for k in keys):
            response.input_required.add_elicitation("name", "Your name?", {
                "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
            response.input_required.add_sampling("motto", [{"role": "user", "content": {"type": "text",
                                                                                          "text": "A motto"}}])
            response.input_required.add_roots("roots")
            return
        name = request.input_response_value("name")["content"]["name"]
        motto = request.input_response_value("motto")["content"]["text"]
        roots = len(request.input_response_value("roots")["roots"])
        response.result.content.add_text(f"{name}: {motto} ({roots} roots)")

    wire = Wire(server)
    asked = (await wire.call("onboard"))["result"]
    assert {k: v["method"] for k, v in asked["inputRequests"].items()} == {
        "name": "elicitation/create", "motto": "sampling/createMessage", "roots": "roots/list"}
    done = await wire.call("onboard", state=asked["requestState"], responses={
        "name": accept(name="Ada"),
        "motto": {"role": "assistant", "content": {"type": "text", "text": "Onward"}, "model": "m"},
        "roots": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]},
    })
    assert done["result"]["content"][0]["text"] == "Ada: Onward (2 roots)"


async def test_prompt_that_asks() -> None:
    wire = Wire(build_demo_server())
    asked = (await wire.call("code_review", {"code": "x = 1"}, method="prompts/get"))["result"]
    assert asked["inputRequests"]["focus"]["method"] == "elicitation/create"
    done = await wire.call("code_review", {"code": "x = 1"}, method="prompts/get",
                           responses={"focus": accept(focus="security")}, state=asked["requestState"])
    assert done["result"]["description"] == "Code review focused on security"
    text = done["result"]["messages"][0]["content"]["text"]
    assert text.startswith("Please review this code with a focus on security")


async def test_resource_that_asks() -> None:
    wire = Wire(build_demo_server())
    asked = (await wire.call("config://secrets", method="resources/read"))["result"]
    assert list(asked["inputRequests"]) == ["reveal"]
    done = await wire.call("config://secrets", method="resources/read",
                           responses={"reveal": accept(confirm=True)}, state=asked["requestState"])
    assert done["result"]["contents"][0]["text"].startswith("API_KEY=")
    assert done["result"]["cacheScope"] == "private"


async def test_sampling_and_url_mode() -> None:
    wire = Wire(build_demo_server())
    asked = (await wire.call("summarize", {"text": "long text"}))["result"]
    params = asked["inputRequests"]["summary"]["params"]
    assert params["maxTokens"] == 200 and params["systemPrompt"] == "You write one-sentence summaries."
    done = await wire.call("summarize", {"text": "long text"}, state=asked["requestState"], responses={
        "summary": {"role": "assistant", "content": {"type": "text", "text": "Short."}, "model": "m"}})
    assert done["result"]["content"][0]["text"] == "Summary: Short."
    asked = (await wire.call("connect_account", {"service": "gitlab"}))["result"]
    url = asked["inputRequests"]["consent"]["params"]
    assert url["mode"] == "url" and url["url"] == "https://auth.example.com/connect?service=gitlab"
    done = await wire.call("connect_account", {"service": "gitlab"}, state=asked["requestState"],
                           responses={"consent": {"action": "accept"}})
    assert done["result"]["content"][0]["text"] == "Account connected"


async def test_resource_template_that_asks() -> None:
    wire = Wire(build_demo_server())
    listed = await wire.send("resources/templates/list", {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}})
    assert "notes://{topic}" in [t["uriTemplate"] for t in listed["result"]["resourceTemplates"]]
    asked = (await wire.call("notes://mrtr", method="resources/read"))["result"]
    assert list(asked["inputRequests"]) == ["detail"]
    done = await wire.call("notes://mrtr", method="resources/read", responses={"detail": accept(detail="full")},
                           state=asked["requestState"])
    contents = done["result"]["contents"][0]
    assert contents["uri"] == "notes://mrtr"
    assert contents["text"].startswith("Notes on mrtr:") and "Full version" in contents["text"]
