"""The MCP authorization flow of a client (authorization spec 2026-07-28), driven by the transport.

`OAuthClient` is what `HttpClientTransport(auth=...)` consults: `authorization()` gives the header
for the next request, `challenged(status, www_authenticate)` runs the flow on a 401 (or a 403
`insufficient_scope` step-up) and says whether to retry. The steps, each recorded as an `Exchange`:

1. Protected Resource Metadata (RFC 9728): the header's `resource_metadata`, else path-based, then
   root; its `resource` must name this server (else the flow stops before any authorization).
2. Authorization server metadata (RFC 8414, OpenID Discovery) in the spec's order; its `issuer` must
   be exactly the one the URL was built from. Credentials bound to another issuer are dropped.
3. Registration: a pre-registered client, a Client ID Metadata Document URL, or Dynamic Client
   Registration (RFC 7591), with a token endpoint auth method the server lists (basic, post, none).
4. Authorization code with PKCE S256, `resource` (RFC 8707), the selected scope and a state; the
   response's `iss` (RFC 9207) is compared exactly with the issuer. Or, for machine clients, the
   client-credentials grant.
5. The token request, and later refresh when a token is refused and a refresh token is held.

authlib supplies the OAuth primitives (PKCE challenge, grant URI, token request body, client
authentication); the HTTP itself is ours, so every read is bounded and every exchange is masked.
"""

import asyncio
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import parse_qs, urlsplit

from authlib.common.security import generate_token
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri, prepare_token_request
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from . import discovery as D
from .challenge import bearer_params, reason, schemes
from .client_auth import client_auth
from .dpop import DpopKey, dpop_wanted
from .enterprise import EnterpriseLogin, identity_assertion
from .exchanges import AuthError, AuthHttp, Exchange, Reply
from .secrets import SecretBook
from .tokens import CredentialStore, MemoryStore, Registration, TokenSet, checked_token_type

#: Token endpoint auth methods this client can apply, by preference for a client with and without a secret.
WITH_SECRET = ("client_secret_basic", "client_secret_post", "none")
PUBLIC = ("none", "client_secret_basic", "client_secret_post")
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
#: Marks metadata the flow assumed (2025-03-26 default endpoints) rather than read.
FALLBACK = "x-mrtr-studio-fallback"


#: How the flow obtains its token: the browser's authorization code, or one of the grants without one.
Grant = Literal["authorization_code", "client_credentials", "jwt_bearer", "enterprise"]


class Redirect(Protocol):
    """The browser step: `authorize(url)` returns the URL the authorization server redirected back to."""

    redirect_uri: str

    async def authorize(self, url: str, http: AuthHttp) -> str: ...

    async def aclose(self) -> None: ...


@dataclass
class OAuthSettings:
    client_name: str = "MRTR Studio"
    #: A pre-registered client (and the issuer it belongs to; None: whichever server is found).
    client_id: str | None = None
    client_secret: str | None = None
    client_issuer: str | None = None
    #: A pre-registered client's private key (PEM) for `private_key_jwt` (RFC 7523), and its algorithm.
    private_key_pem: str | None = None
    signing_alg: str = "RS256"
    #: A Client ID Metadata Document URL, used when the server advertises support for it.
    client_metadata_url: str | None = None
    grant: Grant = "authorization_code"
    #: The workload's JWT for the jwt_bearer grant (RFC 7523 §2.1; workload identity federation).
    assertion: str | None = None
    #: The enterprise sign-in for the "enterprise" grant (SEP-990: an ID-JAG from the IdP, then JWT bearer).
    enterprise: EnterpriseLogin | None = None
    #: Scopes to ask for instead of the spec's selection (None: select).
    scope: list[str] | None = None
    #: Ask for `offline_access` (a refresh token) when the server lists it (SEP-2207).
    offline_access: bool = True
    #: 403 insufficient_scope step-ups allowed before the client gives up.
    max_step_ups: int = 3
    #: DPoP-bound tokens (RFC 9449) when the authorization server offers them and the resource takes them
    #: ("auto"), or never ("off").
    dpop: Literal["auto", "off"] = "auto"
    protocol_version: str = "2026-07-28"


@dataclass
class Discovered:
    resource: str
    issuer: str
    prm: dict[str, Any] | None
    metadata: dict[str, Any]


@dataclass
class FlowState:
    """What the flow knows now; the Auth view renders it beside the exchanges."""

    discovered: Discovered | None = None
    registration: Registration | None = None
    tokens: TokenSet | None = None
    requested_scope: list[str] = field(default_factory=list)
    step_ups: int = 0


class OAuthClient:
    def __init__(self, server_url: str, redirect: Redirect, settings: OAuthSettings | None = None,
                 store: CredentialStore | None = None, on_exchange: Callable[[Exchange], None] | None = None,
                 http: AuthHttp | None = None) -> None:
        self.server_url = server_url
        self.redirect = redirect
        self.settings = settings or OAuthSettings()
        self.store = store or MemoryStore()
        self.book = http.book if http is not None else SecretBook()  # one book: what it learns, the HTTP masks
        self.book.add(self.settings.client_secret, self.settings.private_key_pem, self.settings.assertion,
                      self.settings.enterprise.id_token if self.settings.enterprise else None)
        self.http = http or AuthHttp(self.book, on_exchange=on_exchange)
        self.state = FlowState()
        #: The proof key once the flow uses DPoP (made when both servers support it: see `dpop_wanted`).
        self.dpop: DpopKey | None = None
        #: The resource challenged with the DPoP scheme (RFC 9449 §7.1): it takes DPoP-bound tokens.
        self._dpop_challenged = False
        self._lock = asyncio.Lock()

    @property
    def exchanges(self) -> "deque[Exchange]":
        return self.http.exchanges

    # --- the transport's seam ------------------------------------------------------------------

    def authorization(self) -> str | None:
        tokens = self.state.tokens
        return _presented(tokens) if tokens is not None else None

    def proof(self, method: str, url: str) -> str | None:
        """A fresh DPoP proof for a request carrying a DPoP-bound token (None for a bearer token)."""
        tokens = self.state.tokens
        if self.dpop is None or tokens is None or tokens.token_type.lower() != "dpop":
            return None
        return self.dpop.proof(method, url, tokens.access_token)

    async def prepare(self) -> None:
        """Before a request is sent: an access token past its expiry is refreshed first (when a refresh
        token is held), so the request is not refused for it. A failed refresh leaves no token: the
        server's 401 then runs the whole flow."""
        if not self._refreshable():
            return
        async with self._lock:
            if not self._refreshable():
                return  # another request refreshed it meanwhile
            try:
                assert self.state.tokens is not None
                await self._refresh(self.state.tokens)
            finally:
                self.http.flush()

    def _refreshable(self) -> bool:
        tokens = self.state.tokens
        return tokens is not None and tokens.expired() and bool(tokens.refresh_token) \
            and self.state.discovered is not None and self.state.registration is not None

    async def challenged(self, status: int, www_authenticate: str | None, sent: str | None = None,
                         dpop_nonce: str | None = None) -> bool:
        """Run the flow for a refused request (`sent`: the Authorization it carried); True when a new token is
        held and the request may be retried. A refusal of a token already replaced only needs a retry, and
        a DPoP `use_dpop_nonce` refusal a retry with the server's nonce."""
        params = bearer_params(www_authenticate)
        self._dpop_challenged = self._dpop_challenged or "dpop" in schemes(www_authenticate)
        if status == 401 and params.get("error") == "use_dpop_nonce" and self.dpop is not None \
                and self.dpop.remember_nonce(self.server_url, dpop_nonce):
            return True
        try:
            return await self._challenged(status, params, sent)
        finally:
            self.http.flush()

    async def _challenged(self, status: int, params: dict[str, str], sent: str | None) -> bool:
        async with self._lock:
            current = self.state.tokens
            if status == 401 and current is not None and sent != _presented(current) and not current.expired():
                return True  # another request got a new token meanwhile: retry with it
            if status == 403:
                if params.get("error") != "insufficient_scope":
                    return False
                self.state.step_ups += 1
                if self.state.step_ups > self.settings.max_step_ups:
                    raise AuthError(f"still insufficient_scope after {self.settings.max_step_ups} step-up(s); "
                                    "giving up")
                if self.state.discovered is None:
                    await self._discover(params)
                granted = self.state.tokens.scope if self.state.tokens else []
                await self._obtain(D.union(self.state.requested_scope, granted, D.scope_list(params.get("scope"))))
                return True
            if status != 401:
                return False
            await self._discover(params)
            tokens = self.state.tokens
            if tokens is not None and sent != _presented(tokens) and not tokens.expired():
                return True  # remembered for this server and issuer, not tried yet
            if tokens is not None and tokens.refresh_token and await self._refresh(tokens):
                return True
            await self._obtain(self._select_scope(params))
            return True

    async def aclose(self) -> None:
        await self.redirect.aclose()
        await self.http.aclose()

    # --- 1, 2: discovery -----------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        return {"MCP-Protocol-Version": self.settings.protocol_version}

    async def _discover(self, params: dict[str, str]) -> None:
        prm: dict[str, Any] | None = None
        for url in D.prm_urls(self.server_url, params.get("resource_metadata")):
            reply = await self.http.request("protected resource metadata", "GET", url, self._headers())
            body = reply.json()
            if reply.status == 200 and isinstance(body, dict) and isinstance(body.get("authorization_servers"), list) \
                    and body["authorization_servers"]:
                prm = body
                break
            if reply.status >= 500:
                raise AuthError(f"protected resource metadata at {url}: HTTP {reply.status}")
        if prm is not None:
            resource = str(prm.get("resource") or "")
            covered = bool(resource) and D.resource_covers(resource, self.server_url)
            self.http.exchanges[-1].check("resource matches the server", covered,
                                          f"resource {resource!r}, server {self.server_url!r}")
            if not covered:
                raise AuthError(f"the protected resource metadata names resource {resource!r}, not this server "
                                f"({self.server_url}); not authorizing")
            first = prm["authorization_servers"][0]
            if not D.is_http_url(first):
                raise AuthError(f"the protected resource metadata names authorization server {first!r}, which is "
                                "not an http(s) URL")
            issuer = str(first)
        else:
            resource, issuer = D.canonical_resource(self.server_url), D.origin(self.server_url)
        metadata = await self._as_metadata(issuer, legacy=prm is None)
        self._choose_dpop(prm, metadata)
        previous = self.state.registration
        if previous is not None and previous.issuer != issuer:
            self.state.registration, self.state.tokens = None, None  # bound to the server that issued them
        if self.state.registration is None:
            self.state.registration, stored_tokens = self.store.load(resource, issuer)
            self.state.tokens = self.state.tokens if self.state.tokens and self.state.tokens.issuer == issuer \
                else stored_tokens
            if self.state.tokens:
                self.book.add(self.state.tokens.access_token, self.state.tokens.refresh_token)
        self.state.discovered = Discovered(resource, issuer, prm, metadata)

    def _check_endpoints(self, metadata: dict[str, Any], url: str) -> None:
        """The endpoints the flow will call must be http(s) URLs; a registration endpoint that is not one
        is treated as absent (the client then needs another way to register)."""
        needed = ["token_endpoint"] + (["authorization_endpoint"] if self.settings.grant == "authorization_code"
                                       else [])
        for key in needed:
            if not D.is_http_url(metadata.get(key)):
                raise AuthError(f"authorization server metadata at {url}: {key} is {metadata.get(key)!r}, not an "
                                "http(s) URL")
        if "registration_endpoint" in metadata and not D.is_http_url(metadata["registration_endpoint"]):
            del metadata["registration_endpoint"]

    def _choose_dpop(self, prm: dict[str, Any] | None, metadata: dict[str, Any]) -> None:
        """DPoP when both the authorization server and the resource support it (`dpop_wanted`): a Bearer-only
        resource refuses `Authorization: DPoP`, however readily the authorization server binds tokens."""
        if self.dpop is None and dpop_wanted(prm, metadata, self._dpop_challenged, self.settings.dpop):
            self.dpop = DpopKey()

    async def _as_metadata(self, issuer: str, legacy: bool) -> dict[str, Any]:
        for url in D.as_metadata_urls(issuer):
            reply = await self.http.request("authorization server metadata", "GET", url, self._headers())
            body = reply.json()
            if reply.status != 200 or not isinstance(body, dict):
                continue
            same = body.get("issuer") == issuer
            reply.exchange.check("issuer matches the metadata URL", same, f"issuer {body.get('issuer')!r}, "
                                 f"expected {issuer!r}")
            if not same:
                raise AuthError(f"authorization server metadata at {url} names issuer {body.get('issuer')!r}, "
                                f"not {issuer!r}; not using it")
            self._check_endpoints(body, url)
            if self.settings.grant == "authorization_code":  # judged here, refused when authorizing
                methods = body.get("code_challenge_methods_supported")
                reply.exchange.check("PKCE S256 offered", isinstance(methods, list) and "S256" in methods,
                                     f"code_challenge_methods_supported: {methods!r}")
            return body
        if legacy:
            # 2025-03-26: a server with neither kind of metadata has its endpoints at the root (PKCE was required).
            self.http.record(Exchange("authorization server metadata", "FALLBACK", issuer), final=True)
            return {"issuer": issuer, "authorization_endpoint": f"{issuer}/authorize",
                    "token_endpoint": f"{issuer}/token", "registration_endpoint": f"{issuer}/register",
                    "code_challenge_methods_supported": ["S256"], FALLBACK: True}
        raise AuthError(f"no authorization server metadata found for {issuer}")

    # --- 3: registration -----------------------------------------------------------------------

    async def _register(self, found: Discovered) -> Registration:
        if self.state.registration is not None and self.state.registration.issuer == found.issuer:
            return self.state.registration
        metadata, settings = found.metadata, self.settings
        supported = metadata.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
        if settings.client_id and settings.private_key_pem and settings.client_issuer in (None, found.issuer):
            registration = Registration(found.issuer, settings.client_id, settings.private_key_pem, "private_key_jwt",
                                        "pre-registered")
        elif settings.client_id and settings.client_issuer in (None, found.issuer):
            order = WITH_SECRET if settings.client_secret else PUBLIC
            method = next((m for m in order if m in supported), order[0])
            registration = Registration(found.issuer, settings.client_id, settings.client_secret, method,
                                        "pre-registered")
        elif settings.client_metadata_url and metadata.get("client_id_metadata_document_supported") is True:
            registration = Registration(found.issuer, settings.client_metadata_url, None, "none", "metadata-document")
        elif metadata.get("registration_endpoint") and settings.grant == "authorization_code":  # machines: pre-set
            registration = await self._dynamic_registration(found, supported)
        else:
            raise AuthError(f"no way to register with {found.issuer}: no pre-registered client for it, no "
                            "Client ID Metadata Document support and no registration endpoint")
        self.state.registration = registration
        self.store.save(found.resource, registration, None)
        return registration

    async def _dynamic_registration(self, found: Discovered, supported: list[str]) -> Registration:
        method = next((m for m in PUBLIC if m in supported), "none")
        grants = ["authorization_code", "refresh_token"]
        body = {"client_name": self.settings.client_name, "redirect_uris": [self.redirect.redirect_uri],
                "grant_types": grants, "response_types": ["code"], "token_endpoint_auth_method": method,
                # A loopback redirect URI makes this a native application (SEP-837, OpenID Registration §2).
                "application_type": "native" if D.is_loopback(self.redirect.redirect_uri) else "web"}
        reply = await self.http.request("client registration", "POST", str(found.metadata["registration_endpoint"]),
                                        {"Content-Type": "application/json"}, json.dumps(body))
        answer = reply.json()
        if reply.status not in (200, 201) or not isinstance(answer, dict) or not answer.get("client_id"):
            if found.metadata.get(FALLBACK):
                raise AuthError(f"the server asks for authorization but publishes no OAuth metadata (no protected "
                                f"resource metadata, none at {found.issuer}) and registering at "
                                f"{found.issuer}/register got HTTP {reply.status}; use a static bearer token")
            raise AuthError(f"dynamic client registration failed: HTTP {reply.status}")
        secret = answer.get("client_secret")
        self.book.add(secret)
        granted = str(answer.get("token_endpoint_auth_method") or (method if secret or method == "none" else "none"))
        if granted not in WITH_SECRET:
            raise AuthError(f"the server registered the client for {granted!r}, which this client cannot apply")
        return Registration(found.issuer, str(answer["client_id"]), secret, granted, "dynamic")

    # --- 4, 5: authorization and tokens --------------------------------------------------------

    def _select_scope(self, params: dict[str, str]) -> list[str]:
        """The spec's order: the challenge's scope, else the PRM's scopes_supported, else none at all."""
        found = self.state.discovered
        assert found is not None
        if self.settings.scope is not None:
            scope = list(self.settings.scope)
        elif params.get("scope"):
            scope = D.scope_list(params["scope"])
        else:
            scope = D.scope_list((found.prm or {}).get("scopes_supported"))
        offered = D.scope_list(found.metadata.get("scopes_supported"))
        if scope and self.settings.offline_access and self.settings.grant == "authorization_code" \
                and "offline_access" in offered:
            scope = D.union(scope, ["offline_access"])
        return scope

    async def _obtain(self, scope: list[str]) -> None:
        found = self.state.discovered
        assert found is not None
        registration = await self._register(found)
        self.state.requested_scope = scope
        if self.settings.grant == "client_credentials":
            await self._token_request(found, registration, "client credentials token",
                                      prepare_token_request("client_credentials", scope=scope or None,
                                                            resource=found.resource), scope)
            return
        if self.settings.grant == "enterprise":
            login = self.settings.enterprise
            if login is None:
                raise AuthError("enterprise-managed authorization needs the IdP's token endpoint, the client id "
                                "there and the user's ID token")
            grant = await identity_assertion(self.http, login, found.issuer, found.resource, scope)
            await self._token_request(found, registration, "jwt bearer token (ID-JAG)",
                                      prepare_token_request(JWT_BEARER, assertion=grant, scope=scope or None),
                                      scope)
            return
        if self.settings.grant == "jwt_bearer":
            if not self.settings.assertion:
                raise AuthError("the jwt_bearer grant needs the workload's JWT (assertion)")
            # A refusal ends the flow (AuthError): the grant is not retried nor swapped for another.
            await self._token_request(found, registration, "jwt bearer token",
                                      prepare_token_request(JWT_BEARER, assertion=self.settings.assertion,
                                                            scope=scope or None, resource=found.resource), scope)
            return
        code, verifier = await self._authorize(found, registration, scope)
        body = prepare_token_request("authorization_code", code=code, redirect_uri=self.redirect.redirect_uri,
                                     code_verifier=verifier, resource=found.resource)
        await self._token_request(found, registration, "token request", body, scope)

    async def _authorize(self, found: Discovered, registration: Registration, scope: list[str]) -> tuple[str, str]:
        metadata = found.metadata
        methods = metadata.get("code_challenge_methods_supported")
        if not isinstance(methods, list) or "S256" not in methods:
            raise AuthError(f"{found.issuer} does not offer PKCE S256 (code_challenge_methods_supported: "
                            f"{methods!r}); the spec forbids going on")
        verifier, state = generate_token(64), generate_token(32)
        self.book.add(verifier)
        url = prepare_grant_uri(str(metadata["authorization_endpoint"]), registration.client_id, "code",
                                self.redirect.redirect_uri, scope=scope or None, state=state,
                                code_challenge=create_s256_code_challenge(verifier), code_challenge_method="S256",
                                resource=found.resource)
        callback = await self.redirect.authorize(url, self.http)
        query = {k: v[0] for k, v in parse_qs(urlsplit(callback).query).items()}
        self.book.add(query.get("code"))
        step = Exchange("authorization response", "REDIRECT", self.book.mask(callback))
        self.http.record(step)
        if "error" in query:
            raise AuthError(f"the authorization server refused: {reason(query)}")
        if not step.check("state matches", query.get("state") == state):
            raise AuthError("the authorization response's state is not the one sent; refusing it")
        iss, advertised = query.get("iss"), metadata.get("authorization_response_iss_parameter_supported") is True
        if iss is not None or advertised:
            same = iss == found.issuer
            if not step.check("iss matches the issuer (RFC 9207)", same, f"iss {iss!r}, issuer {found.issuer!r}"):
                raise AuthError(f"the authorization response's iss is {iss!r}, not {found.issuer!r}; refusing it")
        if not query.get("code"):
            raise AuthError("the authorization response carries no code")
        return query["code"], verifier

    async def _token_request(self, found: Discovered, registration: Registration, phase: str, body: str,
                             scope: list[str]) -> None:
        endpoint = str(found.metadata["token_endpoint"])
        auth = client_auth(registration, found.issuer, self.settings.signing_alg)
        _, headers, body = auth.prepare("POST", endpoint, dict(FORM), body)
        reply = await self._post_token(phase, endpoint, headers, body)
        answer = reply.json()
        if reply.status != 200 or not isinstance(answer, dict) or not isinstance(answer.get("access_token"), str):
            error = answer.get("error") if isinstance(answer, dict) else None
            if reply.status == 200 and not error:
                shape = "no JSON object" if not isinstance(answer, dict) else "no access_token string"
                raise AuthError(f"{phase}: the token endpoint answered HTTP 200 with {shape}")
            why = reason(answer)
            raise AuthError(f"{phase} refused: HTTP {reply.status}" + (f" {why}" if why else ""))
        self.book.add(answer.get("access_token"), answer.get("refresh_token"))
        answer["token_type"] = checked_token_type(answer.get("token_type"), phase, proved=self.dpop is not None)
        self.state.tokens = TokenSet.from_response(answer, found.issuer, scope, self.state.tokens)
        self.store.save(found.resource, registration, self.state.tokens)

    async def _post_token(self, phase: str, endpoint: str, headers: dict[str, str], body: str) -> Reply:
        """POST to the token endpoint, with a DPoP proof when the flow uses DPoP; a `use_dpop_nonce`
        refusal is retried once with the nonce the server sent (RFC 9449 §8)."""
        for _ in range(2):
            if self.dpop is not None:
                headers = {**headers, "DPoP": self.dpop.proof("POST", endpoint)}
            reply = await self.http.request(phase, "POST", endpoint, headers, body)
            answer = reply.json()
            asked = reply.status in (400, 401) and isinstance(answer, dict) and answer.get("error") == "use_dpop_nonce"
            nonce = reply.headers.get("dpop-nonce")
            if not asked or self.dpop is None or not self.dpop.remember_nonce(endpoint, nonce):
                return reply
            reply.exchange.handled = "the server asked for a DPoP nonce: sent again with it"
        return reply

    async def _refresh(self, tokens: TokenSet) -> bool:
        found, registration = self.state.discovered, self.state.registration
        if found is None or registration is None or not tokens.refresh_token:
            return False
        body = prepare_token_request("refresh_token", refresh_token=tokens.refresh_token, resource=found.resource)
        try:
            await self._token_request(found, registration, "token refresh", body, tokens.scope)
        except AuthError:
            self.state.tokens = None
            return False
        return True


def _presented(tokens: TokenSet) -> str:
    """The Authorization header for a token: `DPoP` for a DPoP-bound one (RFC 9449 §7.1), else `Bearer`."""
    scheme = "DPoP" if tokens.token_type.lower() == "dpop" else "Bearer"
    return f"{scheme} {tokens.access_token}"
