"""Hostile form schemas: catastrophic patterns, absurd lengths, huge and deep schemas stay bounded."""

from typing import Any

from mrtr_studio.client.forms import auto_responses, default_content, parse_schema, validate_content
from mrtr_studio.client.forms.schema_limits import (
    MAX_FORM_FIELDS,
    MAX_GENERATED_LENGTH,
    MAX_SCHEMA_DEPTH,
    schema_size_problem,
)
from mrtr_studio.client.forms.validation import FORM_KEY

SLOW = "^(a|a)*$"  # exponential backtracking on a backtracking engine, whatever the engine's optimisations


def string_field(**constraints: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"word": {"type": "string", **constraints}}, "required": ["word"]}


def deep_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def wide_schema(count: int) -> dict[str, Any]:
    return {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(count)}}


def test_a_catastrophic_pattern_is_reported_not_waited_for():
    errors = validate_content(string_field(pattern=SLOW), {"word": "a" * 40 + "!"})
    assert list(errors) == ["word"]
    assert "takes too long to check" in errors["word"][0]


def test_the_classic_nested_quantifier_still_gives_a_verdict():
    schema = string_field(pattern="^(a+)+$")
    assert validate_content(schema, {"word": "a" * 29 + "!"}) == {"word": ["Must match the pattern ^(a+)+$."]}
    assert validate_content(schema, {"word": "a" * 29}) == {}


def test_pattern_properties_are_bounded_too():
    schema = {"type": "object", "patternProperties": {SLOW: {"type": "integer"}}, "additionalProperties": False}
    errors = validate_content(schema, {"a" * 40 + "!": 1})
    assert any("takes too long" in message for message in errors[FORM_KEY])
    plain = {"type": "object", "patternProperties": {"^n_": {"type": "integer"}}, "additionalProperties": False}
    assert validate_content(plain, {"n_a": 1}) == {}
    assert validate_content(plain, {"n_a": "x"}) == {"n_a": ["Must be a whole number."]}
    assert FORM_KEY in validate_content(plain, {"other": 1})


def test_an_invalid_pattern_is_said():
    errors = validate_content(string_field(pattern="(unclosed"), {"word": "x"})
    assert errors and all("pattern" in " ".join(v) for v in errors.values())


def test_the_automatic_answerer_survives_a_catastrophic_default():
    schema = {"type": "object", "properties": {"word": {"type": "string", "pattern": SLOW, "default": "a" * 40 + "!"}},
              "required": ["word"]}
    answers = auto_responses({"ask": {"method": "elicitation/create",
                                      "params": {"message": "?", "requestedSchema": schema}}})
    assert answers["ask"]["action"] == "accept"
    assert answers["ask"]["content"]["word"] != "a" * 40 + "!"  # the unverifiable default is not trusted


def test_no_terabyte_string_is_generated():
    content = default_content(string_field(minLength=10**12))
    assert "word" not in content
    assert len(default_content(string_field(minLength=MAX_GENERATED_LENGTH))["word"]) == MAX_GENERATED_LENGTH
    assert validate_content(string_field(minLength=10**12), {"word": "short"}) == {
        "word": [f"Must be at least {10**12} characters long."]}


def test_deep_and_wide_schemas_are_too_large_to_render():
    for schema in (deep_schema(2000), deep_schema(MAX_SCHEMA_DEPTH + 1), wide_schema(20_000),
                   wide_schema(MAX_FORM_FIELDS + 1)):
        problem = schema_size_problem(schema)
        assert problem and problem.startswith("schema too large to render")
        form = parse_schema(schema)
        assert form.raw and form.fields == [] and "schema too large to render" in form.notes[0]
        assert validate_content(schema, {"x": 1}) == {}  # not checked, and said so in the form's note
        assert default_content(schema) == {}
    assert schema_size_problem(wide_schema(MAX_FORM_FIELDS)) is None
    assert not parse_schema(wide_schema(MAX_FORM_FIELDS)).raw
