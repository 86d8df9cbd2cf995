"""The client's OAuth flow end to end: the local authorization server fixture, the studio's own HTTP server
verifying its JWTs, and the studio's client (HttpClientTransport consulting OAuthClient)."""

import asyncio
import base64
import re
from typing import Any

import pytest
from authlib.oauth2.rfc6749.util import extract_basic_authorization

from mrtr_studio.auth.flow import OAuthClient, OAuthSettings
from mrtr_studio.auth.jwt_verifier import JwtVerifier
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.transport.base import TransportError
from mrtr_studio.transport.http_client import HttpClientTransport
from mrtr_studio.transport.http_host import ServerThread

from .as_fixture import AuthServer, list_once

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


def list_tools(url: str, settings: OAuthSettings | None = None) -> tuple[list[str], OAuthClient]:
    flow = OAuthClient(url, HeadlessRedirect(), settings or OAuthSettings())
    return list_once(url, flow), flow


def seen(issuer: AuthServer, path: str) -> list[dict[str, Any]]:
    return [r for r in issuer.requests if r["path"] == path]


def test_code_flow_with_pkce_gets_a_token_the_server_accepts(issuer: AuthServer,
                                                              protected: tuple[str, JwtVerifier]) -> None:
    url, _ = protected
    tools, flow = list_tools(url)
    assert "delete_file" in tools
    [authorize] = seen(issuer, "/authorize")
    assert authorize["query"]["code_challenge_method"] == "S256"
    assert authorize["query"]["resource"] == url
    assert [r["resource"] for r in seen(issuer, "/token")] == [url]
    assert seen(issuer, "/register")[0]["body"]["application_type"] == "native"
    phases = [e.phase for e in flow.exchanges]
    assert phases[:2] == ["protected resource metadata", "authorization server metadata"]
    assert {"client registration", "authorization redirect", "authorization response", "token request"} <= set(phases)
    checks = {c.name: c.passed for e in flow.exchanges for c in e.checks}
    assert checks == {"resource matches the server": True, "issuer matches the metadata URL": True,
                      "PKCE S256 offered": True,
                      "state matches": True, "iss matches the issuer (RFC 9207)": True}


def test_an_expired_token_is_refreshed_without_a_new_authorization(issuer: AuthServer,
                                                                    protected: tuple[str, JwtVerifier]) -> None:
    issuer.ttls = [-300]  # the first access token is born expired
    tools, _ = list_tools(protected[0])
    assert tools
    assert [r["grant_type"] for r in seen(issuer, "/token")] == ["authorization_code", "refresh_token"]
    assert len(seen(issuer, "/authorize")) == 1


def test_insufficient_scope_steps_up_with_the_union_of_scopes(issuer: AuthServer,
                                                              protected: tuple[str, JwtVerifier]) -> None:
    url, verifier = protected
    verifier.required_scopes = ["mcp", "admin"]
    tools, _ = list_tools(url, OAuthSettings(scope=["mcp"]))
    assert tools
    assert [r["query"]["scope"] for r in seen(issuer, "/authorize")] == ["mcp offline_access",
                                                                      "mcp offline_access admin"]


def test_a_wrong_iss_in_the_authorization_response_is_refused(issuer: AuthServer,
                                                              protected: tuple[str, JwtVerifier]) -> None:
    issuer.wrong_iss = True
    with pytest.raises(TransportError, match=re.escape("iss is 'https://evil.example'")):
        list_tools(protected[0])
    assert seen(issuer, "/authorize") and not seen(issuer, "/token")


def test_metadata_naming_another_resource_stops_before_authorization(issuer: AuthServer,
                                                                     protected: tuple[str, JwtVerifier]) -> None:
    url, verifier = protected
    verifier.audience = "http://evil.example/mcp"  # the server's PRM now names another resource
    with pytest.raises(TransportError, match=re.escape("names resource 'http://evil.example/mcp'")):
        list_tools(url)
    assert not seen(issuer, "/authorize") and not seen(issuer, "/register")


def test_step_ups_are_limited(issuer: AuthServer, protected: tuple[str, JwtVerifier]) -> None:
    url, verifier = protected
    verifier.required_scopes = ["never-granted"]
    issuer.scopes_supported = ["mcp"]
    with pytest.raises(TransportError):
        list_tools(url, OAuthSettings(scope=["mcp"]))
    assert 1 < len(seen(issuer, "/authorize")) <= 4


def test_requests_refused_together_share_one_authorization(issuer: AuthServer,
                                                           protected: tuple[str, JwtVerifier]) -> None:
    url, _ = protected
    flow = OAuthClient(url, HeadlessRedirect())

    async def go() -> None:
        transports = [HttpClientTransport(url, auth=flow) for _ in range(3)]
        sessions = [ClientSession(t, ClientSettings(era="modern"), R.compose(), server_label=url) for t in transports]
        try:
            listed = await asyncio.gather(*(session.list_tools() for session in sessions))
            assert all(listed)
        finally:
            for session in sessions:
                await session.close()
            await flow.aclose()

    asyncio.run(go())
    assert len(seen(issuer, "/authorize")) == 1
    assert len(seen(issuer, "/token")) == 1


def test_a_401_without_any_oauth_metadata_says_so() -> None:
    from mrtr_studio.transport.http_server import HttpServerConfig as Config

    with ServerThread(build_demo_server(), config=Config(users={"only-token": "alice"})) as thread:
        async def go() -> None:
            flow = OAuthClient(thread.url, HeadlessRedirect())
            transport = HttpClientTransport(thread.url, auth=flow, headers={"Authorization": "Bearer wrong"})
            try:
                await transport.send({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}})
            finally:
                await transport.close()
                await flow.aclose()

        with pytest.raises(TransportError, match="publishes no OAuth metadata"):
            asyncio.run(go())


#: An id and a secret with what RFC 6749 §2.3.1's form-urlencoding exists for: ':', '+', ' ', '%' and non-ASCII.
ODD_ID = "studio:client é"
ODD_SECRET = "s3:cr+t wïth é/%="


def test_client_secret_basic_form_encodes_the_id_and_the_secret(issuer: AuthServer,
                                                                 protected: tuple[str, JwtVerifier]) -> None:
    issuer.clients[ODD_ID] = ODD_SECRET
    tools, flow = list_tools(protected[0], OAuthSettings(client_id=ODD_ID, client_secret=ODD_SECRET))
    assert tools  # the fixture decoded the header per the RFC (base64, then form-decoding of each) and agreed
    [token] = seen(issuer, "/token")
    header = str(token["basic"])
    assert base64.b64decode(header[6:]) == b"studio%3Aclient%20%C3%A9:s3%3Acr%2Bt%20w%C3%AFth%20%C3%A9%2F%25%3D"
    # authlib's server side (plain percent-decoding) reads the same pair: a space sent as %20, not '+'.
    assert extract_basic_authorization({"Authorization": header}) == (ODD_ID, ODD_SECRET)
    assert [e.request_headers.get("Authorization") for e in flow.exchanges if e.phase == "token request"] == \
        ["Basic ***"]


def test_a_wrong_basic_secret_is_refused(issuer: AuthServer, protected: tuple[str, JwtVerifier]) -> None:
    issuer.clients[ODD_ID] = ODD_SECRET
    with pytest.raises(TransportError, match="token request refused: HTTP 401 invalid_client"):
        list_tools(protected[0], OAuthSettings(client_id=ODD_ID, client_secret=ODD_SECRET.replace("+", " ")))
