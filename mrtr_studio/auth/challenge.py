"""WWW-Authenticate parsing (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1).

Only the Bearer challenge matters to MCP (or the DPoP one, RFC 9449 §7.1, from a server that binds
tokens to a key); its auth-params (`resource_metadata`, `scope`, `error`, ...)
are returned as a dict with lower-cased names. Quoted strings honour backslash escapes; anything
malformed is skipped rather than raised, since a server's header is input, not a promise.
"""

import re

MAX_HEADER = 8192

_PARAM = re.compile(r'\s*([!#$%&\'*+\-.^_`|~0-9A-Za-z]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]*)\s*,?')
_SCHEME = re.compile(r"\s*([!#$%&'*+\-.^_`|~0-9A-Za-z]+)(?:\s+|$)")


def bearer_params(header: str | None) -> dict[str, str]:
    """The parameters of the Bearer challenge in `header`, else of its DPoP one ({} when there is neither)."""
    text = (header or "")[:MAX_HEADER]
    position, scheme, found = 0, "", {}
    challenges: list[tuple[str, dict[str, str]]] = []
    while position < len(text):
        param = _PARAM.match(text, position)
        if param and scheme and param.end() > position and "=" in param.group(0):
            value = param.group(2)
            if value.startswith('"'):
                value = re.sub(r"\\(.)", r"\1", value[1:-1])
            found[param.group(1).lower()] = value
            position = param.end()
            continue
        start = _SCHEME.match(text, position)
        if not start or start.end() == position:
            position += 1
            continue
        if scheme:
            challenges.append((scheme, found))
        scheme, found = start.group(1).lower(), {}
        position = start.end()
    if scheme:
        challenges.append((scheme, found))
    return next((params for name, params in challenges if name == "bearer"),
                next((params for name, params in challenges if name == "dpop"), {}))
