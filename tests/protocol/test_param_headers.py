"""x-mcp-header: the spec's encoding examples, every annotation rule, and body/header matching."""

import pytest

from mrtr_studio.protocol.param_headers import (
    HeaderParam,
    InvalidAnnotation,
    annotations,
    decode,
    encode,
    headers_for,
    mismatch,
)

REGION = {"type": "object", "properties": {
    "region": {"type": "string", "x-mcp-header": "Region"}, "query": {"type": "string"},
    "limits": {"type": "object", "properties": {"rows": {"type": "integer", "x-mcp-header": "Rows"},
                                                "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}}}}}


@pytest.mark.parametrize(("value", "header"), [
    ("us-west1", "us-west1"),
    ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
    (" padded ", "=?base64?IHBhZGRlZCA=?="),
    ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
    ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
])
def test_value_encoding_matches_the_spec_table(value: str, header: str) -> None:
    assert encode(value) == header
    assert decode(header) == value


def test_decoding_rejects_broken_values() -> None:
    assert decode("=?base64?not base64!?=") is None
    assert decode("bad\x01value") is None


def test_annotations_are_found_along_properties() -> None:
    assert annotations(REGION) == [HeaderParam("Region", ("region",), "string"),
                                   HeaderParam("Rows", ("limits", "rows"), "integer"),
                                   HeaderParam("Dry-Run", ("limits", "dry"), "boolean")]


@pytest.mark.parametrize(("schema", "why"), [
    ({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}, "token"),
    ({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Bad Name"}}}, "token"),
    ({"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}, "number"),
    ({"type": "object", "properties": {"a": {"type": "object", "x-mcp-header": "A"}}}, "object"),
    ({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"},
                                       "b": {"type": "string", "x-mcp-header": "a"}}}, "twice"),
    ({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}},
     "reachable"),
    ({"type": "object", "properties": {"a": {"anyOf": [{"type": "string", "x-mcp-header": "A"}]}}}, "reachable"),
    ({"type": "object", "$defs": {"x": {"type": "string", "x-mcp-header": "A"}}}, "reachable"),
])
def test_invalid_annotations_are_rejected_with_the_reason(schema: dict, why: str) -> None:
    with pytest.raises(InvalidAnnotation, match=why):
        annotations(schema)


def test_headers_for_arguments() -> None:
    params = annotations(REGION)
    assert headers_for(params, {"region": "us-west1", "limits": {"rows": 42, "dry": False}}) == {
        "Mcp-Param-Region": "us-west1", "Mcp-Param-Rows": "42", "Mcp-Param-Dry-Run": "false"}
    assert headers_for(params, {"region": None, "query": "x"}) == {}  # null and absent: no header
    with pytest.raises(InvalidAnnotation, match="JavaScript-safe"):
        headers_for(params, {"limits": {"rows": 2**60}})


def test_mismatch_rules() -> None:
    params = annotations(REGION)
    body = {"region": "us-west1", "limits": {"rows": 42}}
    assert mismatch(params, body, {"mcp-param-region": "us-west1", "mcp-param-rows": "42.0"}) is None
    assert "missing" in str(mismatch(params, body, {"mcp-param-rows": "42"}))
    assert "does not match" in str(mismatch(params, body, {"mcp-param-region": "eu", "mcp-param-rows": "42"}))
    assert "does not match" in str(mismatch(params, body, {"mcp-param-region": "us-west1", "mcp-param-rows": "x"}))
    assert mismatch(params, {"query": "x"}, {}) is None
    encoded = {"mcp-param-region": encode("Zürich"), "mcp-param-rows": "42"}
    assert mismatch(params, {**body, "region": "Zürich"}, encoded) is None
