"""A small OAuth 2.1 authorization server on loopback, for tests of the client flow and `serve --auth jwt`.

Built on authlib's primitives (PKCE S256 verification, token generation) and joserfc (authlib's JOSE
library) for the RS256 access tokens and the JWKS. It authorizes without a person: GET /authorize
redirects straight back with a code (and `iss`, RFC 9207). Knobs let a test make it misbehave (a wrong
`iss`) or choose who the next token is for (`subject`). It records every request it served.

The JWT-bearer grant (RFC 7523 §2.1, workload identity federation) trusts one workload issuer
(WORKLOAD_ISSUER, whose key `workload_assertion` signs with); authlib's `JWTBearerGrant` verifies each
assertion (signature, `iss`, `aud` = this server, `exp`), and the token is for the assertion's `sub`.
"""

import asyncio
import base64
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_plus, urlencode

from authlib.common.security import generate_token
from authlib.oauth2.rfc6749 import OAuth2Error
from authlib.oauth2.rfc7523 import JWTBearerGrant
from authlib.oauth2.rfc7636.challenge import compare_s256_code_challenge
from joserfc import jwt
from joserfc.jwk import ECKey, KeySet, RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from mrtr_studio.auth.flow import OAuthClient
from mrtr_studio.auth.jwt_verifier import JwtVerifier
from mrtr_studio.auth.loopback_app import LoopbackApp
from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.engine import McpServer
from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.transport.http_client import HttpClientTransport
from mrtr_studio.transport.http_host import ServerThread
from mrtr_studio.transport.http_server import HttpServerConfig

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
#: The workload identity provider whose JWTs the JWT-bearer grant accepts.
WORKLOAD_ISSUER = "https://workload.example"


def basic_credentials(header: str) -> tuple[str, str]:
    """RFC 6749 §2.3.1: base64 of `id:secret`, each form-urlencoded (UTF-8) first: decode in that order."""
    client_id, _, secret = base64.b64decode(header.removeprefix("Basic ")).decode("ascii").partition(":")
    return unquote_plus(client_id, encoding="utf-8", errors="strict"), \
        unquote_plus(secret, encoding="utf-8", errors="strict")


class WorkloadAssertions(JWTBearerGrant):
    """authlib's RFC 7523 §3 checks of an assertion, used alone (not inside an authlib AuthorizationServer):
    `process_assertion_claims` resolves the issuer, verifies the signature with its key and the claims."""

    def __init__(self, server: "AuthServer") -> None:
        super().__init__(None, None)  # no OAuth2Request: only the assertion is read
        self.fixture = server

    def resolve_issuer_client(self, issuer: str) -> str | None:
        return issuer if issuer == WORKLOAD_ISSUER else None

    def resolve_client_public_key(self, client: Any) -> ECKey:
        return ECKey.import_key(self.fixture.workload_key.as_dict(private=False))

    def get_audiences(self) -> list[str]:
        return [self.fixture.issuer, f"{self.fixture.issuer}/token"]


@dataclass
class Grant:
    client_id: str
    challenge: str
    redirect_uri: str
    scope: str
    resource: str
    subject: str


@dataclass
class AuthServer:
    subject: str = "alice"
    wrong_iss: bool = False
    #: Lifetimes of the next access tokens, in order (then one hour each).
    ttls: list[int] = field(default_factory=list)
    #: What the metadata says of PKCE (the spec requires S256).
    code_challenge_methods: list[str] = field(default_factory=lambda: ["S256"])
    #: What token responses say of a token's lifetime (`expires_in`), whatever it really is.
    say_expires_in: int = 3600
    #: The `aud` of tokens: the `resource` asked for, unless set.
    audience: str | None = None
    scopes_supported: list[str] = field(default_factory=lambda: ["mcp", "admin", "offline_access"])
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.key = RSAKey.generate_key(2048, parameters={"kid": "fixture-1", "use": "sig", "alg": "RS256"})
        self.workload_key = ECKey.generate_key("P-256", parameters={"kid": "workload-1"})
        self.clients: dict[str, str | None] = {}
        #: ID tokens the enterprise IdP issued (token -> user), for the SEP-990 token exchange.
        self.id_tokens: dict[str, str] = {}
        #: Every access and refresh token and client secret handed out (what must never leak anywhere).
        self.issued: list[str] = []
        self.codes: dict[str, Grant] = {}
        self.refresh: dict[str, Grant] = {}
        self.issuer = ""
        self._host: LoopbackApp | None = None

    # --- tokens ----------------------------------------------------------------------------------

    def mint(self, subject: str, audience: str, scope: str = "mcp", ttl: int = 3600, issuer: str | None = None,
             key: RSAKey | None = None) -> str:
        now = int(time.time())
        claims = {"iss": issuer or self.issuer, "sub": subject, "aud": audience, "scope": scope, "iat": now,
                  "exp": now + ttl, "jti": generate_token(12)}
        signer = key or self.key
        return jwt.encode({"alg": "RS256", "kid": signer.kid or "fixture-1"}, claims, signer)

    def workload_assertion(self, subject: str = "workload-7", audience: str | None = None, ttl: int = 300,
                           issuer: str = WORKLOAD_ISSUER) -> str:
        """A JWT the workload identity provider issued (ES256), for the JWT-bearer grant; aud: this server."""
        now = int(time.time())
        claims = {"iss": issuer, "sub": subject, "aud": audience or self.issuer, "iat": now, "exp": now + ttl,
                  "jti": generate_token(12)}
        return jwt.encode({"alg": "ES256", "kid": "workload-1"}, claims, self.workload_key)

    def jwks(self) -> dict[str, Any]:
        return KeySet([self.key]).as_dict(private=False)

    def enterprise_id_token(self, user: str = "dana@corp.example") -> str:
        """An ID token of the enterprise IdP (served at /idp/token, same process) for `user`."""
        token = self.workload_assertion(subject=user, audience="corp-idp-client")
        self.id_tokens[token] = user
        return token

    # --- endpoints -------------------------------------------------------------------------------

    async def _metadata(self, request: Request) -> Response:
        self.requests.append({"path": request.url.path})
        return JSONResponse({
            "issuer": self.issuer, "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token", "registration_endpoint": f"{self.issuer}/register",
            "jwks_uri": f"{self.issuer}/jwks", "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", JWT_BEARER],
            "code_challenge_methods_supported": self.code_challenge_methods,
            "authorization_response_iss_parameter_supported": True,
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
            "scopes_supported": self.scopes_supported})

    async def _jwks(self, request: Request) -> Response:
        return JSONResponse(self.jwks())

    async def _register(self, request: Request) -> Response:
        body = await request.json()
        client_id = "client-" + generate_token(8)
        method = body.get("token_endpoint_auth_method", "none")
        secret = generate_token(24) if method != "none" else None
        self.clients[client_id] = secret
        self.requests.append({"path": "/register", "body": body})
        answer = {"client_id": client_id, "token_endpoint_auth_method": method,
                  "redirect_uris": body.get("redirect_uris", [])}
        if secret:
            answer["client_secret"] = secret
            self.issued.append(secret)
        return JSONResponse(answer, status_code=201)

    async def _authorize(self, request: Request) -> Response:
        query = dict(request.query_params)
        self.requests.append({"path": "/authorize", "query": query})
        if query.get("client_id") not in self.clients or query.get("code_challenge_method") != "S256":
            return JSONResponse({"error": "invalid_request"}, status_code=400)
        code = generate_token(20)
        self.codes[code] = Grant(query["client_id"], query["code_challenge"], query["redirect_uri"],
                                 " ".join(s for s in query.get("scope", "").split() if s in self.scopes_supported),
                                 query.get("resource", ""), self.subject)
        back = {"code": code, "state": query.get("state", ""),
                "iss": "https://evil.example" if self.wrong_iss else self.issuer}
        return RedirectResponse(f"{query['redirect_uri']}?{urlencode(back)}", status_code=302)

    async def _token(self, request: Request) -> Response:
        form = dict(await request.form())
        self.requests.append({"path": "/token", "grant_type": form.get("grant_type"), "resource": form.get("resource")})
        client_id = str(form.get("client_id") or "")
        header = request.headers.get("authorization", "")
        if header.startswith("Basic "):
            self.requests[-1]["basic"] = header
            try:
                client_id, secret = basic_credentials(header)
            except ValueError:  # not base64, or not the ASCII a form-urlencoded pair is
                return JSONResponse({"error": "invalid_client"}, status_code=401)
            if client_id not in self.clients or self.clients[client_id] != secret:
                return JSONResponse({"error": "invalid_client"}, status_code=401)
        if form.get("grant_type") == "authorization_code":
            grant = self.codes.pop(str(form.get("code")), None)
            if grant is None or grant.client_id != client_id or grant.redirect_uri != form.get("redirect_uri") \
                    or not compare_s256_code_challenge(str(form.get("code_verifier")), grant.challenge):
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
        elif form.get("grant_type") == JWT_BEARER:
            if client_id not in self.clients:
                return JSONResponse({"error": "invalid_client"}, status_code=401)
            try:
                claims = WorkloadAssertions(self).process_assertion_claims(str(form.get("assertion") or ""))
            except OAuth2Error as exc:
                self.requests[-1]["refused"] = exc.description
                return JSONResponse({"error": exc.error, "error_description": exc.description}, status_code=400)
            self.requests[-1]["assertion_sub"] = claims["sub"]
            scope = " ".join(s for s in str(form.get("scope") or "").split() if s in self.scopes_supported)
            access = self.mint(str(claims["sub"]), self.audience or str(form.get("resource") or ""), scope)
            self.issued.append(access)  # no refresh token: the workload presents a fresh JWT instead
            return JSONResponse({"access_token": access, "token_type": "Bearer", "expires_in": 3600, "scope": scope})
        elif form.get("grant_type") == "refresh_token":
            grant = self.refresh.pop(str(form.get("refresh_token")), None)
            if grant is None or grant.client_id != client_id:
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
        else:
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        ttl = self.ttls.pop(0) if self.ttls else 3600
        access = self.mint(grant.subject, self.audience or grant.resource, grant.scope, ttl)
        refresh = generate_token(32)
        self.refresh[refresh] = grant
        self.issued += [access, refresh]
        return JSONResponse({"access_token": access, "token_type": "Bearer", "expires_in": self.say_expires_in,
                             "refresh_token": refresh, "scope": grant.scope})

    async def _idp_token(self, request: Request) -> Response:
        """The enterprise IdP's token exchange (RFC 8693, SEP-990): an ID token in, an ID-JAG for the
        authorization server (this fixture) out, signed by the issuer the JWT-bearer grant trusts."""
        form = {k: str(v) for k, v in (await request.form()).items()}
        self.requests.append({"path": "/idp/token", "form": form})
        user = self.id_tokens.get(form.get("subject_token", ""))
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" or user is None \
                or form.get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" \
                or form.get("audience") != self.issuer or not form.get("resource"):
            return JSONResponse({"error": "invalid_request"}, status_code=400)
        grant = self.workload_assertion(subject=user, audience=self.issuer)
        self.issued.append(grant)
        return JSONResponse({"access_token": grant, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                             "token_type": "N_A"})

    # --- running ---------------------------------------------------------------------------------

    def __enter__(self) -> "AuthServer":
        app = Starlette(routes=[Route("/.well-known/oauth-authorization-server", self._metadata),
                                Route("/jwks", self._jwks), Route("/register", self._register, methods=["POST"]),
                                Route("/authorize", self._authorize), Route("/token", self._token, methods=["POST"]),
                                Route("/idp/token", self._idp_token, methods=["POST"])])
        self._host = LoopbackApp(name="as-fixture")
        self.issuer = self._host.url
        self._host.start(app)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._host is not None:
            self._host.stop()


@contextmanager
def protected(issuer: AuthServer, server: McpServer | None = None) -> Iterator[tuple[str, JwtVerifier]]:
    """The demo engine (or `server`) on loopback HTTP, accepting only `issuer`'s tokens for its own URL."""
    verifier = JwtVerifier(issuer.issuer, audience="")
    with ServerThread(server or build_demo_server(), config=HttpServerConfig(verifier=verifier)) as thread:
        verifier.audience = thread.url  # the resource the client asks a token for
        yield thread.url, verifier


async def tools_listed(url: str, flow: OAuthClient) -> list[str]:
    """The tool names a modern session over `flow` lists (the flow runs on the server's 401); the flow
    stays open for the caller."""
    session = ClientSession(HttpClientTransport(url, auth=flow), ClientSettings(era="modern"), R.compose(),
                            server_label=url)
    try:
        return [tool["name"] for tool in await session.list_tools()]
    finally:
        await session.close()


def list_once(url: str, flow: OAuthClient) -> list[str]:
    """`tools_listed` on a loop of its own, the flow closed after."""

    async def go() -> list[str]:
        try:
            return await tools_listed(url, flow)
        finally:
            await flow.aclose()

    return asyncio.run(go())
