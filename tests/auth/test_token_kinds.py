"""Which token the client asks for and presents: DPoP only where the resource takes it (however readily the
authorization server binds tokens), an unknown `token_type` refused (RFC 6749 §7.1), and refusals that name
the server's `error` and `error_description`, escaped, on one line. The authorization server here is
httpx's mock transport: like oidc-provider, it binds a token to a key only when the request carries a proof."""

import asyncio
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from mrtr_studio.auth.challenge import reason, refusal, schemes
from mrtr_studio.auth.exchanges import AuthError, AuthHttp
from mrtr_studio.auth.flow import OAuthClient, OAuthSettings
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.auth.secrets import SecretBook
from mrtr_studio.protocol.peer_text import printable
from mrtr_studio.trace.redaction import DEFAULT
from mrtr_studio.transport.base import Tap, TransportError, WireEvent
from mrtr_studio.transport.http_client import HttpClientTransport

masked_headers = DEFAULT.headers

MCP = "https://mcp.example/mcp"
AS = "https://as.example"
PRM = "https://mcp.example/.well-known/oauth-protected-resource/mcp"
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\nmrtr-studio call: all good\u202e"


class Servers:
    def __init__(self, prm: dict[str, Any] | None = None, token: dict[str, Any] | None = None,
                 status: int = 200) -> None:
        self.prm = {"resource": MCP, "authorization_servers": [AS], **(prm or {})}
        self.token, self.status = token, status
        self.proofs: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        if url == PRM:
            return httpx.Response(200, json=self.prm)
        if url == f"{AS}/.well-known/oauth-authorization-server":
            return httpx.Response(200, json={
                "issuer": AS, "authorization_endpoint": f"{AS}/authorize", "token_endpoint": f"{AS}/token",
                "registration_endpoint": f"{AS}/register", "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
                "dpop_signing_alg_values_supported": ["ES256", "EdDSA"]})
        if url == f"{AS}/register":
            return httpx.Response(201, json={"client_id": "c-1", "token_endpoint_auth_method": "none"})
        if url.startswith(f"{AS}/authorize"):
            query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
            back = urlencode({"code": "the-code", "state": query["state"]})
            return httpx.Response(302, headers={"Location": f"{query['redirect_uri']}?{back}"})
        if url == f"{AS}/token":
            if "dpop" in request.headers:
                self.proofs.append(request.headers["dpop"])
            bound = {"access_token": "the-access-token", "expires_in": 3600,
                     "token_type": "DPoP" if "dpop" in request.headers else "Bearer"}
            return httpx.Response(self.status, json=self.token if self.token is not None else bound)
        return httpx.Response(404)


def authorize(servers: Servers, challenge: str, settings: OAuthSettings | None = None) -> OAuthClient:
    async def go() -> OAuthClient:
        http = AuthHttp(SecretBook(), client=httpx.AsyncClient(transport=httpx.MockTransport(servers)))
        flow = OAuthClient(MCP, HeadlessRedirect(), settings or OAuthSettings(), http=http)
        try:
            assert await flow.challenged(401, challenge)
        finally:
            await flow.aclose()
        return flow

    return asyncio.run(go())


BEARER = f'Bearer resource_metadata="{PRM}"'


@pytest.mark.parametrize(("prm", "challenge", "dpop"), [
    ({}, BEARER, False),  # oidc-provider + a Bearer-only server: the failure of issue 20
    ({"dpop_signing_alg_values_supported": ["ES256"]}, BEARER, True),
    ({"dpop_signing_alg_values_supported": ["RS256"]}, BEARER, False),  # our proofs would not be taken
    ({}, f'DPoP resource_metadata="{PRM}", Bearer resource_metadata="{PRM}"', True),
    ({"dpop_bound_access_tokens_required": True}, BEARER, True),
])
def test_dpop_only_where_the_resource_takes_it(prm: dict[str, Any], challenge: str, dpop: bool) -> None:
    servers = Servers(prm)
    flow = authorize(servers, challenge)
    assert bool(servers.proofs) is dpop
    assert flow.authorization() == ("DPoP" if dpop else "Bearer") + " the-access-token"
    assert (flow.proof("POST", MCP) is not None) is dpop


def test_no_dpop_turns_it_off_even_where_the_resource_takes_it() -> None:
    servers = Servers({"dpop_signing_alg_values_supported": ["ES256"]})
    flow = authorize(servers, BEARER, OAuthSettings(dpop="off"))
    assert not servers.proofs and flow.authorization() == "Bearer the-access-token"


@pytest.mark.parametrize("token_type", ["mac", "N_A", HOSTILE, 7])
def test_a_token_of_an_unknown_type_is_refused_and_never_presented(token_type: object) -> None:
    servers = Servers(token={"access_token": "the-access-token", "token_type": token_type})
    with pytest.raises(AuthError) as refused:
        authorize(servers, BEARER)
    message = str(refused.value)
    assert "does not understand" in message and "RFC 6749 §7.1" in message
    assert message.isprintable() and "\x1b" not in message
    if token_type == HOSTILE:
        assert "\\x1b]0;pwned\\x07" in message and "\\u202e" in message


def test_a_dpop_token_without_a_proof_is_refused() -> None:
    servers = Servers(token={"access_token": "the-access-token", "token_type": "DPoP"})
    with pytest.raises(AuthError, match="DPoP-bound token though no DPoP proof was sent"):
        authorize(servers, BEARER)


def test_token_types_are_case_insensitive() -> None:
    flow = authorize(Servers(token={"access_token": "the-access-token", "token_type": "bearer"}), BEARER)
    assert flow.authorization() == "Bearer the-access-token"


def test_a_token_endpoint_refusal_names_its_error_and_description_escaped() -> None:
    servers = Servers(token={"error": "invalid_grant", "error_description": f"code expired{HOSTILE}"}, status=400)
    with pytest.raises(AuthError) as refused:
        authorize(servers, BEARER)
    message = str(refused.value)
    assert message.startswith("token request refused: HTTP 400 invalid_grant: code expired\\x1b]0;pwned")
    assert message.isprintable()


def test_challenge_helpers() -> None:
    header = f'DPoP algs="ES256", Bearer error="invalid_token", error_description="{HOSTILE}"'
    assert schemes(header) == {"dpop", "bearer"}
    assert reason({"error": "invalid_token"}) == "invalid_token" and reason("not a dict") == ""
    message = refusal(401, MCP, header, 3)
    assert message.startswith(f"HTTP 401 from {MCP}: still refused after 3 authorization attempt(s): invalid_token: ")
    assert message.isprintable() and "\n" not in message
    assert refusal(403, MCP, "Basic realm=\"x\x1b\"") == f"HTTP 403 from {MCP}: Basic realm=\"x\\x1b\""
    assert printable("é 日本 ok") == "é 日本 ok" and printable("x" * 500).endswith("…")


def test_the_trace_keeps_the_real_scheme() -> None:
    assert masked_headers({"Authorization": "DPoP tok", "X": "y"}) == {"Authorization": "DPoP ***", "X": "y"}
    assert masked_headers({"authorization": "Bearer tok"})["authorization"] == "Bearer ***"
    assert masked_headers({"authorization": "tok\x1ben-only"})["authorization"] == "***"


class AlwaysRefused:
    """A flow whose every new token is refused again (the DPoP-to-a-Bearer-server loop of issue 20)."""

    def __init__(self) -> None:
        self.tokens = 0

    def authorization(self) -> str | None:
        return f"DPoP token-{self.tokens}"

    def proof(self, method: str, url: str) -> str | None:
        return "a-proof"

    async def prepare(self) -> None:
        return None

    async def challenged(self, status: int, www_authenticate: str | None, sent: str | None = None,
                         dpop_nonce: str | None = None) -> bool:
        self.tokens += 1
        return True


@pytest.mark.anyio
async def test_a_request_still_refused_says_the_servers_reason_and_records_the_dpop_scheme() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        return httpx.Response(401, json={"error": "unauthorized"}, headers={
            "WWW-Authenticate": 'Bearer error="invalid_request", error_description="the Authorization header is '
                                f'not a Bearer token{HOSTILE[:9]}"'})

    auth = AlwaysRefused()
    events: list[WireEvent] = []
    tap = Tap()
    tap.listen(events.append)
    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    transport = HttpClientTransport(MCP, client=client, auth=auth, tap=tap)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    with pytest.raises(TransportError) as refused:
        await transport.send(call)
    await client.aclose()
    message = str(refused.value)
    assert message == (f"HTTP 401 from {MCP}: still refused after 3 authorization attempt(s): invalid_request: "
                       "the Authorization header is not a Bearer token\\x1b]0;pwned")
    assert seen == ["DPoP token-0", "DPoP token-1", "DPoP token-2", "DPoP token-3"]
    recorded = [e.meta["request_headers"]["Authorization"] for e in events if "request_headers" in e.meta]
    assert recorded == ["DPoP ***"] * 4  # the scheme really sent, never the token
