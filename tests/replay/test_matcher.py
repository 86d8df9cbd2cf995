"""The matcher alone (no I/O): which recorded round a request is, strictly or loosely, and the nearest
recorded request with the difference when none is."""

from mrtr_studio.replay.matcher import Incoming, Matcher, Mismatch, Position
from mrtr_studio.replay.recording import RecordedFlow, RecordedRound


def request(name: str, arguments: dict, answers: dict | None = None, msg_id: int = 1) -> dict:
    params: dict = {"name": name, "arguments": arguments}
    if answers is not None:
        params["inputResponses"] = answers
    return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": params}


def asking(key: str, state: str | None) -> dict:
    body: dict = {"resultType": "input_required", "inputRequests": {key: {"method": "elicitation/create"}}}
    if state is not None:
        body["requestState"] = state
    return {"jsonrpc": "2.0", "id": 1, "result": body}


DONE = {"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "content": []}}
YES = {"action": "accept", "content": {"confirm": True}}


def flow(op: str, path: str, state: str | None = "s") -> RecordedFlow:
    return RecordedFlow(op, "tools/call", "delete_file", {"path": path}, "modern", [
        RecordedRound(1, request("delete_file", {"path": path}), asking("confirm", state)),
        RecordedRound(2, request("delete_file", {"path": path}, {"confirm": YES}, 2), DONE)])


def test_first_calls_alike_take_the_recorded_flows_in_turn() -> None:
    matcher = Matcher([flow("a", "/x"), flow("b", "/x"), flow("c", "/y")])
    first = Incoming.of(request("delete_file", {"path": "/x"}))
    assert [matcher.first(first) for _ in range(3)] == [Position(0, 1), Position(1, 1), Position(0, 1)]
    assert matcher.first(Incoming.of(request("delete_file", {"path": "/y"}))) == Position(2, 1)


def test_strict_wants_the_arguments_and_exactly_the_answered_keys() -> None:
    matcher = Matcher([flow("a", "/x")])
    assert matcher.after(Position(0, 1), Incoming.of(request("delete_file", {"path": "/x"}, {"confirm": YES}))) \
        == Position(0, 2)
    extra = matcher.after(Position(0, 1), Incoming.of(request("delete_file", {"path": "/x"},
                                                              {"confirm": YES, "more": {}})))
    assert isinstance(extra, Mismatch) and extra.code == -32602
    assert extra.data["differences"] == ["the answered input keys are {confirm, more}, recorded {confirm}"]
    other = matcher.first(Incoming.of(request("delete_file", {"path": "/z", "force": True})))
    assert isinstance(other, Mismatch)
    assert other.data["differences"] == ["arguments.force is true, not in the recording",
                                         'arguments.path is "/z", recorded "/x"']
    assert other.data["nearest"]["operation"] == "a" and other.data["nearest"]["round"] == 1


def test_loose_ignores_arguments_and_accepts_answers_covering_the_recorded_keys() -> None:
    matcher = Matcher([flow("a", "/x")], strict=False)
    assert matcher.first(Incoming.of(request("delete_file", {"path": "/z"}))) == Position(0, 1)
    assert matcher.after(Position(0, 1), Incoming.of(request("delete_file", {}, {"confirm": YES, "x": {}}))) \
        == Position(0, 2)
    missing = matcher.after(Position(0, 1), Incoming.of(request("delete_file", {}, {})))
    assert isinstance(missing, Mismatch)


def test_an_unrecorded_method_is_32601_and_past_the_end_is_32602() -> None:
    matcher = Matcher([flow("a", "/x")])
    prompt = matcher.first(Incoming("prompts/get", "review", {}, frozenset()))
    assert isinstance(prompt, Mismatch) and prompt.code == -32601
    after_end = matcher.after(Position(0, 2), Incoming.of(request("delete_file", {"path": "/x"}, {"confirm": YES})))
    assert isinstance(after_end, Mismatch) and "ends at round 2" in after_end.message


def test_a_retry_without_state_matches_a_recorded_round_whose_server_sent_none() -> None:
    stateless = Matcher([flow("a", "/x", state=None)])
    retry = Incoming.of(request("delete_file", {"path": "/x"}, {"confirm": YES}))
    assert stateless.retry_without_state(retry) == Position(0, 2)
    with_state = Matcher([flow("a", "/x", state="s")])
    assert isinstance(with_state.retry_without_state(retry), Mismatch)
    assert with_state.retry_without_state(retry, any_state=True) == Position(0, 2)
