"""Params the transport decoded from JSON text skip the proof that they are JSON values, never the
depth bound: 32 levels pass, 33 are refused naming the field, and brackets inside strings only send
a value to the exact check, which passes it. A text with few brackets needs no depth check at all."""

import orjson
import pytest

from mrtr_studio.engine.values import check_params
from mrtr_studio.protocol.errors import McpError


def decoded(params: dict) -> tuple[dict, int]:
    """Params as the HTTP reader hands them over, and the brackets of the message that held them."""
    text = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    return orjson.loads(text)["params"], text.count(b"[") + text.count(b"{")


def nested(levels: int) -> dict:
    value: object = 1
    for _ in range(levels):
        value = {"a": value}
    return {"arguments": value}


def test_the_depth_bound_holds_for_decoded_params() -> None:
    params, brackets = decoded(nested(32))
    check_params(params, 32, brackets=brackets)
    params, brackets = decoded(nested(33))
    with pytest.raises(McpError) as refused:
        check_params(params, 32, brackets=brackets)
    assert refused.value.code == -32602 and "arguments is nested deeper than 32 levels" in refused.value.message


def test_brackets_in_strings_are_not_levels() -> None:
    params, brackets = decoded({"arguments": {"text": "[{" * 50}})
    assert brackets > 100
    check_params(params, 32, brackets=brackets)


def test_a_count_within_the_bound_is_trusted_and_one_past_it_is_checked() -> None:
    """The count is the proof: a value deeper than the count it comes with is not looked at (so the
    count must be the message's own), and one more bracket than the bound allows gets the check."""
    params, brackets = decoded(nested(33))
    check_params(params, 32, brackets=34)  # what a message with 32 levels of arguments would have
    with pytest.raises(McpError):
        check_params(params, 32, brackets=35)
    assert brackets == 35
