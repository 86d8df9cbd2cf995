"""JWT-shaped requestStates (some servers sign their state as a JWT): header and claims, checked with PyJWT.

The header and claims are shown unverified (a JWT is only signed); the signature is checked with a
given key of the header's algorithm family only: HS* with a secret, RS/PS/ES/EdDSA with a PEM
public key or a JWKS. A secret is never tried as an RSA key nor a PEM as an HMAC secret, which is
the algorithm-confusion attack, and `alg: none` is always a failure.
"""

import json
from typing import Any

from .result import Check, Decoded, RequestContext, audience_check, b64url_loose, compare, expiry_checks, read_json

NAME = "jwt"
_HMAC = frozenset({"HS256", "HS384", "HS512"})

LABELS = {
    "iss": "issuer (iss)", "sub": "subject (sub)", "aud": "audience (aud)", "exp": "expires at (exp)",
    "nbf": "not before (nbf)", "iat": "issued at (iat)", "jti": "token id (jti)",
}


def split(token: str) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
    """(header, claims or None when they are not a JSON object) for a JWS compact token, else None."""
    parts = token.split(".")
    if len(parts) != 3 or not parts[0] or not parts[1]:
        return None
    try:
        header = read_json(b64url_loose(parts[0]))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(header, dict) or not isinstance(header.get("alg"), str):
        return None
    try:
        claims = read_json(b64url_loose(parts[1]))
    except (ValueError, UnicodeDecodeError):
        claims = None
    return header, claims if isinstance(claims, dict) else None


def looks_like(token: str) -> bool:
    return split(token) is not None


def decode(token: str, keys: list[bytes], request: RequestContext | None, now: float) -> Decoded:
    pieces = split(token)
    if pieces is None:
        return Decoded(NAME, None, [Check("shape", "fail", "not a JWS compact token with a JSON header naming alg")])
    header, claims = pieces
    if claims is None:
        return Decoded(NAME, None, [Check("shape", "fail", "the claims are not a JSON object")], header, LABELS)
    checks = [Check("shape", "pass", f"JWS compact, alg {header['alg']}"), _signature_check(token, header, keys)]
    checks += expiry_checks(claims, now)
    if "nbf" in claims and isinstance(claims["nbf"], int | float) and claims["nbf"] > now + 60:
        checks.append(Check("not-before", "fail", "not valid yet (nbf is in the future)"))
    checks.append(audience_check(claims.get("aud"), request))
    req = request or RequestContext()
    for name, keys_of, actual in (("method", ("m", "method"), req.method), ("name", ("n", "t", "name", "tool"),
                                                                          req.name),
                                  ("principal", ("p", "sub", "principal"), req.principal)):
        claim = next((k for k in keys_of if k in claims), None)
        if claim is not None:
            checks.append(compare(name, claims[claim], actual, ""))
    return Decoded(NAME, claims, checks, header, LABELS)


def _signature_check(token: str, header: dict[str, Any], keys: list[bytes]) -> Check:
    import jwt  # PyJWT (and cryptography) load with the first JWT checked, not with the window
    from jwt.algorithms import get_default_algorithms

    alg = header["alg"]
    if alg.lower() == "none":
        return Check("signature", "fail", "unsigned (alg none): anyone can write this state")
    if alg not in get_default_algorithms():
        return Check("signature", "cannot-check", f"algorithm {alg!r} is not one PyJWT supports")
    candidates = _keys_for(alg, header.get("kid"), keys)
    if not keys:
        return Check("signature", "cannot-check", "needs the server's key (--secret, or --key-file PEM/JWKS)")
    if not candidates:
        wanted = "an HMAC secret" if alg in _HMAC else "a PEM public key or a JWKS"
        return Check("signature", "cannot-check", f"{alg} needs {wanted}; none was given")
    for key in candidates:
        try:
            jwt.decode(token, key, algorithms=[alg], options={"verify_signature": True, "verify_exp": False,
                                                                "verify_nbf": False, "verify_iat": False,
                                                                "verify_aud": False, "verify_iss": False})
        except jwt.InvalidSignatureError:
            continue
        except (jwt.InvalidKeyError, jwt.PyJWTError, ValueError, TypeError):
            continue
        return Check("signature", "pass", f"{alg} signature verifies with a given key")
    return Check("signature", "fail", f"the {alg} signature matches none of the given keys: wrong key or tampered")


def _keys_for(alg: str, kid: Any, keys: list[bytes]) -> list[Any]:
    """The given keys usable for `alg`: secrets for HS*, PEMs and JWKS entries (by kid when named) otherwise."""
    usable: list[Any] = []
    for key in keys:
        pem = key.lstrip().startswith(b"-----BEGIN")
        jwks = _jwks_keys(key, alg, kid)
        if alg in _HMAC:
            if not pem and jwks is None:
                usable.append(key)
        elif pem:
            usable.append(key)
        elif jwks:
            usable.extend(jwks)
    return usable


def _jwks_keys(raw: bytes, alg: str, kid: Any) -> list[Any] | None:
    """Keys of a JWKS (or one JWK) for `alg`; None when `raw` is not one."""
    stripped = raw.lstrip()
    if not stripped.startswith(b"{"):
        return None
    try:
        document = read_json(stripped)
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    entries = document.get("keys") if "keys" in document else [document] if "kty" in document else None
    if not isinstance(entries, list):
        return None
    import jwt

    found = []
    for entry in entries:
        if not isinstance(entry, dict) or (kid is not None and entry.get("kid") not in (None, kid)):
            continue
        try:
            found.append(jwt.PyJWK(json.loads(json.dumps(entry)), algorithm=alg).key)
        except (jwt.PyJWTError, ValueError, TypeError, KeyError):
            continue
    return found
