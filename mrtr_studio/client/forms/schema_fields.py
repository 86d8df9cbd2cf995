"""Turn a requestedSchema (or a tool's inputSchema) into typed field specs a form can render.

The elicitation spec allows only a flat object of primitive properties (PrimitiveSchemaDefinition).
Anything outside that subset is still shown, as a raw JSON field with a note saying why, so a
debugger never hides or crashes on what a server actually sent. The whole form falls back to raw
JSON only when the top level itself is not a plain object of properties, or when the schema is too
large or too deep to render (schema_limits).
"""

from dataclasses import dataclass, field
from typing import Any, Literal

from .schema_limits import schema_size_problem

FieldKind = Literal["string", "number", "integer", "boolean", "enum", "multi_enum", "raw"]

#: The key of errors about a form as a whole, beside the keys of its fields.
FORM_KEY = ""
STRING_FORMATS = ("email", "uri", "date", "date-time")

# Keys that only describe a property; they never change what a value may be.
_ANNOTATIONS = {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
                "writeOnly"}
_ALLOWED = {
    "string": _ANNOTATIONS | {"type", "minLength", "maxLength", "format", "pattern"},
    "number": _ANNOTATIONS | {"type", "minimum", "maximum"},
    "boolean": _ANNOTATIONS | {"type"},
    "enum": _ANNOTATIONS | {"type", "enum", "enumNames", "oneOf", "anyOf"},
    "multi_enum": _ANNOTATIONS | {"type", "items", "minItems", "maxItems", "uniqueItems"},
}
_TOP_LEVEL = {"type", "properties", "required", "$schema", "title", "description", "additionalProperties",
              "$comment", "$id"}


@dataclass(frozen=True)
class Option:
    """One choice of an enum: the value sent on the wire and the label a person reads."""

    value: Any
    title: str


@dataclass
class FieldSpec:
    key: str
    kind: FieldKind
    title: str
    schema: dict[str, Any]
    description: str = ""
    required: bool = False
    has_default: bool = False
    default: Any = None
    format: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    min_items: int | None = None
    max_items: int | None = None
    options: list[Option] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def constraint_hint(self) -> str:
        """A short sentence of the limits, for tooltips and screen readers."""
        limits = ((self.min_length, "at least {} characters"), (self.max_length, "at most {} characters"),
                  (self.minimum, "minimum {}"), (self.maximum, "maximum {}"),
                  (self.min_items, "choose at least {}"), (self.max_items, "choose at most {}"))
        parts = [sentence.format(_num(limit)) for limit, sentence in limits if limit is not None]
        if self.format:
            parts.append(f"format {self.format}")
        return ", ".join(parts)


@dataclass
class FormSpec:
    """The parsed form. `raw` means the whole answer must be typed as one JSON object."""

    schema: dict[str, Any]
    fields: list[FieldSpec] = field(default_factory=list)
    raw: bool = False
    notes: list[str] = field(default_factory=list)

    def field(self, key: str) -> FieldSpec:
        for spec in self.fields:
            if spec.key == key:
                return spec
        raise KeyError(key)

    @property
    def has_raw_fields(self) -> bool:
        return self.raw or any(f.kind == "raw" for f in self.fields)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _titled_options(entries: Any) -> list[Option] | None:
    """`[{const, title}, ...]` (oneOf / anyOf) as options, or None when it is anything else."""
    if not isinstance(entries, list) or not entries:
        return None
    options = []
    for entry in entries:
        if not isinstance(entry, dict) or "const" not in entry or set(entry) - {"const", "title",
                                                                                "description"}:
            return None
        options.append(Option(entry["const"], str(entry.get("title", entry["const"]))))
    return options


def _enum_options(prop: dict[str, Any]) -> tuple[list[Option] | None, str | None]:
    """Options of a single-select property and the reason when they cannot be understood."""
    if "enum" in prop:
        values = prop["enum"]
        if not isinstance(values, list) or not values or "oneOf" in prop or "anyOf" in prop:
            return None, "enum must be a non-empty list of values"
        names = prop.get("enumNames")
        if names is not None and (not isinstance(names, list) or len(names) != len(values)):
            return None, "enumNames does not match enum"
        labels = [str(n) for n in names] if names else [str(v) for v in values]
        return [Option(v, label) for v, label in zip(values, labels, strict=True)], None
    for keyword in ("oneOf", "anyOf"):
        if keyword in prop:
            options = _titled_options(prop[keyword])
            if options is None:
                return None, f"{keyword} is not a list of const/title options"
            return options, None
    return None, "no options"


def _multi_options(items: Any) -> list[Option] | None:
    if not isinstance(items, dict):
        return None
    if "enum" in items and set(items) <= {"type", "enum"} and isinstance(items["enum"], list):
        return [Option(v, str(v)) for v in items["enum"]] or None
    for keyword in ("anyOf", "oneOf"):
        if keyword in items and set(items) <= {"type", keyword}:
            return _titled_options(items[keyword])
    return None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_property(key: str, prop: Any, required: bool = False) -> FieldSpec:
    """One property as a field; an unsupported one becomes a `raw` field with its reason in notes."""
    if not isinstance(prop, dict):
        return FieldSpec(key, "raw", key, {}, required=required,
                         notes=["the property schema is not an object"])
    spec = FieldSpec(key, "raw", str(prop.get("title") or key), prop,
                     description=str(prop.get("description") or ""), required=required,
                     has_default="default" in prop, default=prop.get("default"))
    kind, reason = _classify(prop)
    if kind is None:
        spec.notes.append(reason or "unsupported schema")
        return spec
    extra = set(prop) - _ALLOWED["number" if kind == "integer" else kind]
    if extra:
        spec.notes.append("unsupported keyword(s): " + ", ".join(sorted(extra)))
        return spec
    spec.kind = kind
    if kind == "string":
        spec.min_length, spec.max_length = _int_or_none(prop.get("minLength")), _int_or_none(
            prop.get("maxLength"))
        fmt = prop.get("format")
        if fmt is not None and fmt not in STRING_FORMATS:
            spec.notes.append(f"format {fmt!r} has no dedicated editor")
        spec.format = fmt if isinstance(fmt, str) else None
    elif kind in ("number", "integer"):
        spec.minimum = prop["minimum"] if _is_number(prop.get("minimum")) else None
        spec.maximum = prop["maximum"] if _is_number(prop.get("maximum")) else None
    elif kind == "enum":
        spec.options = _enum_options(prop)[0] or []
    elif kind == "multi_enum":
        spec.options = _multi_options(prop.get("items")) or []
        spec.min_items, spec.max_items = _int_or_none(prop.get("minItems")), _int_or_none(
            prop.get("maxItems"))
    return spec


def _classify(prop: dict[str, Any]) -> tuple[FieldKind | None, str | None]:
    kind = prop.get("type")
    if "enum" in prop or "oneOf" in prop or "anyOf" in prop:
        if kind not in (None, "string", "number", "integer", "boolean"):
            return None, f"choices on type {kind!r}"
        options, reason = _enum_options(prop)
        return ("enum", None) if options else (None, reason)
    if kind == "array":
        if _multi_options(prop.get("items")) is None:
            return None, "array items are not a list of choices"
        return "multi_enum", None
    if kind in ("string", "number", "integer", "boolean"):
        return kind, None
    if kind is None:
        return None, "no type"
    return None, f"type {kind!r} has no form editor"


def parse_schema(schema: Any) -> FormSpec:
    """Parse a requestedSchema / inputSchema; never raises, whatever the server sent."""
    if not isinstance(schema, dict):
        return FormSpec({}, raw=True, notes=["the schema is not a JSON object"])
    too_large = schema_size_problem(schema)
    if too_large:
        return FormSpec(schema, raw=True, notes=[f"{too_large}; the answer is not checked against it"])
    if schema.get("type", "object") != "object":
        return FormSpec(schema, raw=True, notes=[f"top-level type {schema.get('type')!r} is not object"])
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        return FormSpec(schema, raw=True, notes=["properties is not an object"])
    extra = set(schema) - _TOP_LEVEL
    if extra:
        return FormSpec(schema, raw=True,
                        notes=["unsupported top-level keyword(s): " + ", ".join(sorted(extra))])
    required = schema.get("required", [])
    required_set = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
    form = FormSpec(schema)
    for key, prop in props.items():
        spec = parse_property(str(key), prop, str(key) in required_set)
        form.fields.append(spec)
        if spec.kind == "raw":
            form.notes.append(f"{spec.title}: shown as raw JSON ({'; '.join(spec.notes)})")
    return form
