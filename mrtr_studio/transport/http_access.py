"""Who may ask `serve`'s endpoint, before any of the request is read: the Host it was sent to
(DNS-rebinding protection), the page that sent it (Origin), and its caller, by a bearer token
(`--user NAME:TOKEN`) or an OAuth access token (`--auth jwt`) with the spec's 401/403 challenge and
the Protected Resource Metadata the challenge points to. No I/O besides the verifier's own (its JWKS);
the endpoint (`http_server`) writes the answers these decisions call for."""

import hmac
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..auth.jwt_verifier import PRM_PATH, JwtVerifier, TokenRejected
from .http_config import HttpServerConfig
from .request_headers import split_host

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True)
class Refusal:
    """An OAuth refusal to answer: its status (401 or 403), message and WWW-Authenticate challenge."""

    status: int
    message: str
    headers: list[tuple[bytes, bytes]]


class Access:
    """One endpoint's access checks, from its configuration."""

    def __init__(self, config: HttpServerConfig) -> None:
        self.config = config
        #: Host header values already found acceptable (bounded: only accepted values are kept).
        self._good_hosts: set[str] = set()

    def metadata_paths(self) -> tuple[str, str]:
        return f"{PRM_PATH}{self.config.path.rstrip('/')}", PRM_PATH

    def resource(self, scope: dict[str, Any], host: str | None) -> str:
        """This endpoint's resource identifier: the audience when it is a URL, else the URL the client used."""
        audience = self.config.verifier.audience if self.config.verifier else ""
        if audience.startswith(("http://", "https://")):
            return audience
        return f"{scope.get('scheme', 'http')}://{host}{self.config.path}"

    async def verified(self, verifier: JwtVerifier, authorization: str | None, scope: dict[str, Any],
                       host: str | None) -> "str | Refusal":
        """The token's principal, or the 401/403 to answer, with the spec's WWW-Authenticate."""
        metadata_url = f"{scope.get('scheme', 'http')}://{host}{self.metadata_paths()[0]}"
        scheme, _, token = (authorization or "").partition(" ")
        rejected: TokenRejected | None = None
        if scheme.lower() == "bearer" and token.strip():
            try:
                return await verifier.principal(token.strip())
            except TokenRejected as exc:
                rejected = exc
        elif authorization is not None:
            rejected = TokenRejected(401, "invalid_request", "the Authorization header is not a Bearer token")
        status = rejected.status if rejected else 401
        message = f"{'Forbidden' if status == 403 else 'Unauthorized'}: " + \
            (rejected.description if rejected else "this server needs an OAuth access token")
        return Refusal(status, message, [(b"www-authenticate", verifier.challenge(metadata_url, rejected).encode())])

    def principal(self, authorization: str | None) -> str | None:
        """`""` without a header, the mapped name for a known bearer token, None for anything else."""
        if authorization is None:
            return ""
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return None
        found = None
        for known, name in self.config.users.items():  # every comparison is constant-time
            if hmac.compare_digest(known.encode(), token.encode()):
                found = name
        return found

    def host_allowed(self, host: str | None, server: tuple[str, int | None] | None) -> bool:
        """DNS-rebinding protection: the Host must name this server (a loopback name or the bound
        address, with the bound port) or be one of `allowed_hosts`, whatever the Origin says."""
        if host is not None and host in self._good_hosts:
            return True
        allowed = self.config.allowed_hosts
        if "*" in allowed:
            return True
        if not host:
            return False
        name, port = split_host(host.lower())
        if name is None:
            return False
        bound_name, bound_port = server if server else (None, None)
        ours = name in LOOPBACK_HOSTS or name == bound_name
        ok = (ours and (port == bound_port or (port is None and bound_port == 80))) or \
            name in allowed or host.lower() in allowed
        if ok:
            self._good_hosts.add(host)
        return ok

    def origin_allowed(self, origin: str) -> bool:
        if origin in self.config.allowed_origins:
            return True
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        return parts.scheme in ("http", "https") and parts.hostname in LOOPBACK_HOSTS
