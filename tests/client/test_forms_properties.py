"""Property test: for any schema of the elicitation subset, `default_content` validates."""

from hypothesis import given, settings
from hypothesis import strategies as st

from mrtr_studio.client.forms import default_content, parse_schema, validate_content
from mrtr_studio.protocol.schema import problems

text = st.text(alphabet="abcdefgh XYZ", min_size=1, max_size=8)


@st.composite
def string_schemas(draw):
    prop = {"type": "string"}
    fmt = draw(st.sampled_from([None, "email", "uri", "date", "date-time"]))
    if fmt:
        prop["format"] = fmt
    if fmt in (None, "email", "uri"):
        low = draw(st.none() | st.integers(0, 40))
        high = draw(st.none() | st.integers(low or 0, 60))
        if fmt and high is not None:
            high = max(high, 30)  # a sample email/uri needs room
        if low is not None:
            prop["minLength"] = low
        if high is not None:
            prop["maxLength"] = high
    return prop


@st.composite
def number_schemas(draw):
    kind = draw(st.sampled_from(["number", "integer"]))
    prop = {"type": kind}
    low = draw(st.none() | st.integers(-1000, 1000) | st.floats(-1000, 1000, allow_nan=False))
    high = draw(st.none() | st.integers(-1000, 1000) | st.floats(-1000, 1000, allow_nan=False))
    if low is not None and high is not None and low > high:
        low, high = high, low
    if kind == "integer" and low is not None and high is not None and int(high) - int(low) < 2:
        high = low + 2
    if low is not None:
        prop["minimum"] = low
    if high is not None:
        prop["maximum"] = high
    return prop


@st.composite
def enum_schemas(draw):
    values = draw(st.lists(text, min_size=1, max_size=5, unique=True))
    style = draw(st.sampled_from(["plain", "titled", "legacy", "multi", "multi_titled"]))
    if style == "plain":
        return {"type": "string", "enum": values}
    if style == "titled":
        return {"type": "string", "oneOf": [{"const": v, "title": v.upper()} for v in values]}
    if style == "legacy":
        return {"type": "string", "enum": values, "enumNames": [v.upper() for v in values]}
    low = draw(st.none() | st.integers(0, len(values)))
    high = draw(st.none() | st.integers(low or 0, len(values)))
    items = ({"type": "string", "enum": values} if style == "multi"
             else {"anyOf": [{"const": v, "title": v.upper()} for v in values]})
    prop = {"type": "array", "items": items}
    if low is not None:
        prop["minItems"] = low
    if high is not None:
        prop["maxItems"] = high
    return prop


primitive = st.one_of(string_schemas(), number_schemas(), st.just({"type": "boolean"}), enum_schemas())


@st.composite
def request_schemas(draw):
    props = draw(st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), primitive, max_size=6))
    keys = sorted(props)
    required = [k for k in keys if draw(st.booleans())]
    return {"type": "object", "properties": props, "required": required}


@settings(max_examples=150, deadline=None)
@given(request_schemas())
def test_default_content_validates_for_every_subset_schema(schema):
    assert problems({"message": "m", "requestedSchema": schema}, "ElicitRequestFormParams") == []
    form = parse_schema(schema)
    assert not form.has_raw_fields
    content = default_content(schema)
    assert validate_content(schema, content) == {}
    assert set(schema["required"]) <= set(content)
