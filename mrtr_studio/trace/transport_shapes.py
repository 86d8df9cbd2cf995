"""Transport metadata shared between messages: one copy of each distinct shape, not one per message.

A proxy-recorded trace keeps, beside every message, what the HTTP layer knew (exchange number, method,
path, status, content type, framing, the masked request headers). Packed per message that was the
biggest part of a loaded trace (about 300 bytes a message, more than the messages themselves), yet
almost all of it repeats: the headers of one client are the same on every request, and what differs
from message to message is mostly the exchange number. So a transport dict is kept as its *shape*
(its compact JSON with the exchange number cut out, one shared object for every message of that
shape) plus that message's own exchange number. Reading it splices the number back in, so the dict
comes back exactly as it was recorded, keys in their order.

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
#: What stands for the exchange number in a shape's JSON (a control character: orjson escapes it, so
#: no recorded value can produce this text unescaped).
_MARK = "\x00mrtr-exchange\x00"
_MARK_JSON = orjson.dumps(_MARK)
_INT64 = range(-(2**63), 2**64)


class Shape:
    """One distinct transport dict with its exchange number cut out: `head` + the number + `tail`
    (`tail` None: the dict has no exchange number and `head` is all of it)."""

    __slots__ = ("__weakref__", "head", "tail")

    def __init__(self, head: bytes, tail: bytes | None) -> None:
        self.head = head
        self.tail = tail

    def decode(self) -> dict[str, Any]:
        value: dict[str, Any] = orjson.loads(self.head)
        return value


class Exchanged:
    """A message's transport: its shared shape and its own exchange number."""

    __slots__ = ("exchange", "shape")

    def __init__(self, shape: Shape, exchange: int) -> None:
        self.shape = shape
        self.exchange = exchange

    def decode(self) -> dict[str, Any]:
        shape = self.shape
        value: dict[str, Any] = orjson.loads(shape.head + orjson.dumps(self.exchange) + (shape.tail or b""))
        return value


SHARED_TYPES = (Shape, Exchanged)
_shapes: "weakref.WeakValueDictionary[bytes, Shape]" = weakref.WeakValueDictionary()


def share(transport: dict[str, Any]) -> Shape | Exchanged | None:
    """`transport` as a shared shape (with its exchange number), or None when it cannot be kept exactly
    as compact JSON (a non-string key, an integer past 64 bits, a NaN) or the table is full."""
    exchange = transport.get("exchange")
    split = type(exchange) is int and exchange in _INT64
    try:
        encoded = orjson.dumps({**transport, "exchange": _MARK} if split else transport)
    except TypeError:
        return None
    if b"null" in encoded and orjson.loads(encoded) != ({**transport, "exchange": _MARK} if split else transport):
        return None  # NaN != NaN: a lossy encoding is not shared
    if not split and _MARK_JSON in encoded:
        return None  # a recorded value that looks like the mark: not shared, never misread
    shape = _shapes.get(encoded)
    if shape is None:
        if len(_shapes) >= MAX_SHAPES:
            return None
        if split:
            parts = encoded.split(_MARK_JSON)
            if len(parts) != 2:
                return None
            shape = Shape(parts[0], parts[1])
        else:
            shape = Shape(encoded, None)
        _shapes[encoded] = shape
    return Exchanged(shape, exchange) if split else shape  # type: ignore[arg-type]  # split: an int


def live_shapes() -> int:
    """How many distinct shapes messages hold now (for tests and benchmarks)."""
    return len(_shapes)
