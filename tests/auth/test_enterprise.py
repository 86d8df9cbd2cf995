"""Enterprise-managed authorization (SEP-990): the ID token is exchanged at the IdP for an ID-JAG addressed to
the authorization server and this resource, which the JWT-bearer grant then trades for the access token.
The IdP and the authorization server are httpx mock transports (in memory)."""

import asyncio
import base64
import json
from urllib.parse import parse_qs

import httpx
import pytest

from mrtr_studio.auth.enterprise import ID_JAG, ID_TOKEN, TOKEN_EXCHANGE, EnterpriseLogin
from mrtr_studio.auth.exchanges import AuthError, AuthHttp
from mrtr_studio.auth.flow import JWT_BEARER, OAuthClient, OAuthSettings
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.auth.secrets import SecretBook
from mrtr_studio.trace import TraceStore
from mrtr_studio.trace.auth_arrows import AUTH_LANE, IDP_LANE
from mrtr_studio.trace.diagram_layout import layout_operation

MCP = "https://mcp.example/mcp"
AS = "https://as.example"
IDP = "https://idp.example"
LOGIN = EnterpriseLogin(f"{IDP}/token", "idp-client", "the-users-id-token")


class Servers:
    def __init__(self, issued: str = ID_JAG) -> None:
        self.issued = issued
        self.forms: dict[str, dict[str, str]] = {}
        self.basic: str | None = None

    def __call__(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        if url == "https://mcp.example/.well-known/oauth-protected-resource/mcp":
            return httpx.Response(200, json={"resource": MCP, "authorization_servers": [AS]})
        if url == f"{AS}/.well-known/oauth-authorization-server":
            return httpx.Response(200, json={"issuer": AS, "authorization_endpoint": f"{AS}/authorize",
                                             "token_endpoint": f"{AS}/token", "grant_types_supported": [JWT_BEARER],
                                             "token_endpoint_auth_methods_supported": ["client_secret_basic"]})
        form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        self.forms[url] = form
        if url == f"{IDP}/token":
            return httpx.Response(200, json={"access_token": "the-id-jag", "issued_token_type": self.issued,
                                             "token_type": "N_A"})
        if url == f"{AS}/token":
            self.basic = base64.b64decode(request.headers["authorization"][6:]).decode()
            return httpx.Response(200, json={"access_token": "at-1", "token_type": "Bearer", "expires_in": 600})
        return httpx.Response(404)


def authorize(servers: Servers) -> OAuthClient:
    async def go() -> OAuthClient:
        http = AuthHttp(SecretBook(), client=httpx.AsyncClient(transport=httpx.MockTransport(servers)))
        settings = OAuthSettings(client_id="as-client", client_secret="as-secret-value", grant="enterprise",
                                 enterprise=LOGIN)
        flow = OAuthClient(MCP, HeadlessRedirect(), settings, http=http)
        await flow.challenged(401, "Bearer")
        return flow

    return asyncio.run(go())


def test_the_id_token_becomes_an_id_jag_then_an_access_token() -> None:
    servers = Servers()
    flow = authorize(servers)
    assert flow.authorization() == "Bearer at-1"
    exchange = servers.forms[f"{IDP}/token"]
    assert exchange == {"grant_type": TOKEN_EXCHANGE, "requested_token_type": ID_JAG,
                        "subject_token": "the-users-id-token", "subject_token_type": ID_TOKEN, "audience": AS,
                        "resource": MCP, "client_id": "idp-client"}
    grant = servers.forms[f"{AS}/token"]
    assert grant["grant_type"] == JWT_BEARER and grant["assertion"] == "the-id-jag"
    assert servers.basic == "as-client:as-secret-value"
    recorded = json.dumps([e.as_dict() for e in flow.exchanges])
    for secret in ("the-users-id-token", "the-id-jag", "at-1", "as-secret-value"):
        assert secret not in recorded

    store = TraceStore()
    op = store.begin_operation("tools/call", "t", {}, "modern", MCP)
    for e in flow.exchanges:
        store.record(op.id, 0, "client->server", e.as_dict(), auth_phase=e.phase)
    arrows = {a.label.split(" · ")[0]: a for a in layout_operation(op, store.messages_of(op.id)).arrows}
    assert arrows["auth: token exchange at the IdP"].dst == IDP_LANE
    assert arrows["auth: jwt bearer token (ID-JAG)"].dst == AUTH_LANE


def test_an_idp_that_issues_something_else_is_refused() -> None:
    with pytest.raises(AuthError, match="not an ID-JAG"):
        authorize(Servers(issued="urn:ietf:params:oauth:token-type:access_token"))
