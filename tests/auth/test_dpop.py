"""DPoP (RFC 9449): fresh, well-formed proofs, nonces kept per server, and the flow against an authorization
server that offers DPoP and asks for a nonce (served here by httpx's mock transport, in memory)."""

import asyncio
import base64
import hashlib
import json
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import ECKey

from mrtr_studio.auth.dpop import DpopKey, htu
from mrtr_studio.auth.exchanges import AuthError, AuthHttp
from mrtr_studio.auth.flow import OAuthClient, OAuthSettings
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.auth.secrets import SecretBook
from mrtr_studio.trace.auth_arrows import auth_failed

MCP = "https://mcp.example/mcp"
AS = "https://as.example"


def read(proof: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Verify a proof with the key it carries, as a server does; its header and claims."""
    header = json.loads(base64.urlsafe_b64decode(proof.split(".")[0] + "=="))
    token = jwt.decode(proof, ECKey.import_key(header["jwk"]), algorithms=["ES256"])
    return dict(token.header), dict(token.claims)


def test_proofs_are_fresh_signed_and_bound_to_the_request_and_token() -> None:
    key = DpopKey()
    first = read(key.proof("post", "https://as.example/token?x=1#frag", "the-token"))
    second = read(key.proof("POST", "https://as.example/token", "the-token"))
    header, claims = first
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256" and "d" not in header["jwk"]
    assert claims["htm"] == "POST" and claims["htu"] == "https://as.example/token"
    digest = base64.urlsafe_b64encode(hashlib.sha256(b"the-token").digest()).rstrip(b"=").decode()
    assert claims["ath"] == digest
    assert claims["jti"] != second[1]["jti"]
    assert ECKey.import_key(header["jwk"]).thumbprint() == key.thumbprint
    assert "ath" not in read(key.proof("POST", "https://as.example/token"))[1]


def test_nonces_are_kept_per_server_and_never_reused_as_new() -> None:
    key = DpopKey()
    assert key.remember_nonce("https://as.example/token", "n-1")
    assert not key.remember_nonce("https://as.example/other", "n-1")  # the same one: a retry would fail again
    assert not key.remember_nonce(MCP, None) and not key.remember_nonce(MCP, "x" * 5000)
    assert read(key.proof("POST", "https://as.example/token"))[1]["nonce"] == "n-1"
    assert "nonce" not in read(key.proof("POST", MCP))[1]
    assert htu("https://h.example:8443/a/b?q#f") == "https://h.example:8443/a/b"


class MockServers:
    """The resource's metadata and an authorization server that issues DPoP-bound tokens after a nonce."""

    def __init__(self) -> None:
        self.proofs: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        if url == "https://mcp.example/.well-known/oauth-protected-resource/mcp":
            return httpx.Response(200, json={"resource": MCP, "authorization_servers": [AS],
                                             "dpop_bound_access_tokens_required": True})
        if url == f"{AS}/.well-known/oauth-authorization-server":
            return httpx.Response(200, json={
                "issuer": AS, "authorization_endpoint": f"{AS}/authorize", "token_endpoint": f"{AS}/token",
                "registration_endpoint": f"{AS}/register", "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"], "dpop_signing_alg_values_supported": ["ES256"]})
        if url == f"{AS}/register":
            return httpx.Response(201, json={"client_id": "c-1", "token_endpoint_auth_method": "none"})
        if url.startswith(f"{AS}/authorize"):
            query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
            back = urlencode({"code": "the-code", "state": query["state"]})
            return httpx.Response(302, headers={"Location": f"{query['redirect_uri']}?{back}"})
        if url == f"{AS}/token":
            _, claims = read(request.headers["dpop"])
            self.proofs.append(claims)
            if claims.get("nonce") != "as-nonce":
                return httpx.Response(400, headers={"DPoP-Nonce": "as-nonce"}, json={"error": "use_dpop_nonce"})
            return httpx.Response(200, json={"access_token": "bound-token", "token_type": "DPoP",
                                             "expires_in": 3600})
        return httpx.Response(404)


def test_the_flow_gets_a_dpop_bound_token_and_presents_it_with_a_proof() -> None:
    servers = MockServers()

    async def go() -> OAuthClient:
        http = AuthHttp(SecretBook(), client=httpx.AsyncClient(transport=httpx.MockTransport(servers)))
        flow = OAuthClient(MCP, HeadlessRedirect(), OAuthSettings(), http=http)
        assert await flow.challenged(401, 'DPoP resource_metadata="https://mcp.example/.well-known/'
                                          'oauth-protected-resource/mcp"')
        return flow

    flow = asyncio.run(go())
    assert [p.get("nonce") for p in servers.proofs] == [None, "as-nonce"]  # asked for a nonce, sent again
    assert flow.authorization() == "DPoP bound-token"
    proof = flow.proof("POST", MCP)
    assert proof is not None and read(proof)[1]["htu"] == MCP and "ath" in read(proof)[1]
    [refused, granted] = [e for e in flow.exchanges if e.phase == "token request"]
    assert refused.status == 400 and refused.handled and not auth_failed(refused.as_dict())
    assert granted.status == 200
    assert "bound-token" not in json.dumps([e.as_dict() for e in flow.exchanges])  # masked in the records

    # The resource asks for its own nonce: a retry with it, no new authorization.
    async def nonce() -> bool:
        return await flow.challenged(401, 'DPoP error="use_dpop_nonce"', "DPoP bound-token", dpop_nonce="rs-1")

    assert asyncio.run(nonce())
    proof = flow.proof("POST", MCP)
    assert proof is not None and read(proof)[1]["nonce"] == "rs-1"
    assert len([e for e in flow.exchanges if e.phase == "token request"]) == 2


def test_a_resource_that_requires_dpop_from_a_server_without_it_stops_the_flow() -> None:
    class NoDpop(MockServers):
        def __call__(self, request: httpx.Request) -> httpx.Response:
            response = super().__call__(request)
            if str(request.url).endswith("/.well-known/oauth-authorization-server"):
                body = response.json()
                del body["dpop_signing_alg_values_supported"]
                return httpx.Response(200, json=body)
            return response

    async def go() -> None:
        http = AuthHttp(SecretBook(), client=httpx.AsyncClient(transport=httpx.MockTransport(NoDpop())))
        await OAuthClient(MCP, HeadlessRedirect(), OAuthSettings(), http=http).challenged(401, "Bearer")

    with pytest.raises(AuthError, match="requires DPoP-bound tokens"):
        asyncio.run(go())
