"""Whether an elicitation answer fits the requestedSchema it answers: the field and the rule it breaks.

A recorder (the served engine, the proxy, `check-client`) judges answers a client sent to a schema
a server sent; both come from peers, so the check is bounded: a schema over MAX_NODES values or
MAX_DEPTH levels is not applied (said so), and `pattern` runs on the `regex` engine with a timeout
(a pathological pattern is reported, never waited for).
"""

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson
import regex
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, ValidationError
from jsonschema.protocols import Validator

from ..defaults import PATTERN_SECONDS
from .schema_bounds import too_large

#: Schemas whose verdict (too large, invalid, or a ready validator) is kept: a server sends the same
#: requestedSchema every round, and checking and compiling it cost more than applying it.
CACHED_SCHEMAS = 256


@dataclass(frozen=True)
class AnswerProblem:
    """One violation: where in the content, what the value was, and the schema rule it breaks."""

    field: str  # "confirm", "tags/0", or "(content)" for the whole object
    rule: str  # "type: boolean", "required: ['confirm']"
    message: str

    def describe(self) -> str:
        return f"{self.field}: {self.message} (requestedSchema rule {self.rule})"


def _pattern(validator: Validator, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string"):
        return
    try:
        found = regex.search(str(pattern), instance, timeout=PATTERN_SECONDS) is not None
    except TimeoutError:
        yield ValidationError(f"the pattern {pattern!r} takes too long to check", validator="pattern")
        return
    except (regex.error, ValueError) as exc:
        yield ValidationError(f"the pattern {pattern!r} cannot be used: {exc}", validator="pattern")
        return
    if not found:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_Bounded = validators.extend(Draft202012Validator, {"pattern": _pattern})
_Bounded.VALIDATORS.pop("patternProperties", None)  # unbounded key patterns: not applied here


def _rule(error: ValidationError) -> str:
    value = error.validator_value
    shown = value if isinstance(value, str | int | float | bool) else repr(value)
    if isinstance(shown, str) and len(shown) > 80:
        shown = shown[:77] + "..."
    return f"{error.validator}: {shown}"


def content_problems(schema: Any, content: Any) -> list[AnswerProblem]:
    """Violations of `schema` by an accepted answer's `content`; [] when it fits (or cannot be judged).

    Raises ValueError when the schema itself cannot be applied (too large, not JSON Schema)."""
    checker = _checker(schema)
    if isinstance(checker, str):
        raise ValueError(checker)
    try:
        errors = list(checker.iter_errors(content))
    except Exception as exc:  # a hostile schema must never take a recorder down
        raise ValueError(f"requestedSchema could not be applied: {exc}") from None
    found = []
    for error in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
        where = "/".join(str(p) for p in error.absolute_path) or "(content)"
        found.append(AnswerProblem(where, _rule(error), str(error.message)))
    return found


_checkers: "OrderedDict[bytes, Validator | str]" = OrderedDict()


def _checker(schema: Any) -> "Validator | str":
    """The validator of `schema`, or why it cannot be applied; kept per schema text (least recently used
    dropped past CACHED_SCHEMAS). The size bound runs before anything else walks the schema."""
    reason = too_large(schema)
    if reason:
        return f"requestedSchema too large to check: {reason}"
    try:
        key = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # what orjson cannot encode (big integers): checked afresh each time
        key = b""
    cached = _checkers.get(key) if key else None
    if cached is not None:
        _checkers.move_to_end(key)
        return cached
    try:
        Draft202012Validator.check_schema(schema)
        found: Validator | str = _Bounded(schema)
    except SchemaError as exc:
        found = f"requestedSchema is not valid JSON Schema: {exc.message}"
    except Exception as exc:  # a hostile schema must never take a recorder down
        found = f"requestedSchema could not be applied: {exc}"
    if key:
        _checkers[key] = found
        if len(_checkers) > CACHED_SCHEMAS:
            _checkers.popitem(last=False)
    return found


def elicitation_answer_problems(request_params: Any, answer: Any) -> list[str]:
    """What is wrong with an ElicitResult answering a form-mode elicitation; [] when nothing is.

    Only an `accept` carries content to check; a URL-mode request has no schema."""
    if not isinstance(request_params, dict) or not isinstance(answer, dict):
        return []
    schema = request_params.get("requestedSchema")
    if request_params.get("mode", "form") != "form" or not isinstance(schema, dict):
        return []
    if answer.get("action") != "accept":
        return []
    content = answer.get("content", {})
    try:
        return [problem.describe() for problem in content_problems(schema, content)]
    except ValueError as exc:
        return [f"not checked: {exc}"]
