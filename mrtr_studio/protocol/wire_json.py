"""The one bounded JSON reader for everything a peer sends (HTTP bodies, SSE data, stdio lines).

A debugger is pointed at half-written and hostile peers, so every decode is limited in size and in
nesting depth before any other code sees the value: a body of 100k `[` or arguments nested a
thousand deep must become a clear error, never a RecursionError deep inside validation or hashing.

orjson parses (fast, and it refuses more than 1024 levels by itself); when the text holds an integer
of 19 or more digits the stdlib parses again, because orjson would turn a big integer (say a JSON-RPC
id) into a float and the echo would no longer match. The stdlib only runs on text orjson already
accepted, so it never recurses past orjson's bound, and the depth is checked on the result.
"""

import json
from typing import Any

import orjson

#: Default ceilings; callers that own a configurable limit pass their own.
MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 64

#: One C pass marks what the checks after orjson need: digits become `0` (a run of 19 digits is then
#: a run of 19 zeros, found by a substring search; a regex scan costs more than orjson's parse), both
#: opening brackets become `[` (counted for the depth bound), every other byte a space.
_SCAN_MASK = bytes(ord("0") if ord("0") <= byte <= ord("9") else ord("[") if byte in b"[{" else ord(" ")
                   for byte in range(256))
_NINETEEN_DIGITS = b"0" * 19


class WireJsonError(ValueError):
    """Text that is not JSON, or JSON over a size or depth bound; `reason` says which."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason  # "size", "depth" or "syntax"

    def described(self, syntax: str) -> str:
        """What a trace notes for it: `syntax` for text that is not JSON, else the limit it went over."""
        return syntax if self.reason == "syntax" else f"JSON over the {self.reason} limit"


def depth_of(value: Any, limit: int) -> int:
    """Nesting depth of a decoded value, walked iteratively; stops counting once past `limit`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest


def loads(data: bytes | str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """Decode one JSON text within the bounds, or raise WireJsonError."""
    return loads_counted(data, max_bytes=max_bytes, max_depth=max_depth)[0]


def loads_counted(data: bytes | str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> tuple[Any, int]:
    """`loads`, and the text's number of brackets: a bound on the value's depth that costs nothing more
    (the depth check counts them anyway), so a later, tighter depth check can often be skipped."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if len(raw) > max_bytes:
        raise WireJsonError("size", f"JSON text of {len(raw)} bytes is over the limit of {max_bytes} bytes")
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc) or "recursion" in str(exc).lower():
            raise WireJsonError("depth", f"JSON nested deeper than {max_depth} levels") from None
        raise WireJsonError("syntax", f"not JSON: {exc}") from None
    # Each level opens a bracket, so text with few of them cannot be too deep: the usual small
    # message skips the walk (counting bytes is C-fast; the walk costs microseconds per message).
    # Integers of 19 or more digits are read again by the stdlib (orjson would make floats of them).
    marked = raw.translate(_SCAN_MASK)
    brackets = marked.count(b"[")
    if brackets > max_depth and depth_of(value, max_depth) > max_depth:
        raise WireJsonError("depth", f"JSON nested deeper than {max_depth} levels")
    if _NINETEEN_DIGITS in marked:
        value = json.loads(raw)
    return value, brackets
