"""A small JSONC reader that remembers where every value sits, so a config is edited in place.

VS Code's `mcp.json` and settings are JSON with comments (`//`, `/* */`) and trailing commas; a
rewrite through `json.dumps` would drop the comments and reformat the file. No well-kept Python
library both reads JSONC and writes it back with its comments (json5 and commentjson lose them), and
the need is small: parse once, note each value's byte span, and replace a few spans (`splice`).
Everything else — comments, commas, indentation, key order — stays byte for byte.

Bounded: nesting at most MAX_DEPTH; the caller bounds the size. Errors are JsoncError with the
line and column.
"""

import json
from dataclasses import dataclass, field
from typing import Any

MAX_DEPTH = 64
_WS = " \t\r\n\ufeff"
_LITERALS = {"true": True, "false": False, "null": None}


class JsoncError(ValueError):
    pass


@dataclass
class Node:
    """A value and its span [start, end) in the text; an object's members by key (the last one wins,
    as in JSON.parse), an array's items."""

    start: int
    end: int
    value: Any
    members: dict[str, "Node"] = field(default_factory=dict)
    items: list["Node"] = field(default_factory=list)

    def get(self, key: str) -> "Node | None":
        return self.members.get(key)


def parse(text: str) -> Node:
    parser = _Parser(text)
    parser.skip()
    node = parser.value(0)
    parser.skip()
    if parser.pos != len(text):
        parser.fail("unexpected text after the value")
    return node


def splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end, replacement) applied; spans must not overlap."""
    out = []
    last = len(text)
    for start, end, replacement in sorted(edits, key=lambda e: e[0], reverse=True):
        if end > last:
            raise ValueError("overlapping edits")
        out.append(text[end:last])
        out.append(replacement)
        last = start
    out.append(text[:last])
    return "".join(reversed(out))


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, why: str) -> None:
        line = self.text.count("\n", 0, self.pos) + 1
        column = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        raise JsoncError(f"{why} at line {line} column {column}")

    def skip(self) -> None:
        """Whitespace and comments."""
        text, n = self.text, len(self.text)
        while self.pos < n:
            char = text[self.pos]
            if char in _WS:
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end + 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    self.fail("unterminated comment")
                self.pos = end + 2
            else:
                return

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            self.fail(f"nesting deeper than {MAX_DEPTH}")
        if self.pos >= len(self.text):
            self.fail("unexpected end")
        char = self.text[self.pos]
        if char == "{":
            return self.obj(depth)
        if char == "[":
            return self.arr(depth)
        if char == '"':
            start = self.pos
            text = self.string()
            return Node(start, self.pos, text)
        return self.scalar()

    def string(self) -> str:
        decoder = json.JSONDecoder()
        try:
            value, end = decoder.raw_decode(self.text, self.pos)
        except json.JSONDecodeError as exc:
            self.pos = exc.pos
            self.fail(f"bad string ({exc.msg})")
        if not isinstance(value, str):
            self.fail("expected a string")
        self.pos = end
        return str(value)

    def scalar(self) -> Node:
        start = self.pos
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, start):
                self.pos = start + len(word)
                return Node(start, self.pos, literal)
        decoder = json.JSONDecoder()
        try:
            value, end = decoder.raw_decode(self.text, start)
        except json.JSONDecodeError:
            self.fail("expected a value")
        if not isinstance(value, int | float):
            self.fail("expected a value")
        self.pos = end
        return Node(start, end, value)

    def obj(self, depth: int) -> Node:
        start = self.pos
        self.pos += 1
        node = Node(start, start, {})
        while True:
            self.skip()
            if self.text.startswith("}", self.pos):
                break
            if not self.text.startswith('"', self.pos):
                self.fail("expected a key")
            key = self.string()
            self.skip()
            if not self.text.startswith(":", self.pos):
                self.fail("expected ':'")
            self.pos += 1
            self.skip()
            member = self.value(depth + 1)
            node.members[key] = member
            node.value[key] = member.value
            if not self.more("}"):
                break
        return self.closed(node)

    def arr(self, depth: int) -> Node:
        start = self.pos
        self.pos += 1
        node = Node(start, start, [])
        while True:
            self.skip()
            if self.text.startswith("]", self.pos):
                break
            item = self.value(depth + 1)
            node.items.append(item)
            node.value.append(item.value)
            if not self.more("]"):
                break
        return self.closed(node)

    def more(self, close: str) -> bool:
        """After a member or item: True past a comma (a trailing comma before `close` is JSONC, the loop
        sees it), False at `close`; anything else is a mistake."""
        self.skip()
        if self.text.startswith(",", self.pos):
            self.pos += 1
            return True
        if not self.text.startswith(close, self.pos):
            self.fail(f"expected ',' or '{close}'")
        return False

    def closed(self, node: Node) -> Node:
        """`node` ends past its closing bracket."""
        self.pos += 1
        node.end = self.pos
        return node
