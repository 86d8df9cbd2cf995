"""What an MRTR request's params may hold, checked once before the state is verified or a handler runs.

Handlers, the arguments digest and schema validation all walk the arguments; a value they cannot
all take the same way must be refused at the door with -32602, not found later as a traceback:

- only JSON values: objects with string keys, arrays, strings, integers, finite floats, booleans,
  null. NaN and Infinity are no JSON (a lenient parser or the in-memory transport can still carry
  them) and were once digested like null, so a state minted for `{"n": null}` passed for
  `{"n": Infinity}`;
- nested at most `max_depth` levels (ServerOptions.max_argument_depth owns the number): a thousand
  levels made the digest and validation recurse past Python's limit.

The HTTP reader bounds the depth of a whole message too; this check keeps the engine safe on every
transport (in-memory, stdio, a peer's own host) on its own.
"""

import math
from typing import Any

import orjson

from ..protocol.errors import INVALID_PARAMS, McpError

_SCALARS = (str, int, bool, type(None))


def check_params(params: dict[str, Any], max_depth: int, *, code: int = INVALID_PARAMS,
                 label: str = "Invalid params", brackets: int | None = None) -> None:
    """Raise -32602 (or `code`) naming the first field that is not a JSON value within `max_depth` levels.

    `brackets`: the message holding `params` was just decoded from JSON text that had this many `[`
    and `{` (`wire_json.loads_counted`), so it holds nothing but JSON values and only its depth is in
    question: the round trip that proves the rest (a copy of the whole value) is skipped, and with
    no more brackets than the bound allows (params sit one level inside the message, their fields
    one more), so is the depth check."""
    if brackets is not None and (brackets <= max_depth + 2 or _shallow(params, max_depth + 1)):
        return
    if _plainly_clean(params, max_depth + 1):
        return
    for field, value in params.items():
        problem = _problem(value, max_depth, str(field))
        if problem is not None:
            where, what = problem
            raise McpError(code, f"{label}: {where} {what}", {"field": str(field), "path": where})
    if not all(type(key) is str for key in params):
        raise McpError(code, f"{label}: object keys must be strings")


def _plainly_clean(value: Any, max_depth: int) -> bool:
    """The hot path, in orjson's C code rather than a Python walk (a tenth of the cost on typical params).

    orjson refuses non-string keys, integers past 64 bits and lone surrogates, and writes NaN and
    Infinity as null, tuples as arrays, UUIDs and dates as strings: any of those makes the round trip
    differ from the value (or fail), so only a plain JSON value passes. No value can nest deeper than
    it has containers, so counting brackets bounds the depth without walking. Anything that does not
    pass here (a big integer is fine JSON, a `[` may sit inside a string) gets the exact walk.
    """
    try:
        encoded = orjson.dumps(value)
    except TypeError:
        return False
    return encoded.count(b"{") + encoded.count(b"[") <= max_depth and bool(orjson.loads(encoded) == value)


def _shallow(value: Any, max_depth: int) -> bool:
    """No deeper than `max_depth`, for a value decoded from JSON text: as many levels as it has brackets
    at most. (Too many brackets, or something orjson cannot write, gets the full check.)"""
    try:
        encoded = orjson.dumps(value)
    except TypeError:
        return False
    return encoded.count(b"{") + encoded.count(b"[") <= max_depth


def _problem(value: Any, max_depth: int, root: str) -> tuple[str, str] | None:
    """(path, what is wrong) for the first bad node of one field, walked iteratively with paths."""
    stack: list[tuple[Any, int, str]] = [(value, 1, root)]
    while stack:
        item, depth, path = stack.pop()
        kind = type(item)
        if kind is float:
            if not math.isfinite(item):
                name = "NaN" if math.isnan(item) else "Infinity" if item > 0 else "-Infinity"
                return path, f"is {name}: numbers must be finite (NaN and Infinity are not JSON)"
            continue
        if kind in _SCALARS:
            continue
        if kind is not dict and kind is not list:
            return path, f"is not a JSON value ({kind.__name__})"
        if depth > max_depth:
            return root, f"is nested deeper than {max_depth} levels"
        if kind is dict:
            for key in item:
                if type(key) is not str:
                    return path, f"has a non-string key {key!r}"
            stack.extend((child, depth + 1, f"{path}.{key}") for key, child in reversed(item.items()))
        else:
            stack.extend((child, depth + 1, f"{path}[{index}]") for index, child in reversed(list(enumerate(item))))
    return None
