"""Short JSON for labels: a diagram arrow or a log summary shows arguments as JSON, never as Python.

Why: labels read `edited=True`, `path='/tmp/demo.txt'`, `params={'mode': …}`, Python's repr of what is
JSON on the wire, which misleads a protocol debugger. Here values are JSON (`true`, `"/tmp/demo.txt"`,
`{"mode": …}`), nested containers are cut at a small depth and every cut text ends in "…".
"""

import json
from typing import Any

ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the cut marked with an ellipsis (never cut silently)."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + ELLIPSIS


def brief(value: Any, depth: int = 2) -> str:
    """`value` as compact JSON; containers deeper than `depth` become `{…}` / `[…]`."""
    if isinstance(value, dict):
        if depth <= 0:
            return "{…}" if value else "{}"
        return "{" + ", ".join(f"{json.dumps(str(k), ensure_ascii=False)}: {brief(v, depth - 1)}"
                               for k, v in list(value.items())[:6]) + (", …" if len(value) > 6 else "") + "}"
    if isinstance(value, list | tuple):
        if depth <= 0:
            return "[…]" if value else "[]"
        return "[" + ", ".join(brief(v, depth - 1) for v in list(value)[:6]) + (", …" if len(value) > 6 else "") + "]"
    if isinstance(value, str):
        return json.dumps(clip(value, 200), ensure_ascii=False)
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    return json.dumps(clip(str(value), 200), ensure_ascii=False)


def brief_members(arguments: dict[str, Any], limit: int, count: int = 3) -> str:
    """The first `count` members as `key: json`, cut to `limit` characters with an ellipsis."""
    items = list(arguments.items())
    text = ", ".join(f"{key}: {brief(value, 1)}" for key, value in items[:count])
    if len(items) > count:
        text += ", …"
    return clip(text, limit)
