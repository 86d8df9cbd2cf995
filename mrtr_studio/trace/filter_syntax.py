"""The filter language's syntax: tokenizer, recursive-descent parser and AST (DESIGN.md: the same
language for `mrtr-studio trace filter` and the window's filter bar).

    expr     := or
    or       := and ("or" and)*
    and      := unary (["and"] unary)*          -- juxtaposition is "and"
    unary    := "not" unary | "-" unary | primary
    primary  := "(" expr ")" | term
    term     := FIELD OP VALUE | WORD | "quoted text"
    OP       := ":" | "=" | ">" | "<" | ">=" | "<=" | ":>" | ":<" | ":>=" | ":<="

A bare word or a quoted string searches the text of the message. Values may be quoted
(`text:"two words"`). Every value is checked here, not when a message is tested, so a typo is an
error at its position (`FilterError(position, message)`) and never a filter that silently matches
nothing. Numbers take units: durations `ms` or `s` (bare: ms), sizes `B`, `KB`, `MB`, `GB` (bare: B).

Kept apart from the evaluator (trace/filter.py) so the window's completion and highlighting can
parse without building predicates.
"""

import re
from dataclasses import dataclass
from typing import Literal

Comparator = Literal["=", ">", "<", ">=", "<="]
#: Field -> what its values are.
FIELDS: dict[str, str] = {
    "method": "text", "tool": "text", "kind": "choice", "round": "int", "op": "text", "dir": "choice",
    "era": "choice", "principal": "text", "code": "int", "finding": "text", "state": "choice",
    "duration": "duration", "size": "size", "task": "text", "text": "text",
}
KINDS = ("request", "input_required", "complete", "task", "error", "notification", "server_request",
         "client_response", "invalid", "auth")
DIRECTIONS = {"c2s": "client->server", "client->server": "client->server", "s2c": "server->client",
              "server->client": "server->client"}
CHOICES: dict[str, tuple[str, ...]] = {
    "kind": KINDS,
    "dir": tuple(DIRECTIONS),
    "era": ("modern", "legacy"),
    "state": ("present", "altered", "absent"),
}
KEYWORDS = ("and", "or", "not")
MAX_FILTER_CHARS = 10_000
MAX_DEPTH = 100
_DURATION_UNITS = {"": 1.0, "ms": 1.0, "s": 1000.0}
_SIZE_UNITS = {"": 1, "b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3}
_NUMBER = re.compile(r"^(-?\d+(?:\.\d+)?)\s*([a-zA-Z]*)$")
_FIELD = re.compile(r"^([A-Za-z_]+)(:>=|:<=|:>|:<|:=|:|>=|<=|=|>|<)")


class FilterError(ValueError):
    """A filter that cannot be read: where (0-based character offset) and what was expected there."""

    def __init__(self, position: int, message: str) -> None:
        super().__init__(f"at {position + 1}: {message}")
        self.position = position
        self.message = message


@dataclass(frozen=True, slots=True)
class Term:
    """`field OP value`; `position` is where the value starts; `number` holds the value of int,
    duration (ms) and size (bytes) fields."""

    field: str
    comparator: Comparator
    value: str
    position: int
    number: float | None = None


@dataclass(frozen=True, slots=True)
class Text:
    """A bare word or quoted string: a case-insensitive search of the message's JSON text."""

    value: str
    position: int


@dataclass(frozen=True, slots=True)
class Not:
    item: "Node"


@dataclass(frozen=True, slots=True)
class And:
    items: tuple["Node", ...]


@dataclass(frozen=True, slots=True)
class Or:
    items: tuple["Node", ...]


@dataclass(frozen=True, slots=True)
class Everything:
    """The empty filter: every message."""


Node = Term | Text | Not | And | Or | Everything


@dataclass(frozen=True, slots=True)
class Token:
    kind: Literal["word", "(", ")", "end"]
    position: int
    text: str = ""
    #: Where the first quoted part starts in `text` (None: nothing quoted); keywords and fields are unquoted.
    quoted_from: int | None = None

    @property
    def bare(self) -> bool:
        return self.quoted_from is None


def tokenize(source: str) -> list[Token]:
    """Words (quoted parts unquoted, `\\"` and `\\\\` escapes), parentheses, then an end token."""
    if len(source) > MAX_FILTER_CHARS:
        raise FilterError(MAX_FILTER_CHARS, f"the filter is {len(source)} characters, over {MAX_FILTER_CHARS}")
    tokens: list[Token] = []
    i, n = 0, len(source)
    while i < n:
        char = source[i]
        if char.isspace():
            i += 1
            continue
        if char in "()":
            tokens.append(Token(char, i))  # type: ignore[arg-type]
            i += 1
            continue
        start, quoted_from = i, None
        out: list[str] = []
        while i < n and not source[i].isspace() and source[i] not in "()":
            if source[i] == '"':
                quote_at = i
                if quoted_from is None:
                    quoted_from = len(out)
                i += 1
                while i < n and source[i] != '"':
                    if source[i] == "\\" and i + 1 < n and source[i + 1] in '"\\':
                        i += 1
                    out.append(source[i])
                    i += 1
                if i >= n:
                    raise FilterError(quote_at, 'unclosed quote: expected a closing "')
                i += 1
            else:
                out.append(source[i])
                i += 1
        tokens.append(Token("word", start, "".join(out), quoted_from))
    tokens.append(Token("end", n))
    return tokens


class _Parser:
    def __init__(self, source: str) -> None:
        self.tokens = tokenize(source)
        self.at = 0
        self.depth = 0

    def peek(self) -> Token:
        return self.tokens[self.at]

    def take(self) -> Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def keyword(self, word: str) -> bool:
        token = self.peek()
        return token.kind == "word" and token.bare and token.text.lower() == word

    def parse(self) -> Node:
        if self.peek().kind == "end":
            return Everything()
        node = self.expression()
        token = self.peek()
        if token.kind != "end":
            raise FilterError(token.position, "unexpected ')': no '(' opened it" if token.kind == ")"
                              else f"unexpected {token.text!r}")
        return node

    def expression(self) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FilterError(self.peek().position, f"nested deeper than {MAX_DEPTH} levels")
        items = [self.conjunction()]
        while self.keyword("or"):
            self.take()
            items.append(self.conjunction())
        self.depth -= 1
        return items[0] if len(items) == 1 else Or(tuple(items))

    def conjunction(self) -> Node:
        items = [self.unary()]
        while True:
            token = self.peek()
            if token.kind in (")", "end") or self.keyword("or"):
                break
            if self.keyword("and"):
                self.take()
            items.append(self.unary())
        return items[0] if len(items) == 1 else And(tuple(items))

    def unary(self) -> Node:
        token = self.peek()
        if self.keyword("not"):
            self.take()
            return Not(self.operand(token))
        if token.kind == "word" and token.text == "-" and token.bare:
            self.take()
            return Not(self.operand(token))
        if token.kind == "word" and token.text.startswith("-") and (token.quoted_from is None or token.quoted_from > 0):
            self.take()
            quoted = None if token.quoted_from is None else token.quoted_from - 1
            return Not(self.term(Token("word", token.position + 1, token.text[1:], quoted)))
        return self.primary()

    def operand(self, negation: Token) -> Node:
        if self.peek().kind in (")", "end") or self.keyword("or") or self.keyword("and"):
            raise FilterError(self.peek().position, f"expected a term or '(' after {negation.text or 'not'!r}")
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FilterError(self.peek().position, f"nested deeper than {MAX_DEPTH} levels")
        node = self.unary()
        self.depth -= 1
        return node

    def primary(self) -> Node:
        token = self.take()
        if token.kind == "(":
            if self.peek().kind == ")":
                raise FilterError(self.peek().position, "expected a term inside '( )'")
            node = self.expression()
            closing = self.take()
            if closing.kind != ")":
                raise FilterError(closing.position, f"expected ')' to close the '(' at {token.position + 1}")
            return node
        if token.kind == ")":
            raise FilterError(token.position, "expected a term, not ')'")
        if token.kind == "end":
            raise FilterError(token.position, "expected a term at the end of the filter")
        return self.term(token)

    def term(self, token: Token) -> Node:
        head = token.text if token.quoted_from is None else token.text[:token.quoted_from]
        found = _FIELD.match(head)
        if found is None:
            if token.bare and ":" in head and head.split(":", 1)[0].isidentifier():
                name = head.split(":", 1)[0]
                raise FilterError(token.position, f"unknown field {name!r}: expected one of {', '.join(FIELDS)} "
                                                  '(quote the word to search for it as text)')
            if token.bare and token.text.lower() in KEYWORDS:
                raise FilterError(token.position, f"expected a term, not {token.text!r}")
            return Text(token.text, token.position)
        name, op = found.group(1).lower(), found.group(2)
        if name not in FIELDS:
            raise FilterError(token.position, f"unknown field {found.group(1)!r}: expected one of {', '.join(FIELDS)} "
                                              "(quote the word to search for it as text)")
        value = token.text[found.end():]
        value_at = token.position + found.end()
        comparator: str = op.lstrip(":") or "="
        if op == ":" and (token.quoted_from is None or token.quoted_from > found.end()):
            for candidate in (">=", "<=", ">", "<", "="):
                if value.startswith(candidate):
                    comparator, value, value_at = candidate, value[len(candidate):], value_at + len(candidate)
                    break
        quoted = token.quoted_from is not None and token.quoted_from >= found.end()
        return _checked(name, comparator, value, value_at, quoted)  # type: ignore[arg-type]


def _checked(name: str, comparator: Comparator, value: str, position: int, quoted: bool = False) -> Term:
    """The term, with its value read and checked against what the field takes (`""` is a value)."""
    kind = FIELDS[name]
    if not value and not (quoted and kind == "text"):
        raise FilterError(position, f"expected a value after {name}:" + _examples(name))
    if kind in ("text", "choice") and comparator != "=":
        raise FilterError(position - len(comparator), f"{name}: compares with ':' or '=', not {comparator!r}")
    if kind == "choice":
        if value.lower() not in CHOICES[name]:
            raise FilterError(position, f"{name}: expected one of {', '.join(CHOICES[name])}, not {value!r}")
        value = value.lower()
        if name == "dir":
            value = DIRECTIONS[value]
        return Term(name, comparator, value, position)
    if kind == "text":
        return Term(name, comparator, value, position)
    found = _NUMBER.match(value)
    units = _DURATION_UNITS if kind == "duration" else _SIZE_UNITS if kind == "size" else {"": 1}
    if found is None or found.group(2).lower() not in units:
        raise FilterError(position, f"{name}: expected {_number_kind(kind)}, not {value!r}")
    number = float(found.group(1)) * units[found.group(2).lower()]
    if kind == "int" and not float(found.group(1)).is_integer():
        raise FilterError(position, f"{name}: expected a whole number, not {value!r}")
    return Term(name, comparator, value, position, number)


def _number_kind(kind: str) -> str:
    return {"duration": "a duration like 500ms or 2s", "size": "a size like 512B, 10KB or 1MB",
            "int": "a whole number"}[kind]


def _examples(name: str) -> str:
    if name in CHOICES:
        return f" ({', '.join(CHOICES[name])})"
    return {"duration": " (e.g. >500ms)", "size": " (e.g. >1MB)", "round": " (e.g. >1)",
            "code": " (e.g. -32602)"}.get(name, "")


def parse(source: str) -> Node:
    """The AST of a filter, or FilterError naming the position and what was expected."""
    return _Parser(source).parse()
