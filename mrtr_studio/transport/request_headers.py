"""Reading a request's headers for `serve`: names and values as RFC 9110 has them, the Host split into
name and port, and the request metadata a 2026-07-28 POST mirrors from its body checked against it
(a contradiction is -32020 before any handler runs)."""

from collections.abc import Sequence
from typing import Any

from ..protocol import param_headers
from ..protocol.versions import META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, NAME_FIELDS

#: Headers that mirror the body (2026-07-28): sent twice, a gateway reading the first and the server
#: the last would see different requests, so a repeat is a header mismatch (-32020).
MIRRORED_HEADERS = frozenset({"mcp-protocol-version", "mcp-method", "mcp-name"})


#: Header names already decoded: clients send the same dozen on every request (bounded, so a peer
#: inventing names costs a decode each, never memory).
_NAMES: dict[bytes, str] = {}
_MOST_NAMES = 256


def parse_headers(raw: Sequence[tuple[bytes, bytes]]) -> tuple[dict[str, str], set[str] | None]:
    """Header name -> value with surrounding whitespace removed (RFC 9110 5.5: it is not part of the
    value; a repeated name keeps its last value), and the names sent more than once (None when none
    was: the usual case costs one loop and a length comparison)."""
    names = _NAMES
    headers: dict[str, str] = {}
    for raw_name, raw_value in raw:
        text = names.get(raw_name)
        if text is None:
            text = raw_name.decode("latin-1")
            if len(names) < _MOST_NAMES:
                names[raw_name] = text
        headers[text] = raw_value.decode("latin-1").strip(" \t")
    if len(headers) == len(raw):
        return headers, None
    seen: set[str] = set()
    repeated: set[str] = set()
    for raw_name, _ in raw:
        name = raw_name.decode("latin-1")
        (repeated if name in seen else seen).add(name)
    return headers, repeated


def split_host(host: str) -> tuple[str | None, int | None]:
    """`name[:port]` or `[v6][:port]` -> (name, port); (None, None) when it is not a host at all."""
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            return None, None
        name, rest = host[1:end], host[end + 1:]
        if rest and not rest.startswith(":"):
            return None, None
        port_text = rest[1:] if rest else ""
    else:
        name, _, port_text = host.partition(":")
    if not port_text:
        return (name or None), None
    if not port_text.isdigit() or len(port_text) > 5:
        return None, None
    return (name or None), int(port_text)


def decode_header_value(value: str) -> str:
    """Undo the spec's `=?base64?…?=` sentinel encoding (Mcp-Name, Mcp-Param-*); invalid -> a marker."""
    decoded = param_headers.decode(value)
    return "\x00invalid" if decoded is None else decoded


def header_problem(message: dict[str, Any], headers: dict[str, str],
                    header_params: list[param_headers.HeaderParam] | None = None,
                    repeated: set[str] | None = None) -> str | None:
    """What the mirrored headers get wrong, once `_meta` is well-formed (else the engine says -32602)."""
    params = message.get("params") or {}
    meta = params.get("_meta")
    if not isinstance(meta, dict):
        return None
    version = meta.get(META_PROTOCOL_VERSION)
    if not isinstance(version, str) or not isinstance(meta.get(META_CLIENT_CAPABILITIES), dict):
        return None
    twice = sorted(name for name in repeated if name in MIRRORED_HEADERS or name.startswith("mcp-param-")) \
        if repeated else None
    if twice:
        return f"the {', '.join(twice)} header is sent more than once (each must appear once)"
    header = headers.get("mcp-protocol-version")
    if header != version:
        return f"MCP-Protocol-Version header {header!r} does not match _meta protocolVersion {version!r}"
    method = message["method"]
    if headers.get("mcp-method") != method:
        return f"Mcp-Method header {headers.get('mcp-method')!r} does not match body method {method!r}"
    field_name = NAME_FIELDS.get(method)
    if field_name is not None and field_name in params:
        raw = headers.get("mcp-name")
        if raw is None or decode_header_value(raw) != params[field_name]:
            return f"Mcp-Name header {raw!r} does not match params.{field_name} {params[field_name]!r}"
    if header_params:
        return param_headers.mismatch(header_params, params.get("arguments"), headers)
    return None
