"""Answers count only for questions the verified state asked; single-use states cannot be replayed."""

import asyncio

import pytest

from mrtr_studio.engine import MrtrOptions, ServerOptions
from mrtr_studio.scenarios import build_demo_server
from tests.engine.wire import Wire, accept

pytestmark = pytest.mark.anyio
CONFIRM = {"confirm": accept(confirm=True)}


def explaining() -> Wire:
    return Wire(build_demo_server(ServerOptions(mrtr=MrtrOptions(explain_rejections=True))))


async def test_answers_without_a_state_are_ignored_and_asked_again() -> None:
    wire = explaining()
    reply = await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM)
    assert reply["result"]["resultType"] == "input_required"
    assert list(reply["result"]["inputRequests"]) == ["confirm"]


async def test_answers_to_questions_not_asked_in_this_state_are_ignored() -> None:
    wire = explaining()
    first = (await wire.call("deploy_wizard"))["result"]
    # Round 1 asked only `environment`; pre-answering later steps must not skip them.
    reply = await wire.call("deploy_wizard", state=first["requestState"], responses={
        "environment": accept(environment="staging"), "version": accept(version="9.9"),
        "confirm": accept(confirm=True)})
    assert list(reply["result"]["inputRequests"]) == ["version"]


async def test_option_off_lets_answers_through_without_state() -> None:
    wire = Wire(build_demo_server(ServerOptions(mrtr=MrtrOptions(bind_inputs_to_state=False))))
    reply = await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM)
    assert reply["result"]["content"][0]["text"] == "File deleted"


async def test_single_use_state_cannot_complete_twice() -> None:
    wire = explaining()
    token = (await wire.call("delete_file", {"path": "/a"}))["result"]["requestState"]
    done = await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token)
    assert done["result"]["content"][0]["text"] == "File deleted"
    again = await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token)
    assert again["error"]["code"] == -32602
    assert again["error"]["data"]["reason"] == "replayed"


async def test_concurrent_replays_complete_at_most_once() -> None:
    wire = explaining()
    server = wire.server
    gate = asyncio.Event()
    original = server.registry.tools["delete_file"].handler

    async def slow(session, request, response):  # type: ignore[no-untyped-def]
        if request.has_input_response("confirm"):
            await gate.wait()
        original(session, request, response)

    server.registry.tools["delete_file"].handler = slow
    token = (await wire.call("delete_file", {"path": "/a"}))["result"]["requestState"]
    racing = [asyncio.ensure_future(wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token))
              for _ in range(3)]
    await asyncio.sleep(0.05)
    gate.set()
    replies = await asyncio.gather(*racing)
    assert sorted("result" in r for r in replies) == [False, False, True]
    assert {r["error"]["data"]["reason"] for r in replies if "error" in r} == {"replayed"}


async def test_a_state_that_only_re_asked_stays_usable() -> None:
    wire = explaining()
    token = (await wire.call("delete_file", {"path": "/a"}))["result"]["requestState"]
    asked_again = await wire.call("delete_file", {"path": "/a"}, responses={}, state=token)
    assert asked_again["result"]["resultType"] == "input_required"
    done = await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token)
    assert done["result"]["content"][0]["text"] == "File deleted"


async def test_tools_that_are_not_single_use_may_be_retried() -> None:
    wire = explaining()
    asked = (await wire.call("summarize", {"text": "t"}))["result"]
    answer = {"summary": {"role": "assistant", "content": {"type": "text", "text": "s"}, "model": "m"}}
    for _ in range(2):
        reply = await wire.call("summarize", {"text": "t"}, responses=answer, state=asked["requestState"])
        assert reply["result"]["content"][0]["text"] == "Summary: s"
