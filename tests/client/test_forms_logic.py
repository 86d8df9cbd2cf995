"""Schema parsing, validation messages, ElicitResult builders and default answers (no Qt)."""

import json
from pathlib import Path

import pytest

from mrtr_studio.client.forms import (
    FORM_KEY,
    accept,
    cancel,
    decline,
    default_content,
    default_result,
    parse_schema,
    validate_content,
)
from mrtr_studio.protocol.schema import problems

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "mcp-examples"

EVERY_FEATURE = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "Full name", "minLength": 2,
                 "maxLength": 10},
        "email": {"type": "string", "format": "email", "default": "a@example.com"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "at": {"type": "string", "format": "date-time"},
        "age": {"type": "integer", "minimum": 18, "maximum": 130},
        "score": {"type": "number", "minimum": 0.5, "maximum": 9.5},
        "ok": {"type": "boolean", "default": True},
        "color": {"type": "string", "enum": ["Red", "Green", "Blue"]},
        "hex": {"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]},
        "legacy": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "minItems": 1,
                 "maxItems": 2},
        "titled": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "Ex"},
                                                        {"const": "y", "title": "Why"}]}},
    },
    "required": ["name", "age", "color", "tags", "ok"],
}


def test_every_feature_parses_to_typed_fields():
    form = parse_schema(EVERY_FEATURE)
    assert not form.raw and not form.has_raw_fields
    kinds = {f.key: f.kind for f in form.fields}
    assert kinds == {"name": "string", "email": "string", "site": "string", "born": "string", "at": "string",
                     "age": "integer", "score": "number", "ok": "boolean", "color": "enum", "hex": "enum",
                     "legacy": "enum", "tags": "multi_enum", "titled": "multi_enum"}
    name = form.field("name")
    assert (name.title, name.description, name.required, name.min_length, name.max_length) == (
        "Name", "Full name", True, 2, 10)
    assert form.field("email").format == "email" and form.field("email").default == "a@example.com"
    assert [(o.value, o.title) for o in form.field("legacy").options] == [("s", "Small"), ("m", "Medium")]
    assert [(o.value, o.title) for o in form.field("hex").options] == [("#f00", "Red"), ("#0f0", "Green")]
    assert [(o.value, o.title) for o in form.field("titled").options] == [("x", "Ex"), ("y", "Why")]
    tags = form.field("tags")
    assert (tags.min_items, tags.max_items) == (1, 2)
    assert (form.field("score").minimum, form.field("score").maximum) == (0.5, 9.5)


@pytest.mark.parametrize(("prop", "note"), [
    ({"type": "object", "properties": {"a": {"type": "string"}}}, "type 'object' has no form editor"),
    ({"type": "array", "items": {"type": "string"}}, "array items are not a list of choices"),
    ({"$ref": "#/$defs/x"}, "no type"),
    ({"type": ["string", "null"]}, "has no form editor"),
    ({"type": "string", "oneOf": [{"type": "string"}]}, "oneOf is not a list of const/title options"),
    ({"type": "integer", "multipleOf": 5}, "unsupported keyword(s): multipleOf"),
])
def test_unsupported_properties_become_raw_fields_with_a_note(prop, note):
    form = parse_schema({"type": "object", "properties": {"p": prop, "q": {"type": "string"}}})
    assert not form.raw
    assert form.field("p").kind == "raw" and note in form.field("p").notes[0]
    assert form.field("q").kind == "string"
    assert form.notes and form.notes[0].startswith("p: shown as raw JSON")


@pytest.mark.parametrize("schema", [
    "not a schema", {"type": "array"}, {"type": "object", "properties": []},
    {"type": "object", "properties": {}, "allOf": [{"required": ["a"]}]},
])
def test_top_level_outside_the_subset_makes_the_whole_form_raw(schema):
    form = parse_schema(schema)
    assert form.raw and form.notes and form.fields == []


def test_validation_messages_are_mapped_to_fields():
    bad = {"name": "A", "email": "nope", "site": "not a uri", "born": "2026-02-30", "at": "2026-07-28T10:00:00",
           "age": 12, "score": 10, "ok": True, "color": "Pink", "tags": []}
    assert validate_content(EVERY_FEATURE, bad) == {
        "age": ["Must be at least 18."],
        "at": ["Enter a valid date and time with an offset, like 2026-07-28T09:30:00Z."],
        "born": ["Enter a valid date as YYYY-MM-DD."],
        "color": ["Choose one of the listed options."],
        "email": ["Enter a valid email address, like name@example.com."],
        "name": ["Must be at least 2 characters long."],
        "score": ["Must be at most 9.5."],
        "site": ["Enter an absolute URI, like https://example.com/page."],
        "tags": ["Choose at least 1."],
    }
    assert validate_content(EVERY_FEATURE, {"name": "Ann"}) == {
        key: ["This field is required."] for key in ("age", "color", "tags", "ok")}
    assert validate_content(EVERY_FEATURE, {"name": "Ann", "age": 20, "color": "Red", "tags": ["a", "b", "c"],
                                            "ok": False}) == {"tags": ["Choose at most 2."]}


def test_valid_formats_pass():
    good = {"name": "Ann", "email": "ann.o+x@mail.example.org", "site": "urn:isbn:0451450523",
            "born": "1990-12-31", "at": "2026-07-28T09:30:00.5+02:00", "age": 18, "score": 0.5, "ok": False,
            "color": "Blue", "hex": "#0f0", "legacy": "m", "tags": ["c"], "titled": ["x", "y"]}
    assert validate_content(EVERY_FEATURE, good) == {}


def test_a_broken_schema_is_reported_not_raised():
    errors = validate_content({"type": "object", "properties": {"a": {"type": "strin"}}}, {"a": "x"})
    assert list(errors) == [FORM_KEY] and "not valid JSON Schema" in errors[FORM_KEY][0]


def test_elicit_results_match_the_spec_shapes():
    assert accept({"name": "octocat"}) == {"action": "accept", "content": {"name": "octocat"}}
    assert accept() == {"action": "accept"}
    assert decline() == {"action": "decline"}
    assert cancel() == {"action": "cancel"}
    for result in (accept({"a": 1}), accept(), decline(), cancel()):
        assert problems(result, "ElicitResult") == []


def test_default_content_of_every_feature():
    assert default_content(EVERY_FEATURE) == {"email": "a@example.com", "ok": True, "name": "xx", "age": 18,
                                              "color": "Red", "tags": ["a"]}
    assert validate_content(EVERY_FEATURE, default_content(EVERY_FEATURE)) == {}


def test_default_content_replaces_an_invalid_server_default():
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 3,
                                                     "default": 9}}, "required": ["n"]}
    assert default_content(schema) == {"n": 1}


def test_default_result_for_form_and_url_mode():
    params = json.loads((EXAMPLES / "ElicitRequestFormParams" / "elicit-multiple-fields.json").read_text())
    assert default_result(params) == {"action": "accept",
                                      "content": {"name": "", "email": "user@example.com"}}
    url = json.loads((EXAMPLES / "ElicitRequestURLParams" / "elicit-sensitive-data.json").read_text())
    assert default_result(url) == {"action": "accept"}


def _example_schemas():
    for path in sorted(EXAMPLES.glob("*Schema/*.json")):
        yield pytest.param(json.loads(path.read_text()), id=path.stem)


@pytest.mark.parametrize("prop", list(_example_schemas()))
def test_every_example_property_schema_is_supported_and_its_default_validates(prop):
    schema = {"type": "object", "properties": {"x": prop}, "required": ["x"]}
    form = parse_schema(schema)
    assert form.fields[0].kind != "raw"
    content = default_content(schema)
    assert content == {"x": prop["default"]}
    assert validate_content(schema, content) == {}
    assert problems(accept(content), "ElicitResult") == []
