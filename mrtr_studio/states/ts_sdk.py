"""The TypeScript SDK v2's `createRequestStateCodec`: a signed (not encrypted) envelope.

Wire shape: `v1.` + b64url(JSON {"p": payload, "exp": unix seconds, "b": bind tag?}) + `.` +
b64url(HMAC-SHA256(key, "v1." + body)). The payload is readable by anyone; the MAC needs the key.
The bind tag is b64url(HMAC-SHA256(key, "mcp.requestState.bind:" + bind(ctx))[:16]), where bind is
the server's own callback, so it can be checked only when its value for the request is given.
"""

import base64
import hashlib
import hmac
from typing import Any

from .result import Check, Decoded, RequestContext, b64url_loose, number, read_json

NAME = "ts-sdk"
_PREFIX = "v1."
_BIND_LABEL = "mcp.requestState.bind:"
_ENVELOPE_KEYS = frozenset({"p", "exp", "b"})

LABELS = {
    "p": "payload (p: the handler's state, readable by the client)",
    "exp": "expires at (exp, unix seconds)",
    "b": "binding tag (b: HMAC of the server's bind(ctx) value)",
}


def split(token: str) -> tuple[str, dict[str, Any], bytes] | None:
    """(signed text, envelope, MAC) when the token is shaped like the codec's, else None."""
    if not token.startswith(_PREFIX):
        return None
    dot = token.rfind(".")
    if dot <= 3:
        return None
    try:
        body = b64url_loose(token[3:dot])
        mac = b64url_loose(token[dot + 1:])
        envelope = read_json(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(envelope, dict) or "exp" not in envelope or not set(envelope) <= _ENVELOPE_KEYS:
        return None
    return token[:dot], envelope, mac


def looks_like(token: str) -> bool:
    return split(token) is not None


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()


def bind_tag(key: bytes, value: str) -> str:
    return base64.urlsafe_b64encode(_hmac(key, _BIND_LABEL + value)[:16]).decode("ascii").rstrip("=")


def decode(token: str, keys: list[bytes], request: RequestContext | None, now: float) -> Decoded:
    pieces = split(token)
    if pieces is None:
        return Decoded(NAME, None, [Check("shape", "fail", 'not v1.<base64url {"p","exp","b"}>.<base64url MAC>')])
    signed, envelope, mac = pieces
    checks = [Check("shape", "pass", 'v1.<base64url JSON {"p", "exp", "b"?}>.<base64url HMAC-SHA256>')]
    matching = next((k for k in keys if hmac.compare_digest(_hmac(k, signed), mac)), None)
    if not keys:
        checks.append(Check("mac", "cannot-check", "needs the server's key (--secret) to verify the HMAC"))
    elif matching is None:
        checks.append(Check("mac", "fail", "the HMAC-SHA256 matches none of the given keys: wrong key or tampered"))
    else:
        checks.append(Check("mac", "pass", "HMAC-SHA256 over v1.<body> matches a given key"))
    expires = number(envelope.get("exp"))
    if expires is None:
        checks.append(Check("expiry", "fail", "exp is not a number"))
    elif expires < int(now):  # the codec's own comparison: exp < floor(now) is expired
        checks.append(Check("expiry", "fail", f"expired {int(now - expires)} s ago"))
    else:
        checks.append(Check("expiry", "pass", f"valid for {int(expires - now)} s more"))
    checks.append(_binding_check(envelope.get("b"), matching, request))
    return Decoded(NAME, envelope, checks, labels=LABELS)


def _binding_check(tag: Any, key: bytes | None, request: RequestContext | None) -> Check:
    value = request.bind_value if request else None
    if tag is None:
        return Check("binding", "cannot-check", "not bound (the server set no bind callback): the state is not tied "
                                                "to a method or principal, only its MAC and expiry protect it")
    if not isinstance(tag, str):
        return Check("binding", "fail", "the bind tag is not a string")
    if key is None:
        return Check("binding", "cannot-check", "bound to the server's bind(ctx) value; checking it needs the key")
    if value is None:
        return Check("binding", "cannot-check", "bound to the server's bind(ctx) value; give it (--bind) to check")
    if hmac.compare_digest(tag, bind_tag(key, value)):
        return Check("binding", "pass", f"the bind tag matches {value!r}")
    return Check("binding", "fail", f"the bind tag does not match {value!r}")
