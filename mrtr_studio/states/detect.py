"""Which format a requestState is in, and decoding it with that format's decoder.

Detection looks only at shape, most specific first: a JWT (three segments, a header naming
`alg`), the studio's and the TypeScript SDK's signed envelopes (told apart by their JSON fields),
the Python SDK's sealed one (a single base64url blob after `v1.`), else opaque. A format can also
be forced, and then a token that does not fit it fails that format's `shape` check.
"""

import time
import unicodedata
from collections.abc import Sequence

from ..defaults import STATE_MAX_TOKEN_CHARS
from . import jwt_state, opaque, python_sdk, studio, ts_sdk
from .formats import FORMATS
from .result import Check, Decoded, RequestContext


def detect_format(token: str) -> str:
    if jwt_state.looks_like(token):
        return "jwt"
    if studio.looks_like(token):
        return "studio"
    if ts_sdk.looks_like(token):
        return "ts-sdk"
    if python_sdk.looks_like(token):
        return "python-sdk"
    return "opaque"


def decode_state(token: object, keys: Sequence[bytes] = (), format: str = "auto",
                 request: RequestContext | None = None, now: float | None = None, ttl: int | None = None,
                 rounds: Sequence[str] = (), echoes: Sequence[tuple[str, str]] = ()) -> Decoded:
    """Decode with the named format's decoder (`auto`: the detected one). Never raises on a peer's token.

    `ttl` is the studio server's state TTL when known (it bounds a studio state's lifetime);
    `rounds`/`echoes` feed the opaque statistics.
    """
    if format != "auto" and format not in FORMATS:
        raise ValueError(f"unknown format {format!r}: expected auto or one of {', '.join(FORMATS)}")
    if not isinstance(token, str):
        return Decoded(format if format != "auto" else "opaque", None,
                       [Check("shape", "fail", "a requestState must be a string")])
    if len(token) > STATE_MAX_TOKEN_CHARS:
        return Decoded(format if format != "auto" else "opaque", None,
                       [Check("shape", "fail", f"longer than {STATE_MAX_TOKEN_CHARS} characters: not read")])
    chosen = detect_format(token) if format == "auto" else format
    key_list = list(keys)
    moment = time.time() if now is None else now  # one clock reading: every decoder takes it, none reads its own
    if chosen == "studio":
        return studio.decode(token, key_list, request, moment, ttl)
    if chosen == "python-sdk":
        return python_sdk.decode(token, key_list, request, moment)
    if chosen == "ts-sdk":
        return ts_sdk.decode(token, key_list, request, moment)
    if chosen == "jwt":
        return jwt_state.decode(token, key_list, request, moment)
    return opaque.decode(token, rounds, echoes)


def printable(text: str) -> str:
    """`text` safe for a terminal: control and format characters (ANSI escapes, bidi overrides) escaped."""
    out = []
    for char in text:
        if char in "\n\t" or unicodedata.category(char) not in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            out.append(char)
        else:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    return "".join(out)
