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

from ...defaults import PATTERN_SECONDS
from ...protocol.schema_bounds import MAX_DEPTH, MAX_NODES, too_large

MAX_SCHEMA_NODES = MAX_NODES
MAX_SCHEMA_DEPTH = MAX_DEPTH
MAX_FORM_FIELDS = 200
MAX_GENERATED_LENGTH = 10_000


class PatternTimeout(Exception):
    """A pattern did not finish matching within PATTERN_SECONDS."""


def schema_size_problem(schema: Any) -> str | None:
    """Why `schema` is too large to render or validate here, or None."""
    problem = too_large(schema, MAX_FORM_FIELDS)
    return f"schema too large to render: {problem}" if problem else None


def pattern_search(pattern: str, text: str) -> bool:
    """Whether `pattern` (ECMA-262-style, as JSON Schema means it) matches somewhere in `text`.

    Raises PatternTimeout when matching takes longer than PATTERN_SECONDS, and regex.error when
    the pattern does not compile.
    """
    import regex  # at the first pattern: the engine is not needed to open the window

    try:
        return regex.search(pattern, text, timeout=PATTERN_SECONDS) is not None
    except TimeoutError as exc:
        raise PatternTimeout(pattern) from exc
