"""How large a peer's JSON Schema may be before the studio declines to apply it or draw it as a form.

Kept apart from `answer_schema` (which applies schemas with jsonschema) so the window's forms can ask
the size question at launch without importing jsonschema, which they need only once a form is checked.
"""

from typing import Any

MAX_NODES = 5000
MAX_DEPTH = 32


def too_large(schema: Any, max_properties: int | None = None) -> str | None:
    """Why a schema is too large to apply (or, with `max_properties`, to render as a form), or None.

    Walked iteratively and stopped early: the one size check of a peer's schema, for the lint here and
    for the studio's forms (client.forms.schema_limits)."""
    nodes = 0
    stack: list[tuple[Any, int]] = [(schema, 1)]
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return f"more than {MAX_NODES} values"
        if depth > MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} levels deep"
        if isinstance(value, dict):
            properties = value.get("properties")
            if max_properties is not None and isinstance(properties, dict) and len(properties) > max_properties:
                return f"{len(properties)} properties (at most {max_properties})"
            stack.extend((child, depth + 1) for child in value.values())
        elif isinstance(value, list):
            stack.extend((child, depth + 1) for child in value)
    return None
