"""Answers from a file checked against the question they answer, as warnings (they are still sent).

Why: `call --answers` sent `"confirm": "yes"` where the elicitation's requestedSchema says boolean,
without a word; the server's rejection then looked like the server's fault. A debugger must be able
to send a wrong answer on purpose, so nothing is blocked: each mismatch is one line on stderr naming
the input key, the field and the schema's type. Names and values are JSON-escaped; the schema's own
words a problem quotes (a pattern, a format) are escaped by whoever prints the line
(`cli/call.answer_warning`), since the schema comes from the peer.
"""

import json
from typing import Any

from .forms.validation import validate_content

JSON_TYPES = {"string": (str,), "boolean": (bool,), "object": (dict,), "array": (list,), "null": (type(None),)}
MAX_WARNINGS = 20


def json_type(value: Any) -> str:
    """The JSON type name of a decoded value."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return {str: "string", dict: "object", list: "array", type(None): "null"}.get(type(value), type(value).__name__)


def _fits(value: Any, expected: str) -> bool:
    if expected == "integer":
        if isinstance(value, float):
            return value.is_integer()
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    kinds = JSON_TYPES.get(expected)
    return True if kinds is None else isinstance(value, kinds)


def _shown(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def answer_warnings(key: str, request: Any, result: Any) -> list[str]:
    """One line per field of an accepted elicitation answer that its requestedSchema would reject."""
    if not isinstance(request, dict) or request.get("method") != "elicitation/create":
        return []
    params = request.get("params") if isinstance(request.get("params"), dict) else {}
    schema = params.get("requestedSchema") if isinstance(params, dict) else None
    if not isinstance(schema, dict) or not isinstance(result, dict) or result.get("action") != "accept":
        return []
    where = f"answers file: {_shown(key)}"
    content = result.get("content", {})
    if not isinstance(content, dict):
        return [f"{where}: content is {json_type(content)}, the requestedSchema wants an object (sent as given)"]
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    lines: list[str] = []
    mistyped: set[str] = set()
    for name, value in content.items():
        prop = properties.get(name) if isinstance(properties, dict) else None
        expected = prop.get("type") if isinstance(prop, dict) else None
        if isinstance(expected, str) and not _fits(value, expected):
            mistyped.add(name)
            lines.append(f"{where}: {_shown(name)} is {_shown(value)} ({json_type(value)}), but the schema's type "
                         f"is {_shown(expected)} (sent as given)")
    for name, problems in sorted(validate_content(schema, content).items()):
        if name not in mistyped:
            lines.append(f"{where}: {_shown(name) if name else 'content'}: {' '.join(problems)} (sent as given)")
    return lines[:MAX_WARNINGS]
