"""The studio's own requestState (docs/architecture.md), through the engine's inspector.

The engine's inspector runs every check; here its result is put in the shared shape (its
"unknown" is "cannot-check") and keys are bytes, so a binary key given as hex: or base64: works.
"""

from ..engine.state_inspect import Check as EngineCheck
from ..engine.state_inspect import inspect_token
from ..engine.state_token import PREFIX, Binding, StateCodec, StateRejected, split
from .result import Check, Decoded, RequestContext, read_json

NAME = "studio"
_FIELDS = ("v", "kid", "aud", "iat", "exp", "m", "n", "a", "p", "k", "r", "nonce", "s")

LABELS = {
    "v": "format version (v)", "kid": "key id (kid)", "aud": "audience (aud)", "iat": "issued at (iat)",
    "exp": "expires at (exp)", "m": "method (m)", "n": "target name (n)", "a": "arguments digest (a)",
    "p": "principal (p)", "k": "asked inputs (k)", "r": "round (r)", "nonce": "nonce", "s": "handler state (s)",
}


def looks_like(token: str) -> bool:
    """v1.<payload>.<32-byte MAC> whose payload is a JSON object with v 1 and the studio's own fields."""
    if not token.startswith(PREFIX):
        return False
    try:
        pieces = split(token)
        payload = read_json(pieces.body)
    except (StateRejected, ValueError):
        return False
    return isinstance(payload, dict) and payload.get("v") == 1 and {"m", "n", "a"} <= set(payload) \
        and set(payload) <= set(_FIELDS)


def decode(token: str, keys: list[bytes], request: RequestContext | None = None, now: float | None = None,
           ttl: int | None = None) -> Decoded:
    binding = None
    if request is not None and request.method is not None and request.name is not None:
        binding = Binding(request.method, request.name, request.arguments or {}, request.principal or "")
    audiences = list(request.audiences) if request and request.audiences else None
    inspection = inspect_token(token, secrets=None, binding=binding, now=now, ttl=ttl, audiences=audiences)
    checks = [_signature(token, keys) if c.name == "signature" else _converted(c) for c in inspection.checks]
    if binding is not None and request is not None and request.principal is None and inspection.payload:
        bound = inspection.payload.get("p")
        checks = [Check("principal", "cannot-check", f"bound to {bound!r}; who sent the request is not known")
                  if c.name == "principal" else c for c in checks]
    return Decoded(NAME, inspection.payload, checks, labels=LABELS)


def _converted(check: EngineCheck) -> Check:
    return Check(check.name, "cannot-check" if check.status == "unknown" else check.status, check.why)


def _signature(token: str, keys: list[bytes]) -> Check:
    if not keys:
        return Check("signature", "cannot-check", "needs the server's secret (--secret) to verify")
    try:
        pieces = split(token)
    except StateRejected:
        return Check("signature", "cannot-check", "not a v1 token")
    if StateCodec(keys=list(keys)).signature_ok(pieces):
        return Check("signature", "pass", "HMAC-SHA256 matches a given secret")
    return Check("signature", "fail", "matches none of the given secrets")
