"""Where a client keeps what an authorization server gave it: the registration and the tokens.

In memory by default (gone when the process ends). `KeyringStore` ("remember") keeps them in the OS
keyring through the `keyring` package, one entry per (resource, issuer), never in settings files.
Both are keyed by the authorization server's issuer: credentials from one server are never offered
to another (the spec's authorization server binding).
"""

import json
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from ..protocol.peer_text import printable
from .errors import AuthError

KEYRING_SERVICE = "mrtr-studio-oauth"
#: The token types this client can present (RFC 6750 Bearer, RFC 9449 DPoP), lower-cased.
KNOWN_TOKEN_TYPES = ("bearer", "dpop")


def checked_token_type(value: object, phase: str, proved: bool) -> str:
    """The token type of a token response, checked: RFC 6749 §7.1 says a client MUST NOT use a token whose
    type it does not understand (and sending it as Bearer would hand it to whoever asks). A DPoP-bound token
    is only usable by a client that sent a proof (`proved`: it holds the key). An absent type is read as
    Bearer (the common lapse of small servers). AuthError, with the type escaped, otherwise."""
    if value is None or value == "":
        return "Bearer"
    kind = str(value).lower() if isinstance(value, str) else None
    if kind == "dpop" and not proved:
        raise AuthError(f"{phase}: the authorization server issued a DPoP-bound token though no DPoP proof was "
                        "sent; not using it")
    if kind not in KNOWN_TOKEN_TYPES:
        raise AuthError(f"{phase}: the token endpoint issued a token of type '{printable(value, 60)}', which this "
                        "client does not understand (RFC 6749 §7.1: not using it; Bearer and DPoP are)")
    return "DPoP" if kind == "dpop" else "Bearer"


@dataclass
class Registration:
    """A client identity at one authorization server."""

    issuer: str
    client_id: str
    client_secret: str | None = None
    auth_method: str = "none"
    #: How it was obtained: "pre-registered", "metadata-document" (CIMD) or "dynamic" (RFC 7591).
    kind: str = "dynamic"


@dataclass
class TokenSet:
    access_token: str
    token_type: str = "Bearer"
    refresh_token: str | None = None
    expires_at: float | None = None
    scope: list[str] = field(default_factory=list)
    issuer: str = ""

    @classmethod
    def from_response(cls, body: dict[str, Any], issuer: str, requested: list[str],
                      previous: "TokenSet | None" = None) -> "TokenSet":
        expires_in = body.get("expires_in")
        scope = body.get("scope")
        return cls(access_token=str(body["access_token"]), token_type=str(body.get("token_type") or "Bearer"),
                   refresh_token=body.get("refresh_token") or (previous.refresh_token if previous else None),
                   expires_at=time.time() + float(expires_in) if isinstance(expires_in, int | float) else None,
                   scope=scope.split() if isinstance(scope, str) else list(requested), issuer=issuer)

    def expired(self, skew: float = 30.0) -> bool:
        return self.expires_at is not None and time.time() > self.expires_at - skew


class CredentialStore(Protocol):
    def load(self, resource: str, issuer: str) -> tuple[Registration | None, TokenSet | None]: ...

    def save(self, resource: str, registration: Registration | None, tokens: TokenSet | None) -> None: ...

    def forget(self, resource: str, issuer: str) -> None: ...


class MemoryStore:
    def __init__(self) -> None:
        self._items: dict[tuple[str, str], tuple[Registration | None, TokenSet | None]] = {}

    def load(self, resource: str, issuer: str) -> tuple[Registration | None, TokenSet | None]:
        return self._items.get((resource, issuer), (None, None))

    def save(self, resource: str, registration: Registration | None, tokens: TokenSet | None) -> None:
        issuer = registration.issuer if registration else tokens.issuer if tokens else ""
        self._items[(resource, issuer)] = (registration, tokens)

    def forget(self, resource: str, issuer: str) -> None:
        self._items.pop((resource, issuer), None)


class KeyringStore:
    """The OS keyring ("remember"): survives restarts, readable only through the user's keyring.

    A machine without a usable keyring (a headless box, a locked one) does not break the flow: the
    credentials are then kept in memory only, and `problem` says why (for the person, without secrets)."""

    def __init__(self, service: str = KEYRING_SERVICE) -> None:
        import keyring

        self._keyring = keyring
        self.service = service
        self.problem: str | None = None
        self._fallback = MemoryStore()

    def _name(self, resource: str, issuer: str) -> str:
        return f"{resource} {issuer}"

    def load(self, resource: str, issuer: str) -> tuple[Registration | None, TokenSet | None]:
        try:
            raw = self._keyring.get_password(self.service, self._name(resource, issuer))
        except Exception as exc:  # keyring's backends raise their own errors (KeyringError, D-Bus, ...)
            self.problem = f"the system keyring is unavailable ({type(exc).__name__}); kept in memory only"
            return self._fallback.load(resource, issuer)
        if not raw:
            return self._fallback.load(resource, issuer)
        try:
            data = json.loads(raw)
            registration = Registration(**data["registration"]) if data.get("registration") else None
            tokens = TokenSet(**data["tokens"]) if data.get("tokens") else None
        except (ValueError, TypeError, KeyError):
            return None, None
        if tokens is not None and str(tokens.token_type).lower() not in KNOWN_TOKEN_TYPES:
            tokens = None  # never presented as something it is not (RFC 6749 §7.1): the flow gets a new one
        return registration, tokens

    def save(self, resource: str, registration: Registration | None, tokens: TokenSet | None) -> None:
        issuer = registration.issuer if registration else tokens.issuer if tokens else ""
        payload = {"registration": asdict(registration) if registration else None,
                   "tokens": asdict(tokens) if tokens else None}
        try:
            self._keyring.set_password(self.service, self._name(resource, issuer), json.dumps(payload))
        except Exception as exc:
            self.problem = f"the system keyring is unavailable ({type(exc).__name__}); kept in memory only"
            self._fallback.save(resource, registration, tokens)

    def forget(self, resource: str, issuer: str) -> None:
        import contextlib

        with contextlib.suppress(Exception):
            self._keyring.delete_password(self.service, self._name(resource, issuer))
