"""Params the transport decoded from JSON text skip the proof that they are JSON values, never the
depth bound: 32 levels pass, 33 are refused naming the field, and brackets inside strings only send
a value to the exact check, which passes it."""

import orjson
import pytest

from mrtr_studio.engine.values import check_params
from mrtr_studio.protocol.errors import McpError


def nested(levels: int) -> dict:
    value: object = 1
    for _ in range(levels):
        value = {"a": value}
    return orjson.loads(orjson.dumps({"arguments": value}))  # as the HTTP reader hands them over


def test_the_depth_bound_holds_for_decoded_params() -> None:
    check_params(nested(32), 32, decoded=True)
    with pytest.raises(McpError) as refused:
        check_params(nested(33), 32, decoded=True)
    assert refused.value.code == -32602 and "arguments is nested deeper than 32 levels" in refused.value.message


def test_brackets_in_strings_are_not_levels() -> None:
    check_params(orjson.loads(orjson.dumps({"arguments": {"text": "[{" * 50}})), 32, decoded=True)
