"""Transport metadata shared between messages: one copy of each distinct shape, not one per message.

A proxy-recorded trace keeps, beside every message, what the HTTP layer knew (exchange number, method,
path, status, content type, framing, the masked request headers). Packed per message that was the
biggest part of a loaded trace (about 300 bytes a message, more than the messages themselves), yet
almost all of it repeats: the headers of one client are the same on every request, and what differs
from message to message is mostly the exchange number. A recording made through `proxy --trace` has no exchange
number but, beside it, values that differ on nearly every message: the body's content-length, the
response's date and server-timing, the client connection's peer. So a transport dict is kept as its
*shape* (its compact JSON with those values cut out, one shared object for every message of that
shape) plus that message's own values. Reading it splices them back in, so the dict comes back
exactly as it was recorded, keys in their order.

Shapes live in a table of weak references: a shape lasts as long as some message holds it, so
opening trace after trace does not grow the table. It holds at most `MAX_SHAPES`; past that (a
transport field that differs on every message) new ones are packed per message as before, so an
unusual trace costs what it did, never more.
"""

import weakref
from typing import Any

import orjson

#: Live shapes at most: beyond, metadata that never repeats is not worth a table entry per message.
MAX_SHAPES = 10_000
#: Top-level fields each message keeps its own value of: the exchange number, the client connection
#: (a new port per keep-alive connection), an SSE event's id.
VARYING_FIELDS = frozenset({"exchange", "peer", "event_id"})
#: Header fields that differ from message to message (a body's length, the server's clock and timing).
VARYING_HEADERS = frozenset({"content-length", "date", "server-timing", "traceparent", "x-request-id", "age",
                             "etag", "last-modified", "expires"})
#: What stands for a cut value in a shape's JSON (a control character: orjson escapes it, so no
#: recorded value can produce this text unescaped).
_MARK = "\x00mrtr-exchange\x00"
_MARK_JSON = orjson.dumps(_MARK)
_INT64 = range(-(2**63), 2**64)


class Shape:
    """One distinct transport dict with its varying values cut out: its JSON in `parts`, a cut value
    going between each two (one part: nothing was cut)."""

    __slots__ = ("__weakref__", "parts")

    def __init__(self, parts: tuple[bytes, ...]) -> None:
        self.parts = parts

    def decode(self) -> dict[str, Any]:
        value: dict[str, Any] = orjson.loads(self.parts[0])
        return value


class Exchanged:
    """A message's transport: its shared shape and its own cut values, as their JSON joined by NULs
    (no JSON text holds a raw NUL), or the one integer when that is all (the exchange number)."""

    __slots__ = ("shape", "values")

    def __init__(self, shape: Shape, values: bytes | int) -> None:
        self.shape = shape
        self.values = values

    def decode(self) -> dict[str, Any]:
        parts, values = self.shape.parts, self.values
        cut = [str(values).encode()] if type(values) is int else values.split(b"\x00")  # type: ignore[union-attr]
        spliced = [parts[0]]
        for value, part in zip(cut, parts[1:], strict=True):
            spliced += (value, part)
        decoded: dict[str, Any] = orjson.loads(b"".join(spliced))
        return decoded


SHARED_TYPES = (Shape, Exchanged)
_shapes: "weakref.WeakValueDictionary[bytes, Shape]" = weakref.WeakValueDictionary()


def _cuttable(value: Any) -> bool:
    return type(value) is str or (type(value) is int and value in _INT64)


def _cut(transport: dict[str, Any], cut: list[Any]) -> dict[str, Any]:
    """`transport` with its varying values replaced by the mark, appended to `cut` in JSON order."""
    template: dict[str, Any] = {}
    for key, value in transport.items():
        if key in VARYING_FIELDS and _cuttable(value):
            cut.append(value)
            value = _MARK
        elif type(value) is dict and type(key) is str and key.endswith("_headers"):
            headers = {}
            for name, field in value.items():
                if name in VARYING_HEADERS and _cuttable(field):
                    cut.append(field)
                    field = _MARK
                headers[name] = field
            value = headers
        template[key] = value
    return template


def share(transport: dict[str, Any]) -> Shape | Exchanged | None:
    """`transport` as a shared shape (with its own varying values), or None when it cannot be kept
    exactly as compact JSON (a non-string key, an integer past 64 bits, a NaN) or the table is full."""
    cut: list[Any] = []
    template = _cut(transport, cut)
    try:
        encoded = orjson.dumps(template)
    except TypeError:
        return None
    if b"null" in encoded and orjson.loads(encoded) != template:
        return None  # NaN != NaN: a lossy encoding is not shared
    if encoded.count(_MARK_JSON) != len(cut):
        return None  # a recorded value that looks like the mark: not shared, never misread
    shape = _shapes.get(encoded)
    if shape is None:
        if len(_shapes) >= MAX_SHAPES:
            return None
        shape = Shape(tuple(encoded.split(_MARK_JSON)))
        _shapes[bytes(memoryview(encoded))] = shape  # a copy of the exact size: orjson's buffer is over-allocated
    if not cut:
        return shape
    if len(cut) == 1 and type(cut[0]) is int:
        return Exchanged(shape, cut[0])
    return Exchanged(shape, b"\x00".join(map(orjson.dumps, cut)))


def live_shapes() -> int:
    """How many distinct shapes messages hold now (for tests and benchmarks)."""
    return len(_shapes)
