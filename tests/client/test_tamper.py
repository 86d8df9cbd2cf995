"""Each tamper leaves the original alone and breaks exactly the check it is meant to break."""

import copy
import time

import pytest

from mrtr_studio.client import tamper
from mrtr_studio.engine.state_token import Binding, StateCodec, StateRejected

CODEC = StateCodec.from_secrets("k")
BINDING = Binding("tools/call", "delete_file", {"path": "/x"}, "alice")


def retry(token: str | None = None) -> dict:
    state = token if token is not None else CODEC.mint(BINDING, "step=1", {"confirm": "elicitation/create"}, 1)
    return {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "delete_file", "arguments": {"path": "/x"},
        "inputResponses": {"confirm": {"action": "accept"}}, "requestState": state}}


def verdict(message: dict, principal: str = "alice") -> str:
    params = message["params"]
    binding = Binding(message["method"], params["name"], params.get("arguments") or {}, principal)
    try:
        CODEC.verify(params.get("requestState"), binding)
    except StateRejected as rejected:
        return rejected.reason
    return "ok"


@pytest.mark.parametrize(("make", "reason"), [
    (lambda m: tamper.flip_signature_byte(m), "signature"),
    (lambda m: tamper.flip_signature_byte(m, index=42), "signature"),
    (lambda m: tamper.flip_payload_byte(m), "signature"),
    (lambda m: tamper.edit_payload(m, "exp", int(time.time()) + 99_999), "signature"),
    (lambda m: tamper.truncate_state(m), "malformed"),
    (lambda m: tamper.drop_state(m), "malformed"),
    (lambda m: tamper.invent_state(m, principal="alice"), "signature"),
    (lambda m: tamper.change_arguments(m), "arguments"),
    (lambda m: tamper.change_arguments(m, {"path": "/etc/passwd"}), "arguments"),
    (lambda m: tamper.reuse_on_tool(m, "count_roots"), "name"),
    (lambda m: tamper.replay(m, 99), "ok"),
])
def test_each_tamper_breaks_its_check(make, reason) -> None:  # type: ignore[no-untyped-def]
    original = retry()
    before = copy.deepcopy(original)
    result = make(original)
    assert original == before, "tampers never edit their input"
    assert isinstance(result.description, str) and "\n" not in result.description and result.description
    assert verdict(result.message) == reason


def test_drop_removes_the_field() -> None:
    assert "requestState" not in tamper.drop_state(retry()).message["params"]


def test_swap_uses_the_other_operations_state() -> None:
    other = CODEC.mint(Binding("tools/call", "deploy_wizard", {}, "alice"), None, {}, 1)
    result = tamper.swap_state(retry(), other, "operation 42")
    assert result.message["params"]["requestState"] == other
    assert "operation 42" in result.description
    assert verdict(result.message) == "name"


def test_replays_keep_everything_but_the_id() -> None:
    original = retry()
    first, second = tamper.replay(original, 10), tamper.replay(original, 11)
    assert (first.message["id"], second.message["id"]) == (10, 11)
    assert first.message["params"] == second.message["params"] == original["params"]
    assert first.message is not original and original["id"] not in (10, 11)


def test_other_principal_is_not_a_message_edit() -> None:
    assert verdict(retry(), principal="bob") == "principal"


def test_tampers_need_a_state() -> None:
    bare = tamper.drop_state(retry()).message
    with pytest.raises(ValueError):
        tamper.flip_signature_byte(bare)
    with pytest.raises(ValueError):
        tamper.truncate_state(bare)
    assert tamper.state_of(bare) is None
