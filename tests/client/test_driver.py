"""The round-trip loop with scripted dispatch/retry: no sockets, every rule of the spec's client side."""

import json
from typing import Any

import pytest

from mrtr_studio.client.driver import DriveResult, IdSource, build_retry, drive, retry_with
from mrtr_studio.client.responders import table

pytestmark = pytest.mark.anyio

ELICIT = {"method": "elicitation/create", "params": {"mode": "form", "message": "Sure?", "requestedSchema": {
    "type": "object", "properties": {"ok": {"type": "boolean"}}}}}
SAMPLE = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}
ANSWERS = {
    "confirm": {"action": "accept", "content": {"ok": True}},
    "llm": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"},
}


def first_call(msg_id: int | str = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call",
            "params": {"name": "t", "arguments": {"x": 1}, "_meta": {"k": "v"}}}


def input_required(msg_id: Any, requests: dict[str, Any] | None = None, state: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"resultType": "input_required"}
    if requests is not None:
        body["inputRequests"] = requests
    if state is not None:
        body["requestState"] = state
    return {"jsonrpc": "2.0", "id": msg_id, "result": body}


def complete(msg_id: Any, text: str = "done", result_type: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if result_type:
        body["resultType"] = "complete"
    return {"jsonrpc": "2.0", "id": msg_id, "result": body}


class Script:
    """A dispatch that answers from a list of functions of the request it receives."""

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)
        self.sent: list[dict[str, Any]] = []

    async def __call__(self, message: dict[str, Any]) -> dict[str, Any] | None:
        self.sent.append(json.loads(json.dumps(message)))
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply(message) if callable(reply) else reply


def standard_retry(start: int = 2) -> Any:
    return retry_with(table(ANSWERS), IdSource(start=start))


async def test_two_rounds_echo_state_byte_for_byte_with_new_id() -> None:
    state = '{"nonce": "a b",  "x":[1,2]}\u00e9'
    script = Script(lambda m: input_required(m["id"], {"confirm": ELICIT}, state), lambda m: complete(m["id"]))
    result = await drive(first_call(), script, standard_retry())
    assert result.outcome == "complete"
    assert result.result == {"resultType": "complete", "content": [{"type": "text", "text": "done"}]}
    retry = script.sent[1]
    assert retry["id"] == 2 and script.sent[0]["id"] == 1
    assert retry["params"]["requestState"] == state
    assert retry["params"]["inputResponses"] == {"confirm": ANSWERS["confirm"]}
    assert retry["params"]["name"] == "t" and retry["params"]["arguments"] == {"x": 1}
    assert retry["params"]["_meta"] == {"k": "v"}
    assert [r.request["id"] for r in result.rounds] == [1, 2]


async def test_no_state_sent_means_no_state_key_in_retry() -> None:
    script = Script(lambda m: input_required(m["id"], {"confirm": ELICIT}), lambda m: complete(m["id"]))
    await drive(first_call(), script, standard_retry())
    assert "requestState" not in script.sent[1]["params"]


async def test_state_from_an_earlier_round_is_not_carried_into_a_round_without_one() -> None:
    script = Script(lambda m: input_required(m["id"], {"confirm": ELICIT}, "s1"),
                    lambda m: input_required(m["id"], {"confirm": ELICIT}),
                    lambda m: complete(m["id"]))
    result = await drive(first_call(), script, standard_retry())
    assert result.ok
    assert script.sent[1]["params"]["requestState"] == "s1"
    assert "requestState" not in script.sent[2]["params"]
    assert [m["id"] for m in script.sent] == [1, 2, 3]


async def test_several_requests_in_one_round_are_answered_together_keyed_alike() -> None:
    script = Script(lambda m: input_required(m["id"], {"confirm": ELICIT, "llm": SAMPLE}, "s"),
                    lambda m: complete(m["id"]))
    await drive(first_call(), script, standard_retry())
    assert script.sent[1]["params"]["inputResponses"] == ANSWERS


async def test_state_only_round_retries_without_input_responses() -> None:
    script = Script(lambda m: input_required(m["id"], state="wait"), lambda m: complete(m["id"]))
    result = await drive(first_call(), script, standard_retry())
    assert result.ok
    assert script.sent[1]["params"]["requestState"] == "wait"
    assert "inputResponses" not in script.sent[1]["params"]


async def test_absent_result_type_is_complete_and_not_retried() -> None:
    script = Script(lambda m: complete(m["id"], "legacy", result_type=False))
    result = await drive(first_call(), script, standard_retry())
    assert result.outcome == "complete"
    assert result.result == {"content": [{"type": "text", "text": "legacy"}]}
    assert len(script.sent) == 1


async def test_json_rpc_error_ends_the_operation() -> None:
    error = {"code": -32602, "message": "Invalid requestState"}
    script = Script(lambda m: {"jsonrpc": "2.0", "id": m["id"], "error": error})
    result = await drive(first_call(), script, standard_retry())
    assert (result.outcome, result.error) == ("error", error)


async def test_unknown_result_type_is_a_protocol_error() -> None:
    script = Script(lambda m: {"jsonrpc": "2.0", "id": m["id"], "result": {"resultType": "later"}})
    result = await drive(first_call(), script, standard_retry())
    assert (result.outcome, result.problem) == ("protocol_error", "unknown resultType 'later'")


async def test_a_task_result_is_accepted_only_when_the_client_declared_tasks() -> None:
    def script() -> Script:
        return Script(lambda m: {"jsonrpc": "2.0", "id": m["id"], "result": {"resultType": "task", "taskId": "t"}})

    result = await drive(first_call(), script(), standard_retry())
    assert result.outcome == "protocol_error" and "did not declare the tasks extension" in (result.problem or "")
    result = await drive(first_call(), script(), standard_retry(), accept_tasks=True)
    assert result.outcome == "task" and result.result == {"resultType": "task", "taskId": "t"}
    nameless = Script(lambda m: {"jsonrpc": "2.0", "id": m["id"], "result": {"resultType": "task"}})
    result = await drive(first_call(), nameless, standard_retry(), accept_tasks=True)
    assert (result.outcome, result.problem) == ("protocol_error", "a task result without a string taskId")


@pytest.mark.parametrize(("reply", "problem"), [
    ("garbage", "the server sent no JSON-RPC response"),
    (None, "the server sent no JSON-RPC response"),
    ({"jsonrpc": "2.0", "id": 1}, "the response has neither a result object nor an error"),
    ({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required"}},
     "input_required with neither inputRequests nor requestState"),
    ({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": []}},
     "inputRequests is not an object"),
    ({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": 5}},
     "requestState is not a string"),
    ({"jsonrpc": "2.0", "id": 7, "result": {"resultType": "complete"}}, "response id 7 does not answer request id 1"),
    ({"jsonrpc": "2.0", "id": 1, "error": None},
     "the response's error is null, not an object with an integer code and a message"),
    ({"jsonrpc": "2.0", "id": 1, "error": "boom"},
     "the response's error is \"boom\", not an object with an integer code and a message"),
    ({"jsonrpc": "2.0", "id": 1, "error": {"code": "abc", "message": "x"}},
     "the response's error is {\"code\": \"abc\", \"message\": \"x\"}, not an object with an integer code and a "
     "message"),
    ({"jsonrpc": "2.0", "id": 1, "result": {"content": 5}}, "the tools/call result's content is 5, not a list"),
])
async def test_broken_responses_are_protocol_errors(reply: Any, problem: str) -> None:
    result = await drive(first_call(), Script(reply), standard_retry())
    assert (result.outcome, result.problem) == ("protocol_error", problem)


@pytest.mark.parametrize(("answer_id", "said"), [(None, "without id"), ("server-error", 'for id "server-error"')])
async def test_an_error_that_names_no_request_still_ends_the_operation_as_the_servers_error(
        answer_id: Any, said: str) -> None:
    error = {"code": -32000, "message": "Bad Request: Server not initialized"}
    result = await drive(first_call(2), Script({"jsonrpc": "2.0", "id": answer_id, "error": error}), standard_retry())
    assert (result.outcome, result.error) == ("error", error)
    assert result.problem == f"the server answered with an error {said} instead of id 2"


async def test_round_limit_stops_a_looping_server() -> None:
    script = Script(*[lambda m: input_required(m["id"], {"confirm": ELICIT}, "again")] * 3)
    result = await drive(first_call(), script, standard_retry(), max_rounds=3)
    assert (result.outcome, result.problem) == ("round_limit", "still input_required after 3 rounds (the round limit)")
    assert len(script.sent) == 3


async def test_transport_failure_is_reported_not_raised() -> None:
    result = await drive(first_call(), Script(ConnectionError("connection dropped")), standard_retry())
    assert (result.outcome, result.problem) == ("transport_error", "ConnectionError: connection dropped")


async def test_retry_reusing_an_id_is_refused_before_sending() -> None:
    script = Script(lambda m: input_required(m["id"], {"confirm": ELICIT}, "s"))
    result = await drive(first_call(), script, standard_retry(start=1))
    assert (result.outcome, result.problem) == ("protocol_error", "retry reuses JSON-RPC id 1")
    assert len(script.sent) == 1


async def test_unanswerable_request_aborts_with_the_reason() -> None:
    odd = {"method": "x/unknown", "params": {}}
    script = Script(lambda m: input_required(m["id"], {"weird": odd}, "s"))
    result = await drive(first_call(), script, retry_with(table({}), IdSource(start=2)))
    assert result.outcome == "aborted"
    assert result.problem == ("could not answer round 1: the answers file has no entry for 'weird' (x/unknown) "
                              "and no '*' fallback")


async def test_giving_up_is_aborted() -> None:
    async def give_up(original: Any, body: Any, n: int) -> None:
        return None

    result = await drive(first_call(), Script(lambda m: input_required(m["id"], state="s")), give_up)
    assert (result.outcome, result.problem) == ("aborted", "the client gave up before retrying")


async def test_parallel_operations_never_share_mrtr_data() -> None:
    """Two interleaved flows on one id source: each retry carries only its own state and answers."""
    ids = IdSource()
    import asyncio

    gate = asyncio.Event()

    async def dispatch_a(m: dict[str, Any]) -> dict[str, Any]:
        if "requestState" not in m["params"]:
            await gate.wait()
            return input_required(m["id"], {"confirm": ELICIT}, "state-A")
        return complete(m["id"], "A")

    plain: list[dict[str, Any]] = []

    async def dispatch_b(m: dict[str, Any]) -> dict[str, Any]:
        plain.append(m)
        gate.set()
        return complete(m["id"], "B")

    first_a = first_call(ids())
    first_b = {**first_call(ids()), "params": {"name": "other", "arguments": {}}}
    a, b = await asyncio.gather(drive(first_a, dispatch_a, retry_with(table(ANSWERS), ids)),
                                drive(first_b, dispatch_b, retry_with(table(ANSWERS), ids)))
    assert a.ok and b.ok
    assert plain[0]["params"] == {"name": "other", "arguments": {}}
    assert a.rounds[1].request["params"]["requestState"] == "state-A"
    assert a.rounds[1].request["id"] == 3


def test_build_retry_drops_stale_mrtr_fields_of_the_original() -> None:
    original = first_call()
    original["params"]["inputResponses"] = {"old": {}}
    original["params"]["requestState"] = "old"
    retry = build_retry(original, {"resultType": "input_required", "inputRequests": {"k": ELICIT}}, {"k": {}}, 9)
    assert retry == {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                     "params": {"name": "t", "arguments": {"x": 1}, "_meta": {"k": "v"}, "inputResponses": {"k": {}}}}


def test_drive_result_ok() -> None:
    assert DriveResult("complete").ok and not DriveResult("error").ok
