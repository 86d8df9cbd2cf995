"""The seed's example, walked as a transcript: ask, answer, complete."""

import pytest

from mrtr_studio.scenarios import build_demo_server
from tests.engine.wire import Wire, accept

pytestmark = pytest.mark.anyio


@pytest.fixture
def wire() -> Wire:
    return Wire(build_demo_server())


async def first_round(wire: Wire) -> dict:
    reply = await wire.call("delete_file", {"path": "/tmp/report.txt"})
    result = reply["result"]
    assert result["resultType"] == "input_required"
    assert list(result["inputRequests"]) == ["confirm"]
    ask = result["inputRequests"]["confirm"]
    assert ask["method"] == "elicitation/create"
    assert ask["params"]["message"] == "Delete the file /tmp/report.txt?"
    assert ask["params"]["requestedSchema"] == {
        "type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
    assert result["requestState"].startswith("v1.")
    return result


@pytest.mark.parametrize(("answer", "text"), [
    (accept(confirm=True), "File deleted"),
    ({"action": "decline"}, "Operation cancelled"),
    ({"action": "cancel"}, "Operation cancelled"),
])
async def test_answer_decides_the_outcome(wire: Wire, answer: dict, text: str) -> None:
    asked = await first_round(wire)
    reply = await wire.call("delete_file", {"path": "/tmp/report.txt"}, responses={"confirm": answer},
                            state=asked["requestState"])
    assert reply["result"] == {"resultType": "complete", "content": [{"type": "text", "text": text}]}


async def test_retry_without_the_answer_asks_again(wire: Wire) -> None:
    asked = await first_round(wire)
    reply = await wire.call("delete_file", {"path": "/tmp/report.txt"}, responses={"other": accept(x=1)},
                            state=asked["requestState"])
    assert reply["result"]["resultType"] == "input_required"
    assert reply["result"]["requestState"] != asked["requestState"]


async def test_handler_sees_its_state_verified(wire: Wire) -> None:
    seen: list[object] = []
    server = wire.server
    original = server.registry.tools["delete_file"].handler

    def spy(session, request, response):  # type: ignore[no-untyped-def]
        seen.append((request.params.request_state, request.round))
        return original(session, request, response)

    server.registry.tools["delete_file"].handler = spy
    asked = await first_round(wire)
    await wire.call("delete_file", {"path": "/tmp/report.txt"}, responses={"confirm": accept(confirm=True)},
                    state=asked["requestState"])
    assert seen == [(None, 1), ("step=1", 2)]
