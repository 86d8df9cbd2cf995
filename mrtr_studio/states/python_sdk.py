"""The Python SDK's (mcp 2.x) requestState: an AES-256-GCM envelope, readable only with the server's key.

Wire shape (mcp/server/request_state.py): `v1.` + b64url(kid[4] + nonce[12] + ciphertext+tag), the
key derived from the operator secret with HKDF-SHA256 (no salt, info "mcp/request-state/v1/aes-256-gcm"),
the key id the first 4 bytes of SHA-256("mcp/request-state/v1/kid:" + derived key), and "v1." + kid as
the associated data. Without the key only the key id can be shown; with it the claims (`v iat exp m t
a s aud p`) are checked the way the SDK's boundary checks them.
"""

import base64
import hashlib
import hmac
import json
from typing import Any

from .result import Check, Decoded, RequestContext, audience_check, compare, expiry_checks, number, read_json

NAME = "python-sdk"
_PREFIX = "v1."
_KDF_INFO = b"mcp/request-state/v1/aes-256-gcm"
_KID_INFO = b"mcp/request-state/v1/kid:"
_KID, _NONCE, _TAG = 4, 12, 16
_PRINCIPAL_LABEL = b"mcp/request-state/principal:"
MIN_KEY_BYTES = 32

LABELS = {
    "v": "envelope version (v)",
    "iat": "issued at (iat, unix seconds)",
    "exp": "expires at (exp, unix seconds)",
    "m": "method (m)",
    "t": "target: tool or prompt name, or resource URI (t)",
    "a": "arguments digest (a: SHA-256 of the sorted JSON, 16 bytes)",
    "s": "handler state (s, the server's plaintext)",
    "aud": "audience (aud: the server's name)",
    "p": "principal (p: salted hash of the authenticated identity)",
}


def _b64u(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _b64u_strict(text: str) -> bytes:
    """The SDK's decoding: only the canonical unpadded encoding."""
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64u(raw) != text:
        raise ValueError("non-canonical base64url")
    return raw


def split(token: str) -> tuple[bytes, bytes, bytes] | None:
    """(key id, nonce, sealed) when the token has the SDK's shape, else None."""
    if not token.startswith(_PREFIX) or "." in token[len(_PREFIX):]:
        return None
    try:
        raw = _b64u_strict(token[len(_PREFIX):])
    except (ValueError, TypeError):
        return None
    if len(raw) < _KID + _NONCE + _TAG:
        return None
    return raw[:_KID], raw[_KID:_KID + _NONCE], raw[_KID + _NONCE:]


def looks_like(token: str) -> bool:
    return split(token) is not None


def _derive(secret: bytes) -> tuple[bytes, bytes]:
    # cryptography's ciphers are imported at the first SDK state opened, not with the window (30 ms of its launch).
    from cryptography.hazmat.primitives.hashes import SHA256
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    key = HKDF(algorithm=SHA256(), length=32, salt=None, info=_KDF_INFO).derive(secret)
    return key, hashlib.sha256(_KID_INFO + key).digest()[:_KID]


def _open(key: bytes, nonce: bytes, sealed: bytes, associated: bytes) -> bytes | None:
    """The AES-GCM plaintext, or None when the key is wrong or the ciphertext was altered."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        return AESGCM(key).decrypt(nonce, sealed, associated)
    except InvalidTag:
        return None


def arguments_digest(method: str, arguments: Any) -> str:
    """The SDK's `a`: b64url(SHA-256(sorted compact JSON of the arguments)[:16]); resources/read has none."""
    args = {} if method == "resources/read" else (arguments or {})
    text = json.dumps(args, sort_keys=True, separators=(",", ":"))
    return _b64u(hashlib.sha256(text.encode()).digest()[:16])


def principal_matches(claim: str, principal: str) -> bool:
    try:
        raw = _b64u_strict(claim)
    except ValueError:
        return False
    expected = hashlib.sha256(_PRINCIPAL_LABEL + raw[:8] + principal.encode("utf-8", "surrogatepass")).digest()[:16]
    return hmac.compare_digest(raw[8:], expected)


def decode(token: str, keys: list[bytes], request: RequestContext | None, now: float) -> Decoded:
    pieces = split(token)
    if pieces is None:
        return Decoded(NAME, None, [Check("shape", "fail", "not v1.<base64url of key id, nonce and ciphertext>")])
    kid, nonce, sealed = pieces
    header = {"key id": kid.hex(), "nonce": nonce.hex(), "ciphertext bytes": len(sealed) - _TAG}
    shape = Check("shape", "pass", "v1. + canonical base64url of a 4-byte key id, 12-byte nonce, AES-GCM ciphertext")
    usable = [k for k in keys if len(k) >= MIN_KEY_BYTES]
    if not usable:
        why = "cannot check without the key" if not keys else \
            f"cannot check: the SDK's keys are at least {MIN_KEY_BYTES} bytes, the given ones are shorter"
        return Decoded(NAME, None, [shape, Check("decryption", "cannot-check", why)], header, LABELS)
    plaintext = None
    for secret in usable:
        key, key_id = _derive(secret)
        if key_id != kid:
            continue
        plaintext = _open(key, nonce, sealed, _PREFIX.encode() + kid)
        if plaintext is not None:
            break
    if plaintext is None:
        matched = any(_derive(k)[1] == kid for k in usable)
        detail = "" if matched else f" (key id {kid.hex()} is none of the given keys')"
        return Decoded(NAME, None, [shape, Check("decryption", "fail", "cannot decrypt: wrong key or tampered"
                                                 + detail)], header, LABELS)
    checks = [shape, Check("decryption", "pass", "AES-256-GCM opened with a given key: authentic and unaltered")]
    try:
        claims = read_json(plaintext)
    except ValueError as exc:
        return Decoded(NAME, None, [*checks, Check("claims", "fail", f"the envelope is not JSON: {exc}")], header,
                       LABELS)
    if not isinstance(claims, dict) or claims.get("v") != 1 or not isinstance(claims.get("s"), str):
        return Decoded(NAME, None, [*checks, Check("claims", "fail", "not a v1 envelope (v 1, s a string)")], header,
                       LABELS)
    return Decoded(NAME, claims, checks + claim_checks(claims, request, now), header, LABELS)


def claim_checks(claims: dict[str, Any], request: RequestContext | None, now: float) -> list[Check]:
    """The SDK boundary's checks, each on its own: expiry, method, target, arguments, audience, principal."""
    checks = expiry_checks(claims, now)
    if number(claims.get("iat")) is None:
        checks.append(Check("expiry", "fail", "iat is not a number"))
    req = request or RequestContext()
    checks.append(compare("method", claims.get("m"), req.method, ""))
    checks.append(compare("name", claims.get("t"), req.name, ""))
    if req.method is None or req.arguments is None:
        checks.append(Check("arguments", "cannot-check", "bound to a digest; no request to compare with"))
    else:
        try:
            digest = arguments_digest(req.method, req.arguments)
        except (TypeError, ValueError) as exc:
            digest = f"<{exc}>"
        ok = claims.get("a") == digest
        checks.append(Check("arguments", "pass" if ok else "fail",
                            "digest matches" if ok else "the request's arguments differ from the minting round's"))
    checks.append(audience_check(claims.get("aud"), request))
    checks.append(_principal_check(claims.get("p"), req.principal))
    return checks


def _principal_check(claim: Any, principal: str | None) -> Check:
    if principal is None:
        if claim is None:
            return Check("principal", "cannot-check", "not bound to a principal (minted unauthenticated)")
        return Check("principal", "cannot-check", "bound to a salted hash of a principal; none given to compare")
    if claim is None:
        return Check("principal", "fail" if principal else "pass",
                     "minted unauthenticated" + (", the request is authenticated" if principal else ""))
    if isinstance(claim, str) and principal_matches(claim, principal):
        return Check("principal", "pass", f"the salted hash matches {principal!r}")
    return Check("principal", "fail", f"minted for another principal than {principal!r}")
