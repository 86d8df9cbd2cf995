"""ElicitResult builders and the automatic answer used when nobody is at the keyboard.

The three actions are the spec's: accept carries `content` only in form mode, decline and
cancel carry nothing. `default_content` gives automated runs (headless client, "answer with
defaults" in the GUI) an answer that validates whenever the schema can be satisfied at all:
server defaults first, then the smallest value the constraints allow. No generated string is
longer than MAX_GENERATED_LENGTH: a field asking for more (`minLength: 10**12`) is left out, and the
server's own validation says what is missing.
"""

import math
from typing import Any

from .schema_fields import FieldSpec, parse_schema
from .schema_limits import MAX_GENERATED_LENGTH
from .validation import validate_content

SAMPLE_EMAIL = "user@example.com"
SAMPLE_URI = "https://example.com/"
SAMPLE_DATE = "2026-07-28"
SAMPLE_DATE_TIME = "2026-07-28T00:00:00Z"


def accept(content: dict[str, Any] | None = None) -> dict[str, Any]:
    """Accept; pass no content for URL mode, where the answer travels out of band."""
    from mrtr_studio.protocol.models import ElicitResult  # pydantic with the first answer built, not at every launch

    return ElicitResult(action="accept", content=content).wire()


def decline() -> dict[str, Any]:
    from mrtr_studio.protocol.models import ElicitResult

    return ElicitResult(action="decline").wire()


def cancel() -> dict[str, Any]:
    from mrtr_studio.protocol.models import ElicitResult

    return ElicitResult(action="cancel").wire()


def _pad(text: str, spec: FieldSpec) -> str | None:
    """`text` lengthened to the field's minLength; None when that would exceed MAX_GENERATED_LENGTH."""
    short = (spec.min_length or 0) - len(text)
    if short <= 0:
        return text
    if short + len(text) > MAX_GENERATED_LENGTH:
        return None
    if spec.format == "email":
        local, _, domain = text.partition("@")
        return f"{local}{'x' * short}@{domain}"
    return text + "x" * short


def _number(spec: FieldSpec) -> int | float:
    low, high = spec.minimum, spec.maximum
    if spec.kind == "integer":
        if low is not None:
            return math.ceil(low)
        if high is not None and high < 0:
            return math.floor(high)
        return 0
    value: float = low if low is not None else (high if high is not None and high < 0 else 0)
    return int(value) if float(value).is_integer() else value


def synthesize(spec: FieldSpec) -> Any:
    """The simplest value the field's constraints allow (ignoring its default)."""
    if spec.kind == "string":
        base = {"email": SAMPLE_EMAIL, "uri": SAMPLE_URI, "date": SAMPLE_DATE,
                "date-time": SAMPLE_DATE_TIME}.get(spec.format or "", "")
        return _pad(base, spec)
    if spec.kind in ("number", "integer"):
        return _number(spec)
    if spec.kind == "boolean":
        return False
    if spec.kind == "enum":
        return spec.options[0].value if spec.options else None
    if spec.kind == "multi_enum":
        return [o.value for o in spec.options[: spec.min_items or 0]]
    kind = spec.schema.get("type")
    return {"object": {}, "array": [], "null": None, "boolean": False, "string": "", "integer": 0,
            "number": 0}.get(kind if isinstance(kind, str) else "")


def _fits(spec: FieldSpec, value: Any) -> bool:
    return not validate_content(spec.schema, value)


def default_content(schema: Any) -> dict[str, Any]:
    """Fields with a default keep it (when valid); required fields get the smallest valid value,
    except that a required yes/no without a default is answered yes: an automatic run accepts.

    Optional fields without a default are left out, as a person who skipped them would.
    """
    form = parse_schema(schema)
    content: dict[str, Any] = {}
    for spec in form.fields:
        if spec.has_default and _fits(spec, spec.default):
            content[spec.key] = spec.default
        elif spec.required:
            value = True if spec.kind == "boolean" else synthesize(spec)
            if value is not None or spec.schema.get("type") == "null":
                content[spec.key] = value
    return content


def default_result(params: dict[str, Any]) -> dict[str, Any]:
    """The automatic ElicitResult for elicitation params: accept with defaults (URL mode: plain accept)."""
    if params.get("mode") == "url":
        return accept()
    return accept(default_content(params.get("requestedSchema", {})))
