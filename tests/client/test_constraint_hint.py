"""FieldSpec.constraint_hint: the limits of a field as one sentence (tooltips, screen readers)."""

from mrtr_studio.client.forms.schema_fields import parse_property


def test_every_limit_in_order_numbers_without_trailing_zero() -> None:
    text = parse_property("name", {"type": "string", "minLength": 2, "maxLength": 40, "format": "email"})
    assert text.constraint_hint() == "at least 2 characters, at most 40 characters, format email"
    age = parse_property("age", {"type": "number", "minimum": 18.0, "maximum": 99.5})
    assert age.constraint_hint() == "minimum 18, maximum 99.5"
    zero = parse_property("n", {"type": "integer", "minimum": 0})
    assert zero.constraint_hint() == "minimum 0"  # 0 is a limit, not "no limit"


def test_no_limits_is_empty() -> None:
    assert parse_property("free", {"type": "string"}).constraint_hint() == ""
