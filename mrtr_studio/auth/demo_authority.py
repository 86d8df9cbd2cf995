"""A demo authorization server on loopback: the whole MCP authorization flow without an account anywhere.

For `serve --auth demo`, the studio's OAuth demo and its screenshots: it publishes RFC 8414 metadata,
registers clients dynamically (RFC 7591), signs the person in as `subject` without asking (GET
/authorize redirects straight back with a code, `state` and `iss`), and answers the token endpoint for
the authorization code with PKCE S256 (authlib verifies the verifier) and for refresh tokens. Access
tokens are RS256 JWTs from `LocalIssuer` (audience: the `resource` asked for), so a server verifying
them checks exactly what it would check for a real issuer. Nothing is stored on disk; codes live one
minute, and every table is bounded.
"""

import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

from authlib.common.security import generate_token
from authlib.oauth2.rfc7636.challenge import compare_s256_code_challenge
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .local_issuer import LocalIssuer
from .loopback_app import LoopbackApp, ThreadServer

#: Clients, codes and refresh tokens kept at most (the oldest go first): a demo, not a directory.
MAX_ENTRIES = 1000
MAX_FORM = 64 * 1024
CODE_TTL = 60.0
SCOPES = ["mcp", "offline_access"]


@dataclass
class _Grant:
    client_id: str
    redirect_uri: str
    challenge: str
    scope: str
    resource: str
    expires: float = 0.0


class DemoAuthority(ThreadServer):
    def __init__(self, subject: str = "alice", host: str = "127.0.0.1", token_ttl: int = 600) -> None:
        self.subject = subject
        self.host = host
        self.token_ttl = token_ttl
        self.issuer = ""
        self._signer: LocalIssuer | None = None
        self._clients: dict[str, list[str]] = {}
        self._codes: dict[str, _Grant] = {}
        self._refresh: dict[str, _Grant] = {}
        self._host: LoopbackApp | None = None

    # --- running ---------------------------------------------------------------------------------

    def start(self, timeout: float = 10.0) -> str:
        """Listen on a free loopback port; returns the issuer URL."""
        self._host = LoopbackApp(self.host, "mrtr-demo-authority")
        self.issuer = self._host.url
        self._signer = LocalIssuer(self.issuer, kid="demo-1")
        routes = [Route("/.well-known/oauth-authorization-server", self._metadata),
                  Route("/jwks", self._jwks), Route("/register", self._register, methods=["POST"]),
                  Route("/authorize", self._authorize), Route("/token", self._token, methods=["POST"])]
        self._host.start(Starlette(routes=routes), timeout)
        return self.issuer

    def stop(self, timeout: float = 10.0) -> None:
        if self._host is not None:
            self._host.stop(timeout)

    def jwks(self) -> dict[str, Any]:
        """The public keys its tokens verify with (what `JwtVerifier(jwks=...)` takes)."""
        assert self._signer is not None, "start() first"
        return self._signer.jwks()

    # --- endpoints -------------------------------------------------------------------------------

    async def _metadata(self, request: Request) -> Response:
        return JSONResponse({
            "issuer": self.issuer, "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token", "registration_endpoint": f"{self.issuer}/register",
            "jwks_uri": f"{self.issuer}/jwks", "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"], "authorization_response_iss_parameter_supported": True,
            "token_endpoint_auth_methods_supported": ["none"], "scopes_supported": SCOPES})

    async def _jwks(self, request: Request) -> Response:
        return JSONResponse(self.jwks())

    async def _register(self, request: Request) -> Response:
        body = await _json(request)
        uris = body.get("redirect_uris") if isinstance(body, dict) else None
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) and len(u) < 2048 for u in uris):
            return _error(400, "invalid_redirect_uri", "redirect_uris must be a list of URLs")
        client_id = "demo-client-" + generate_token(10)
        _keep(self._clients, client_id, list(uris))
        return JSONResponse({"client_id": client_id, "token_endpoint_auth_method": "none",
                             "redirect_uris": uris, "grant_types": ["authorization_code", "refresh_token"]},
                            status_code=201)

    async def _authorize(self, request: Request) -> Response:
        query = dict(request.query_params)
        uris = self._clients.get(query.get("client_id", ""))
        if uris is None or query.get("redirect_uri") not in uris:
            return _error(400, "invalid_request", "unknown client or redirect_uri")
        if query.get("response_type") != "code" or query.get("code_challenge_method") != "S256" \
                or not query.get("code_challenge"):
            return _error(400, "invalid_request", "response_type code with PKCE S256 is required")
        code = generate_token(24)
        scope = " ".join(s for s in query.get("scope", "").split() if s in SCOPES) or "mcp"
        _keep(self._codes, code, _Grant(query["client_id"], query["redirect_uri"], query["code_challenge"], scope,
                                        query.get("resource", ""), time.monotonic() + CODE_TTL))
        back = {"code": code, "state": query.get("state", ""), "iss": self.issuer}
        return RedirectResponse(f"{query['redirect_uri']}?{urlencode(back)}", status_code=302)

    async def _token(self, request: Request) -> Response:
        form = await _form(request)
        if form is None:
            return _error(413, "invalid_request", "the form is too large")
        kind = form.get("grant_type")
        if kind == "authorization_code":
            grant = self._codes.pop(form.get("code", ""), None)
            if grant is None or grant.expires < time.monotonic() or grant.client_id != form.get("client_id") \
                    or grant.redirect_uri != form.get("redirect_uri") \
                    or not compare_s256_code_challenge(form.get("code_verifier", ""), grant.challenge):
                return _error(400, "invalid_grant", "the code, its client, redirect_uri or PKCE verifier is wrong")
        elif kind == "refresh_token":
            grant = self._refresh.pop(form.get("refresh_token", ""), None)
            if grant is None or grant.client_id != form.get("client_id"):
                return _error(400, "invalid_grant", "unknown refresh token")
        else:
            return _error(400, "unsupported_grant_type", f"grant_type {kind!r} is not offered")
        assert self._signer is not None
        access = self._signer.mint(self.subject, form.get("resource") or grant.resource, grant.scope, self.token_ttl)
        answer: dict[str, Any] = {"access_token": access, "token_type": "Bearer", "expires_in": self.token_ttl,
                                  "scope": grant.scope}
        if "offline_access" in grant.scope.split() or kind == "refresh_token":
            refresh = generate_token(32)
            _keep(self._refresh, refresh, grant)
            answer["refresh_token"] = refresh
        return JSONResponse(answer)


def _keep(table: dict[str, Any], key: str, value: Any) -> None:
    table[key] = value
    while len(table) > MAX_ENTRIES:
        table.pop(next(iter(table)))


async def _body(request: Request) -> bytes | None:
    """The request body, read to at most MAX_FORM bytes (None past that)."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            return None
    return bytes(body)


async def _json(request: Request) -> Any:
    body = await _body(request)
    try:
        return json.loads(body) if body is not None else None
    except ValueError:
        return None


async def _form(request: Request) -> dict[str, str] | None:
    body = await _body(request)
    if body is None:
        return None
    return dict(parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True))


def _error(status: int, error: str, description: str) -> Response:
    return JSONResponse({"error": error, "error_description": description}, status_code=status)
