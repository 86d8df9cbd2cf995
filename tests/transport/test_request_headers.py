"""parse_headers: what every request's headers become, agreeing with a plain reading of RFC 9110 on
padded values, repeats, non-ASCII bytes and bytes no parser should let through."""

import pytest

from mrtr_studio.transport.request_headers import parse_headers


def _one_by_one(raw: list[tuple[bytes, bytes]]) -> tuple[dict[str, str], set[str] | None]:
    """The reference: each header in turn, the last of a repeated name kept."""
    headers: dict[str, str] = {}
    repeated: set[str] = set()
    for raw_name, raw_value in raw:
        name = raw_name.decode("latin-1")
        if name in headers:
            repeated.add(name)
        headers[name] = raw_value.decode("latin-1").strip(" \t")
    return headers, repeated or None

CASES = [
    [],
    [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json")],
    [(b"host", b"a \t "), (b"x-y", b"\t b c\t"), (b"z", b"")],
    [(b"mcp-method", b"tools/call"), (b"mcp-method", b"tools/list"), (b"accept", b"*/*")],
    [(b"x-latin", b"caf\xe9"), (b"x-empty", b""), (b"x-last", b" ")],
    [(b"x-newline", b"a\nb"), (b"host", b"h")],  # an ASGI host that let a newline through
    [(b"x\nname", b"v"), (b"host", b"h")],
    [(b"a", b"1"), (b"b", b"2"), (b"a", b"3"), (b"b", b"4")],
]


@pytest.mark.parametrize("raw", CASES)
def test_the_comprehension_agrees_with_one_by_one(raw: list[tuple[bytes, bytes]]) -> None:
    assert parse_headers(raw) == _one_by_one(raw)


def test_values_are_trimmed_and_repeats_named() -> None:
    headers, repeated = parse_headers([(b"host", b"  h:1 \t"), (b"mcp-name", b"a"), (b"mcp-name", b"b")])
    assert headers == {"host": "h:1", "mcp-name": "b"}
    assert repeated == {"mcp-name"}
    assert parse_headers([(b"host", b"h")]) == ({"host": "h"}, None)
