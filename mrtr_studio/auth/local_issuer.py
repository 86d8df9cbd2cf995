"""An in-process token issuer: a fresh RSA key, signed JWT access tokens and its JWKS, for lessons and demos.

Not an authorization server (no endpoints, no flow): it stands for one where the studio needs real
tokens without a network, so the server side (`JwtVerifier`) checks exactly what it would check for a
real issuer. The key lives only in memory and dies with the process.
"""

import secrets
import time
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

LESSON_ISSUER = "https://issuer.lessons.mrtr-studio.invalid"


class LocalIssuer:
    def __init__(self, issuer: str = LESSON_ISSUER, kid: str = "local-1") -> None:
        self.issuer = issuer
        self.kid = kid
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def mint(self, subject: str, audience: str, scope: str = "", ttl: int = 600) -> str:
        now = int(time.time())
        claims = {"iss": self.issuer, "sub": subject, "aud": audience, "iat": now, "exp": now + ttl,
                  "jti": secrets.token_urlsafe(12), **({"scope": scope} if scope else {})}
        return jwt.encode(claims, self._key, algorithm="RS256", headers={"kid": self.kid, "typ": "at+jwt"})

    def jwks(self) -> dict[str, Any]:
        public: dict[str, Any] = RSAAlgorithm.to_jwk(self._key.public_key(), as_dict=True)
        return {"keys": [{**public, "kid": self.kid, "use": "sig", "alg": "RS256"}]}
