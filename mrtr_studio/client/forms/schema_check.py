"""The jsonschema check behind `validation.validate_content`: a form's answer against the server's schema.

jsonschema does the checking (Draft 2020-12) so the studio agrees with what a conforming server
would accept; this module only adds strict checkers for the four formats the elicitation spec
names (jsonschema's own need optional packages for `uri` and `date-time`) and maps each error
to the field it belongs to. Key `""` holds errors about the form as a whole.

What a server's schema may cost is bounded (schema_limits): `pattern` and `patternProperties` run
on the `regex` engine with a timeout (a pattern that takes too long is reported on its field, not
waited for), and a schema too large or too deep is not validated at all: the form says so.
A `$ref` resolves inside the schema only: one naming another document (a network URI above all) is
never fetched (SEP-2106), as fetching would let any server send the client where it likes; the field
says that it could not be checked.
"""

import re
from collections.abc import Iterator
from datetime import date, datetime
from typing import Any
from urllib.parse import urlsplit

import regex
from jsonschema import Draft202012Validator, FormatChecker, validators
from jsonschema.exceptions import SchemaError, ValidationError
from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable

from .schema_fields import FORM_KEY
from .schema_limits import PATTERN_SECONDS, PatternTimeout, pattern_search

_EMAIL = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")

FORMAT_CHECKER = FormatChecker(formats=())


@FORMAT_CHECKER.checks("email")
def is_email(value: object) -> bool:
    return not isinstance(value, str) or (bool(_EMAIL.match(value)) and ".." not in value)


@FORMAT_CHECKER.checks("uri")
def is_uri(value: object) -> bool:
    """An absolute URI (RFC 3986): a scheme, and no spaces or control characters."""
    if not isinstance(value, str):
        return True
    if any(c.isspace() or ord(c) < 32 for c in value) or ":" not in value:
        return False
    scheme = value.split(":", 1)[0]
    try:
        urlsplit(value)
    except ValueError:
        return False
    return bool(_SCHEME.match(scheme))


@FORMAT_CHECKER.checks("date")
def is_date(value: object) -> bool:
    if not isinstance(value, str):
        return True
    try:
        return bool(_DATE.match(value)) and date.fromisoformat(value) is not None
    except ValueError:
        return False


@FORMAT_CHECKER.checks("date-time")
def is_date_time(value: object) -> bool:
    """RFC 3339: a full date, a time and an offset (Z or ±hh:mm)."""
    if not isinstance(value, str):
        return True
    if not _DATE_TIME.match(value):
        return False
    try:
        datetime.fromisoformat(value.replace("z", "Z").replace("t", "T"))
    except ValueError:
        return False
    return True


def _search(pattern: Any, text: str) -> bool | ValidationError:
    """Whether `pattern` matches `text`, or the error to report when that cannot be known in time."""
    try:
        return pattern_search(str(pattern), text)
    except PatternTimeout:
        return ValidationError(f"The server's pattern {pattern} takes too long to check (over "
                               f"{int(PATTERN_SECONDS * 1000)} ms); this value cannot be validated.",
                               validator="patternTimeout")
    except (regex.error, ValueError) as exc:
        return ValidationError(f"The server's pattern {pattern} cannot be used: {exc}", validator="patternInvalid")


def _pattern(validator: Validator, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string"):
        return
    found = _search(pattern, instance)
    if isinstance(found, ValidationError):
        yield found
    elif not found:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Validator, patterns: Any, instance: Any,
                        schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            found = _search(pattern, key)
            if isinstance(found, ValidationError):
                yield found
            elif found:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


_ADDITIONAL = Draft202012Validator.VALIDATORS["additionalProperties"]


def _additional_properties(validator: Validator, additional: Any, instance: Any,
                           schema: Any) -> Iterator[ValidationError]:
    """jsonschema's own, except that keys matched by patternProperties are found with bounded searches."""
    patterns = schema.get("patternProperties") if isinstance(schema, dict) else None
    if not patterns or not validator.is_type(instance, "object"):
        yield from _ADDITIONAL(validator, additional, instance, schema)
        return
    extras = []
    for key in instance:
        if key in schema.get("properties", {}):
            continue
        results = [_search(pattern, key) for pattern in patterns]
        errors = [r for r in results if isinstance(r, ValidationError)]
        if errors:
            yield errors[0]
        elif not any(results):
            extras.append(key)
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif additional is False and extras:
        yield ValidationError(f"{', '.join(map(repr, sorted(extras)))} do not match any of the patterns")


def _never_retrieve(uri: str) -> Resource[Any]:
    """The registry's retriever: no document outside the schema is ever fetched."""
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # an attrs class


#: In-document refs (and the bundled meta-schemas) only: jsonschema's default would fetch remote ones.
LOCAL_ONLY: Registry[Any] = Registry(retrieve=_never_retrieve)  # type: ignore[call-arg]  # attrs

BoundedValidator = validators.extend(Draft202012Validator, {
    "pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties,
})


_FORMAT_MESSAGES = {
    "email": "Enter a valid email address, like name@example.com.",
    "uri": "Enter an absolute URI, like https://example.com/page.",
    "date": "Enter a valid date as YYYY-MM-DD.",
    "date-time": "Enter a valid date and time with an offset, like 2026-07-28T09:30:00Z.",
}
_TYPE_NAMES = {"string": "text", "integer": "a whole number", "number": "a number",
               "boolean": "true or false", "array": "a list", "object": "an object", "null": "null"}


def _n(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def readable(error: ValidationError) -> str:
    """A sentence for one jsonschema error, phrased for the person filling the form."""
    v, limit = error.validator, error.validator_value
    if v == "minLength":
        return f"Must be at least {limit} character{'s' if limit != 1 else ''} long."
    if v == "maxLength":
        return f"Must be at most {limit} character{'s' if limit != 1 else ''} long."
    if v in ("minimum", "exclusiveMinimum"):
        return f"Must be {'at least' if v == 'minimum' else 'greater than'} {_n(limit)}."
    if v in ("maximum", "exclusiveMaximum"):
        return f"Must be {'at most' if v == 'maximum' else 'less than'} {_n(limit)}."
    if v == "format":
        return _FORMAT_MESSAGES.get(str(limit), f"Not a valid {limit}.")
    if v == "minItems":
        return f"Choose at least {limit}."
    if v == "maxItems":
        return f"Choose at most {limit}."
    if v in ("enum", "const", "oneOf", "anyOf"):
        return "Choose one of the listed options."
    if v == "type":
        kinds = limit if isinstance(limit, list) else [limit]
        return "Must be " + " or ".join(_TYPE_NAMES.get(str(k), str(k)) for k in kinds) + "."
    if v == "pattern":
        return f"Must match the pattern {limit}."
    if v == "uniqueItems":
        return "Each choice may appear only once."
    return str(error.message)


def _add(errors: dict[str, list[str]], key: str, message: str) -> None:
    bucket = errors.setdefault(key, [])
    if message not in bucket:
        bucket.append(message)


def validity_problem(schema: Any) -> str | None:
    """Why the server's schema is not valid JSON Schema, or None. Its size is checked before this runs
    (`validation.validate_content`), so it is not walked twice."""
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        return f"The server's schema is not valid JSON Schema at {where}: {exc.message}"
    return None


def check_content(schema: Any, content: Any) -> dict[str, list[str]]:
    """`validation.validate_content`'s check, for a schema small enough to apply."""
    problem = validity_problem(schema)
    if problem:
        return {FORM_KEY: [problem]}
    errors: dict[str, list[str]] = {}
    try:
        found = list(BoundedValidator(schema, format_checker=FORMAT_CHECKER, registry=LOCAL_ONLY)
                     .iter_errors(content))
    except Unresolvable as exc:
        return {FORM_KEY: [f"The schema refers to {exc.ref}, outside itself; such a $ref is never fetched, "
                           "so this answer cannot be checked."]}
    except Exception as exc:  # a hostile schema must never take the form down
        return {FORM_KEY: [f"The schema could not be applied: {exc}"]}
    for error in sorted(found, key=lambda e: [str(p) for p in e.absolute_path]):
        path = list(error.absolute_path)
        if error.validator == "required" and not path and isinstance(content, dict):
            for key in error.validator_value:
                if key not in content:
                    _add(errors, str(key), "This field is required.")
            continue
        if error.validator == "additionalProperties" and not path:
            _add(errors, FORM_KEY, str(error.message))
            continue
        key = str(path[0]) if path else FORM_KEY
        _add(errors, key, readable(error))
    return errors
