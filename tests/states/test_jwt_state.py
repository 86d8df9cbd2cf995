"""JWT-shaped requestStates: header and claims shown, HS/RS/ES signatures checked with PyJWT, keys kept apart."""

import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from mrtr_studio.states import RequestContext, decode_state, detect_format

CLAIMS = {"m": "tools/call", "n": "delete_file", "sub": "alice", "aud": "files", "s": "step=1"}


def claims(**extra: object) -> dict[str, object]:
    now = int(time.time())
    return {**CLAIMS, "iat": now, "exp": now + 300, **extra}


def public_pem(private: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey) -> bytes:
    return private.public_key().public_bytes(serialization.Encoding.PEM,
                                             serialization.PublicFormat.SubjectPublicKeyInfo)


@pytest.mark.parametrize("alg", ["HS256", "HS384", "HS512"])
def test_hmac_with_the_secret_passes_and_a_wrong_secret_fails(alg: str) -> None:
    secret = b"a shared secret of at least 64 bytes for every HMAC size ......."
    token = jwt.encode(claims(), secret, algorithm=alg)
    assert detect_format(token) == "jwt"
    decoded = decode_state(token, [secret])
    assert decoded.header == {"alg": alg, "typ": "JWT"}
    assert decoded.payload is not None and decoded.payload["s"] == "step=1"
    assert decoded.check("signature").status == "pass"
    wrong = decode_state(token, [b"another secret, also long enough to be used here ..............."])
    assert wrong.check("signature").status == "fail"
    assert decode_state(token, []).check("signature").status == "cannot-check"


@pytest.mark.parametrize("kind", ["RS256", "ES256"])
def test_asymmetric_signatures_verify_with_a_pem_or_a_jwks(kind: str) -> None:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048) if kind == "RS256" \
        else ec.generate_private_key(ec.SECP256R1())
    token = jwt.encode(claims(), private, algorithm=kind, headers={"kid": "k1"})
    assert decode_state(token, [public_pem(private)]).check("signature").status == "pass"
    algorithm = jwt.get_algorithm_by_name(kind)
    jwk = json.loads(algorithm.to_jwk(private.public_key()))
    jwks = json.dumps({"keys": [{**jwk, "kid": "k1"}]}).encode()
    assert decode_state(token, [jwks]).check("signature").status == "pass"
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048) if kind == "RS256" \
        else ec.generate_private_key(ec.SECP256R1())
    assert decode_state(token, [public_pem(other)]).check("signature").status == "fail"
    # A secret is never tried as the public key (nor a PEM as an HMAC secret: algorithm confusion).
    assert decode_state(token, [b"just a secret"]).check("signature").status == "cannot-check"


def test_a_pem_is_not_accepted_as_an_hmac_secret() -> None:
    """The algorithm-confusion forgery: HS256 keyed with the server's public PEM must not verify."""
    import base64
    import hashlib
    import hmac

    pem = public_pem(rsa.generate_private_key(public_exponent=65537, key_size=2048))

    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")

    signing = part(b'{"alg":"HS256","typ":"JWT"}') + "." + part(json.dumps(claims()).encode())
    forged = signing + "." + part(hmac.new(pem, signing.encode(), hashlib.sha256).digest())
    assert decode_state(forged, [pem]).check("signature").status == "cannot-check"


def test_alg_none_always_fails() -> None:
    token = jwt.encode(claims(), None, algorithm="none")  # type: ignore[arg-type]
    assert decode_state(token, [b"k"]).check("signature").status == "fail"


def test_claims_are_compared_with_the_request_and_the_audience() -> None:
    secret = b"s" * 32
    token = jwt.encode(claims(), secret, algorithm="HS256")
    same = RequestContext(method="tools/call", name="delete_file", principal="alice", audiences=("files",))
    assert decode_state(token, [secret], request=same).verdict == "pass"
    other = RequestContext(method="tools/call", name="other", principal="mallory", audiences=("billing",))
    failed = {c.name for c in decode_state(token, [secret], request=other).checks if c.status == "fail"}
    assert failed == {"name", "principal", "audience"}


def test_an_expired_jwt_fails_expiry() -> None:
    token = jwt.encode(claims(exp=int(time.time()) - 5), b"s" * 32, algorithm="HS256")
    assert decode_state(token, [b"s" * 32]).check("expiry").status == "fail"
