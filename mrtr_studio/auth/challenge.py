"""WWW-Authenticate parsing (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1).

Only the Bearer challenge matters to MCP (or the DPoP one, RFC 9449 §7.1, from a server that binds
tokens to a key: `schemes` says which a server offered, so a client uses DPoP only where it is taken);
its auth-params (`resource_metadata`, `scope`, `error`, ...)
are returned as a dict with lower-cased names. Quoted strings honour backslash escapes; anything
malformed is skipped rather than raised, since a server's header is input, not a promise.
"""

import re

from ..protocol.peer_text import printable

MAX_HEADER = 8192

_PARAM = re.compile(r'\s*([!#$%&\'*+\-.^_`|~0-9A-Za-z]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]*)\s*,?')
_SCHEME = re.compile(r"\s*([!#$%&'*+\-.^_`|~0-9A-Za-z]+)(?:\s+|$)")


def bearer_params(header: str | None) -> dict[str, str]:
    """The parameters of the Bearer challenge in `header`, else of its DPoP one ({} when there is neither)."""
    found = challenges(header)
    return next((params for name, params in found if name == "bearer"),
                next((params for name, params in found if name == "dpop"), {}))


def schemes(header: str | None) -> set[str]:
    """The (lower-cased) schemes `header` challenges with: `dpop` there means the resource takes DPoP tokens."""
    return {name for name, _ in challenges(header)}


def reason(params: object) -> str:
    """The server's `error` and `error_description` (RFC 6750 §3, or a token endpoint's JSON object, RFC 6749
    §5.2) as one printable phrase ("" when it gave neither): what a person needs to see on a refusal."""
    if not isinstance(params, dict):
        return ""
    error, description = params.get("error"), params.get("error_description")
    parts = [printable(error, 80)] if isinstance(error, str) and error else []
    if isinstance(description, str) and description:
        parts.append(printable(description))
    return ": ".join(parts)


def refusal(status: int, url: str, header: str | None, attempts: int | None = None) -> str:
    """The one-line message for a request the server kept refusing: its status, how many authorizations were
    tried, and the server's own reason from its challenge (escaped), which is what the person can act on."""
    why = reason(bearer_params(header))
    tried = f": still refused after {attempts} authorization attempt(s)" if attempts is not None else ""
    if not why and attempts is None and header:
        why = printable(header)  # no error parameters: the challenge itself is all the server said
    return f"HTTP {status} from {url}{tried}" + (f": {why}" if why else "")


def challenges(header: str | None) -> list[tuple[str, dict[str, str]]]:
    """Every challenge in `header`: its lower-cased scheme and its auth-params."""
    text = (header or "")[:MAX_HEADER]
    position, scheme, found = 0, "", {}
    found_all: list[tuple[str, dict[str, str]]] = []
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
            found_all.append((scheme, found))
        scheme, found = start.group(1).lower(), {}
        position = start.end()
    if scheme:
        found_all.append((scheme, found))
    return found_all
