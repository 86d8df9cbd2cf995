"""A hostile or broken authorization server never breaks the flow with anything but an AuthError that says
which step and why: oversized, malformed or mistyped metadata, endpoints that are not URLs, token answers
without a token, redirect loops. (httpx's mock transport plays the servers, in memory.)"""

import asyncio
from collections.abc import Callable
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from mrtr_studio.auth.exchanges import AuthError, AuthHttp
from mrtr_studio.auth.flow import OAuthClient, OAuthSettings
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.auth.secrets import SecretBook

MCP = "https://mcp.example/mcp"
AS = "https://as.example"
PRM = "https://mcp.example/.well-known/oauth-protected-resource/mcp"
Override = Callable[[httpx.Request], httpx.Response | None]


def metadata(**changed: object) -> dict[str, object]:
    return {"issuer": AS, "authorization_endpoint": f"{AS}/authorize", "token_endpoint": f"{AS}/token",
            "registration_endpoint": f"{AS}/register", "code_challenge_methods_supported": ["S256"], **changed}


def servers(override: Override) -> Callable[[httpx.Request], httpx.Response]:
    def answer(request: httpx.Request) -> httpx.Response:
        changed = override(request)
        if changed is not None:
            return changed
        url = str(request.url)
        if url == PRM:
            return httpx.Response(200, json={"resource": MCP, "authorization_servers": [AS]})
        if url == f"{AS}/.well-known/oauth-authorization-server":
            return httpx.Response(200, json=metadata())
        if url == f"{AS}/register":
            return httpx.Response(201, json={"client_id": "c-1"})
        if url.startswith(f"{AS}/authorize"):
            query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
            back = urlencode({"code": "the-code", "state": query["state"], "iss": AS})
            return httpx.Response(302, headers={"Location": f"{query['redirect_uri']}?{back}"})
        if url == f"{AS}/token":
            return httpx.Response(200, json={"access_token": "at-1", "token_type": "Bearer"})
        return httpx.Response(404)

    return answer


def authorize(override: Override) -> OAuthClient:
    async def go() -> OAuthClient:
        http = AuthHttp(SecretBook(), client=httpx.AsyncClient(transport=httpx.MockTransport(servers(override))))
        flow = OAuthClient(MCP, HeadlessRedirect(), OAuthSettings(), http=http)
        await flow.challenged(401, f'Bearer resource_metadata="{PRM}"')
        return flow

    return asyncio.run(go())


def at(path: str, response: httpx.Response) -> Override:
    return lambda request: response if str(request.url).split("?")[0].endswith(path) else None


HOSTILE = {
    "oversized metadata": (at("oauth-protected-resource/mcp", httpx.Response(200, content=b"[" * 300_000)),
                           "is over 262144 bytes"),
    "an issuer that is an object": (at("oauth-protected-resource/mcp", httpx.Response(
        200, json={"resource": MCP, "authorization_servers": [{"x": 1}]})), "not an http(s) URL"),
    "metadata that is not JSON": (at("oauth-authorization-server", httpx.Response(200, text="<html>")),
                                  "no authorization server metadata found"),
    "a token endpoint that is not a URL": (at("oauth-authorization-server", httpx.Response(
        200, json=metadata(token_endpoint="::::"))), "token_endpoint is '::::', not an http(s) URL"),
    "an authorization endpoint that is a number": (at("oauth-authorization-server", httpx.Response(
        200, json=metadata(authorization_endpoint=7))), "authorization_endpoint is 7"),
    "no token endpoint at all": (at("oauth-authorization-server", httpx.Response(
        200, json={k: v for k, v in metadata().items() if k != "token_endpoint"})), "token_endpoint is None"),
    "a token answer in HTML": (at("/token", httpx.Response(200, text="<html>")), "with no JSON object"),
    "a token that is a number": (at("/token", httpx.Response(200, json={"access_token": 5})),
                                 "no access_token string"),
    "an error that is not a string": (at("/token", httpx.Response(400, json={"error": {"x": 1}})),
                                      "token request refused: HTTP 400"),
    "an authorization redirect loop": (at("/authorize", httpx.Response(302, headers={"Location": f"{AS}/authorize"})),
                                       "after 5 hops"),
    "registration failing": (at("/register", httpx.Response(500)), "dynamic client registration failed: HTTP 500"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_authorization_server_gets_a_clear_refusal(case: str) -> None:
    override, reason = HOSTILE[case]
    with pytest.raises(AuthError) as refused:
        authorize(override)
    assert reason in str(refused.value)


def test_a_registration_endpoint_that_is_not_a_url_is_treated_as_absent() -> None:
    with pytest.raises(AuthError, match="no way to register"):
        authorize(at("oauth-authorization-server", httpx.Response(200, json=metadata(registration_endpoint=["x"]))))


def test_odd_but_harmless_token_fields_still_give_a_token() -> None:
    flow = authorize(at("/token", httpx.Response(200, json={"access_token": "at-2", "expires_in": 1e308,
                                                            "scope": ["not", "a", "string"]})))
    assert flow.authorization() == "Bearer at-2"
