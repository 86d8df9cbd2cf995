"""`x-mcp-header`: tool parameters mirrored into `Mcp-Param-{Name}` HTTP headers (Streamable HTTP).

Servers annotate a parameter's schema; clients MUST mirror the value into the header and MUST drop
tool definitions whose annotations break the rules; servers MUST reject a request whose headers do
not match its body with -32020. Both sides use this one module so they cannot disagree.
"""

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any

ANNOTATION = "x-mcp-header"
PREFIX = "Mcp-Param-"
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")  # RFC 9110 tchar
_SAFE_INTEGER = 2**53 - 1
_NOT_STATIC = ("items", "prefixItems", "additionalProperties", "patternProperties", "oneOf", "anyOf", "allOf",
               "not", "if", "then", "else", "$ref", "$defs", "definitions", "dependentSchemas", "contains")
SENTINEL_START, SENTINEL_END = "=?base64?", "?="


class InvalidAnnotation(ValueError):
    """A tool definition whose `x-mcp-header` annotations break the spec's constraints."""


@dataclass(frozen=True)
class HeaderParam:
    name: str  # the part after Mcp-Param-
    path: tuple[str, ...]  # property names from the schema root
    type: str  # string | integer | boolean

    @property
    def header(self) -> str:
        return PREFIX + self.name


def annotations(input_schema: Any) -> list[HeaderParam]:
    """Every `x-mcp-header` of a tool's inputSchema; InvalidAnnotation names the first broken rule."""
    found: list[HeaderParam] = []
    _walk(input_schema, (), True, found)
    seen: set[str] = set()
    for param in found:
        if param.name.lower() in seen:
            raise InvalidAnnotation(f"x-mcp-header {param.name!r} is used twice (names are case-insensitive)")
        seen.add(param.name.lower())
    return found


def _walk(schema: Any, path: tuple[str, ...], static: bool, found: list[HeaderParam]) -> None:
    if isinstance(schema, list):
        for item in schema:
            _walk(item, path, False, found)
        return
    if not isinstance(schema, dict):
        return
    if ANNOTATION in schema:
        where = "/".join(path) or "(root)"
        if not static or not path:
            raise InvalidAnnotation(f"x-mcp-header at {where} is not reachable through `properties` alone")
        name = schema[ANNOTATION]
        if not isinstance(name, str) or not name or not _TOKEN.match(name):
            raise InvalidAnnotation(f"x-mcp-header {name!r} at {where} is not an HTTP field-name token")
        kind = schema.get("type")
        if kind not in ("string", "integer", "boolean"):
            raise InvalidAnnotation(f"x-mcp-header {name!r} at {where} is on a {kind or 'untyped'} parameter "
                                    "(only string, integer and boolean are allowed)")
        found.append(HeaderParam(name, path, kind))
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for key, sub in properties.items():
            _walk(sub, (*path, str(key)), static, found)
    for keyword in _NOT_STATIC:
        if keyword in schema:
            sub = schema[keyword]
            values = sub.values() if isinstance(sub, dict) and keyword in (
                "$defs", "definitions", "patternProperties", "dependentSchemas") else [sub]
            for value in values:
                _walk(value, path, False, found)


def _value_at(arguments: Any, path: tuple[str, ...]) -> Any:
    current = arguments
    for key in path:
        if not isinstance(current, dict) or key not in current:
            return None
        current = current[key]
    return current


def encode(value: str) -> str:
    """Value Encoding: visible ASCII as-is; non-ASCII, control characters, edge spaces or the sentinel in base64."""
    safe = all(0x20 <= ord(c) <= 0x7E for c in value) and value == value.strip()
    if safe and not (value.startswith(SENTINEL_START) and value.endswith(SENTINEL_END)):
        return value
    return SENTINEL_START + base64.b64encode(value.encode("utf-8")).decode("ascii") + SENTINEL_END


def decode(value: str) -> str | None:
    """The header value as sent by the client; None when it is not a valid (possibly encoded) value."""
    if value.startswith(SENTINEL_START) and value.endswith(SENTINEL_END):
        try:
            return base64.b64decode(value[len(SENTINEL_START):-len(SENTINEL_END)], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
    # Visible ASCII and tabs only: checked in C (isascii, isprintable) rather than a loop over characters.
    if not value.isascii() or not value.replace("\t", " ").isprintable():
        return None
    return value


def text_of(param: HeaderParam, value: Any) -> str | None:
    """The header text for a body value, None when the value has nothing to mirror (absent or null)."""
    if value is None:
        return None
    if param.type == "boolean" and isinstance(value, bool):
        return "true" if value else "false"
    if param.type == "integer" and isinstance(value, int) and not isinstance(value, bool):
        if abs(value) > _SAFE_INTEGER:
            raise InvalidAnnotation(f"{param.header}: {value} is outside the JavaScript-safe integer range")
        return str(value)
    return str(value) if isinstance(value, str) else None


def headers_for(params: list[HeaderParam], arguments: Any) -> dict[str, str]:
    """The Mcp-Param-* headers a client must send with these arguments."""
    headers: dict[str, str] = {}
    for param in params:
        text = text_of(param, _value_at(arguments, param.path))
        if text is not None:
            headers[param.header] = encode(text)
    return headers


def mismatch(params: list[HeaderParam], arguments: Any, headers: dict[str, str]) -> str | None:
    """What the request's Mcp-Param-* headers get wrong against its body (headers keyed lower-case)."""
    for param in params:
        body = _value_at(arguments, param.path)
        raw = headers.get(param.header.lower())
        if body is None:
            continue  # absent or null: the header is not expected
        if raw is None:
            return f"{param.header} header is missing but params.arguments.{'.'.join(param.path)} is present"
        sent = decode(raw)
        if sent is None:
            return f"{param.header} header value {raw!r} has invalid characters or a broken encoding"
        if not _same(param, sent, body):
            return f"{param.header} header value {sent!r} does not match body value {body!r}"
    return None


def _same(param: HeaderParam, sent: str, body: Any) -> bool:
    if param.type == "integer":  # compared numerically: "42.0" and 42 are equal
        try:
            return isinstance(body, int | float) and not isinstance(body, bool) and float(sent) == float(body)
        except ValueError:
            return False
    try:
        return sent == text_of(param, body)
    except InvalidAnnotation:
        return False
