"""The one place that bounds what a server's schema may cost the studio: size, depth, patterns, lengths.

A requestedSchema or inputSchema comes from a peer. A 2000-deep schema makes jsonschema recurse
past Python's limit, 20k properties make every keystroke re-validate and re-render for seconds,
`minLength: 10**12` asks the automatic answerer for a terabyte string, and a pattern like
`^(a|a)*$` backtracks for minutes. So: a schema over MAX_SCHEMA_NODES values, MAX_SCHEMA_DEPTH
levels or MAX_FORM_FIELDS properties is "too large to render" (the answer is typed as raw JSON and
not checked against it); patterns run on the `regex` engine with a PATTERN_SECONDS timeout; generated
strings stop at MAX_GENERATED_LENGTH.
"""

from typing import Any

import regex

MAX_SCHEMA_NODES = 5000
MAX_SCHEMA_DEPTH = 32
MAX_FORM_FIELDS = 200
MAX_GENERATED_LENGTH = 10_000
PATTERN_SECONDS = 0.05


class PatternTimeout(Exception):
    """A pattern did not finish matching within PATTERN_SECONDS."""


def schema_size_problem(schema: Any) -> str | None:
    """Why `schema` is too large to render or validate here, or None; walked iteratively, stops early."""
    nodes = 0
    stack: list[tuple[Any, int]] = [(schema, 1)]
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if nodes > MAX_SCHEMA_NODES:
            return f"schema too large to render: more than {MAX_SCHEMA_NODES} values"
        if depth > MAX_SCHEMA_DEPTH:
            return f"schema too large to render: nested more than {MAX_SCHEMA_DEPTH} levels deep"
        if isinstance(value, dict):
            properties = value.get("properties")
            if isinstance(properties, dict) and len(properties) > MAX_FORM_FIELDS:
                return f"schema too large to render: {len(properties)} properties (at most {MAX_FORM_FIELDS})"
            stack.extend((child, depth + 1) for child in value.values())
        elif isinstance(value, list):
            stack.extend((child, depth + 1) for child in value)
    return None


def pattern_search(pattern: str, text: str) -> bool:
    """Whether `pattern` (ECMA-262-style, as JSON Schema means it) matches somewhere in `text`.

    Raises PatternTimeout when matching takes longer than PATTERN_SECONDS, and regex.error when
    the pattern does not compile.
    """
    try:
        return regex.search(pattern, text, timeout=PATTERN_SECONDS) is not None
    except TimeoutError as exc:
        raise PatternTimeout(pattern) from exc
