"""DPoP (RFC 9449; the MCP DPoP extension, SEP-1932): sender-constrained access tokens.

DPoP is used only where the resource server takes it (`dpop_wanted`): its Protected Resource Metadata lists
`dpop_signing_alg_values_supported` with our algorithm or says `dpop_bound_access_tokens_required`, or its
WWW-Authenticate challenges with the DPoP scheme; and the authorization server lists our algorithm. An
authorization server offering DPoP is not enough: oidc-provider does by default, and a Bearer-only resource
(the studio's `serve --auth jwt`, the MCP SDK's servers) refuses `Authorization: DPoP`. Without a proof at
the token endpoint the authorization server issues a Bearer token. When DPoP is used, the client makes one
ES256 key for the flow and proves possession of it: a fresh proof JWT (`typ` dpop+jwt, the public key in
`jwk`, a new `jti`, `htm`, `htu` without query or fragment, `iat`, and `ath`, the hash of the access token,
on resource requests) in the `DPoP` header of every token request and every MCP request, which presents
the token as `Authorization: DPoP`.
A server that wants a nonce answers `use_dpop_nonce` with a `DPoP-Nonce` header; the nonce is kept per
server (the authorization server's and the resource's are separate) and put in the next proofs.

joserfc (authlib's JOSE library) makes the key, signs the proofs and computes the JWK thumbprint.
"""

import base64
import hashlib
import time
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from authlib.common.security import generate_token
from joserfc import jwt
from joserfc.jwk import ECKey

from .exchanges import AuthError

#: The one algorithm this client signs proofs with (the suite's and most servers' choice).
ALGORITHM = "ES256"
#: Nonces longer than this are not kept (a header is input).
MAX_NONCE = 1024


def dpop_wanted(prm: dict[str, Any] | None, metadata: dict[str, Any], challenged: bool,
                setting: Literal["auto", "off"]) -> bool:
    """Whether the flow asks for DPoP-bound tokens: the resource takes them (its metadata, or a DPoP challenge:
    `challenged`) and the authorization server signs them with our algorithm. AuthError when the resource
    requires them and that cannot be: said before anything is authorized, since a Bearer token would be refused."""
    offered = metadata.get("dpop_signing_alg_values_supported")
    usable = isinstance(offered, list) and ALGORITHM in offered
    resource = prm if isinstance(prm, dict) else {}
    required = resource.get("dpop_bound_access_tokens_required") is True
    algorithms = resource.get("dpop_signing_alg_values_supported")
    taken = required or challenged or (isinstance(algorithms, list) and ALGORITHM in algorithms)
    if setting == "off":
        if required:
            raise AuthError("the server requires DPoP-bound tokens and DPoP is off")
        return False
    if required and not usable:
        raise AuthError(f"the server requires DPoP-bound tokens, and its authorization server offers "
                        f"{offered!r}, not {ALGORITHM}")
    return usable and taken


def htu(url: str) -> str:
    """The `htu` claim: the request URI without query and fragment (RFC 9449 §4.2)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def token_hash(access_token: str) -> str:
    """The `ath` claim: base64url of the SHA-256 of the access token, unpadded (RFC 9449 §4.2)."""
    digest = hashlib.sha256(access_token.encode("ascii", errors="replace")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class DpopKey:
    """The flow's proof key (in memory only) and the nonces servers asked for."""

    def __init__(self) -> None:
        self._key = ECKey.generate_key("P-256")
        self._nonces: dict[str, str] = {}

    @property
    def thumbprint(self) -> str:
        """The key's JWK SHA-256 thumbprint: what a DPoP-bound token's `cnf.jkt` names."""
        return str(self._key.thumbprint())

    def proof(self, method: str, url: str, access_token: str | None = None) -> str:
        """A fresh proof for one request (a new `jti` each time: proofs are single-use)."""
        claims: dict[str, object] = {"jti": generate_token(24), "htm": method.upper(), "htu": htu(url),
                                     "iat": int(time.time())}
        if access_token is not None:
            claims["ath"] = token_hash(access_token)
        nonce = self._nonces.get(_origin(url))
        if nonce is not None:
            claims["nonce"] = nonce
        header = {"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self._key.as_dict(private=False)}
        return jwt.encode(header, claims, self._key)

    def remember_nonce(self, url: str, nonce: str | None) -> bool:
        """Keep the nonce a server sent (`DPoP-Nonce`) for its next proofs; False when there is none to keep
        or it is the one already used (a retry would be refused again)."""
        if not nonce or len(nonce) > MAX_NONCE or not nonce.isprintable():
            return False
        origin = _origin(url)
        if self._nonces.get(origin) == nonce:
            return False
        self._nonces[origin] = nonce
        return True


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()
