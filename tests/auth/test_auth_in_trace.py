"""The authorization flow is part of the operation it unlocks: each exchange is recorded once, masked, as
an "auth" message, and the sequence diagram draws it (an "Auth server" lane) before the MRTR rounds."""

import asyncio
import json
from pathlib import Path

import pytest

from mrtr_studio.auth.flow import OAuthClient, OAuthSettings
from mrtr_studio.auth.jwt_verifier import JwtVerifier
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.trace import TraceStore
from mrtr_studio.trace.auth_arrows import AUTH_LANE
from mrtr_studio.trace.diagram_layout import layout_operation
from mrtr_studio.trace.files import open_trace, save
from mrtr_studio.trace.html_export import svg_diagram
from mrtr_studio.trace.mermaid import to_mermaid
from mrtr_studio.trace.model import TraceMessage
from mrtr_studio.transport.http_client import HttpClientTransport

from .as_fixture import AuthServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]
CONFIRM = R.table({"*": {"action": "accept", "content": {"confirm": True}}})
FLOW = ["challenge", "protected resource metadata", "authorization server metadata", "client registration",
        "authorization redirect", "authorization response", "token request"]


def run(url: str, store: TraceStore, steps: list[str], listed_first: bool,
        settings: OAuthSettings | None = None) -> None:
    """Call each tool in `steps` over one OAuth transport; `listed_first`: list tools before (the studio's
    connect), so the flow runs outside any operation."""
    flow = OAuthClient(url, HeadlessRedirect(), settings)

    async def go() -> None:
        session = ClientSession(HttpClientTransport(url, auth=flow), ClientSettings(era="modern"), CONFIRM,
                                store=store, server_label=url)
        try:
            if listed_first:
                await session.list_tools()
            for tool in steps:
                result = await session.call_tool(tool, {"path": "/a"})
                assert result.operation.outcome == "complete", result.operation.problem
        finally:
            await session.close()
            await flow.aclose()

    asyncio.run(go())


def auth_messages(messages: list[TraceMessage]) -> list[TraceMessage]:
    return [m for m in messages if m.kind == "auth"]


def test_a_flow_run_while_connecting_is_drawn_before_round_one(issuer: AuthServer,
                                                               protected: tuple[str, JwtVerifier]) -> None:
    store = TraceStore()
    run(protected[0], store, ["delete_file", "delete_file"], listed_first=True)
    first, second = store.operations
    messages = store.messages_of(first.id)
    auth = auth_messages(messages)
    assert [m.method for m in auth] == FLOW
    assert all(m.round == 0 and m.jsonrpc_id is None for m in auth)
    assert messages[:len(auth)] == auth  # before every JSON-RPC message of the call
    assert auth[0].direction == "server->client" and auth[0].message["status"] == 401
    assert "resource_metadata=" in auth[0].message["response_headers"]["www-authenticate"]
    checks = {c["name"]: c["passed"] for m in auth for c in m.message["checks"]}
    assert checks == {"resource matches the server": True, "issuer matches the metadata URL": True,
                      "PKCE S256 offered": True,
                      "state matches": True, "iss matches the issuer (RFC 9207)": True}
    assert not auth_messages(store.messages_of(second.id))  # the token served the second call

    layout = layout_operation(first, messages)
    assert AUTH_LANE in layout.lanes
    titles = [s.label for s in layout.separators]
    assert titles == ["Authorization · before round 1", "Round 1", "Round 2"]
    drawn = {a.seq: a for a in layout.arrows if a.seq is not None}
    token = drawn[auth[-1].seq]
    assert (token.src, token.dst, token.kind) == ("Client", AUTH_LANE, "auth")
    challenge = drawn[auth[0].seq]
    assert (challenge.src, challenge.dst) == ("Server", "Client") and "401" in challenge.label
    prm = drawn[auth[1].seq]
    assert prm.dst == "Server" and "✔ resource matches the server" in prm.sublabel
    assert max(a.y for a in drawn.values() if a.kind.startswith("auth")) \
        < min(a.y for a in drawn.values() if a.kind == "request")

    svg = svg_diagram(layout)
    assert AUTH_LANE in svg and "token request" in svg
    chart = to_mermaid(first, messages)
    assert "participant A as Auth server" in chart and "C->>A" in chart


def test_a_flow_inside_a_call_is_drawn_where_it_happened(issuer: AuthServer,
                                                          protected: tuple[str, JwtVerifier]) -> None:
    store = TraceStore()
    run(protected[0], store, ["delete_file"], listed_first=False)
    [op] = store.operations
    messages = store.messages_of(op.id)
    assert [m.method for m in auth_messages(messages)] == FLOW
    assert {m.round for m in auth_messages(messages)} == {1}  # the call's first request was refused
    titles = [s.label for s in layout_operation(op, messages).separators]
    assert titles[:3] == ["Round 1", "Authorization · inside round 1", "Round 1 · sent again, authorized"]
    assert not [f for m in messages for f in m.findings if f.severity == "error"]


def test_no_token_secret_or_code_reaches_the_trace_file(issuer: AuthServer, protected: tuple[str, JwtVerifier],
                                                         tmp_path: Path) -> None:
    issuer.clients["pre-registered"] = "s3cret-value-never-shown"
    store = TraceStore()
    run(protected[0], store, ["delete_file"], listed_first=True,
        settings=OAuthSettings(client_id="pre-registered", client_secret="s3cret-value-never-shown"))
    path = tmp_path / "flow.json"
    save(path, store)
    text = path.read_text()
    _, reopened = open_trace(path)
    assert [m.method for m in auth_messages(reopened)] == [m.method for m in auth_messages(store.messages)]
    for secret in [*issuer.issued, "s3cret-value-never-shown"]:
        assert secret not in text
    exchanges = {m.method: m.message for m in auth_messages(store.messages)}
    assert "code=***" in exchanges["authorization response"]["url"]  # the code is single-use, yet masked
    assert "code=***" in exchanges["token request"]["request_body"]
    assert "code_verifier=***" in exchanges["token request"]["request_body"]
    assert exchanges["token request"]["request_headers"]["Authorization"] == "Basic ***"
    assert "s3cret" not in json.dumps(exchanges)


def test_an_expired_token_is_refreshed_before_the_request_is_sent(issuer: AuthServer,
                                                                  protected: tuple[str, JwtVerifier]) -> None:
    issuer.say_expires_in = 20  # inside the client's 30 s margin: expired as soon as it is held
    store = TraceStore()
    run(protected[0], store, ["delete_file", "delete_file"], listed_first=True)
    grants = [r["grant_type"] for r in issuer.requests if r["path"] == "/token"]
    assert grants[0] == "authorization_code" and len(grants) >= 3 and set(grants[1:]) == {"refresh_token"}
    challenges = [m for m in store.messages if m.method == "challenge"]
    assert len(challenges) == 1  # only the first request was refused: the others went with a fresh token
    _, second = store.operations
    assert {m.method for m in auth_messages(store.messages_of(second.id))} == {"token refresh"}


def test_a_server_without_pkce_s256_is_drawn_failing_and_never_authorized(issuer: AuthServer,
                                                                         protected: tuple[str, JwtVerifier]) -> None:
    issuer.code_challenge_methods = ["plain"]
    store = TraceStore()
    with pytest.raises(AssertionError, match="does not offer PKCE S256"):
        run(protected[0], store, ["delete_file"], listed_first=False)
    [op] = store.operations
    assert op.outcome == "transport_error"
    messages = store.messages_of(op.id)
    [metadata] = [m for m in auth_messages(messages) if m.method == "authorization server metadata"]
    assert {c["name"]: c["passed"] for c in metadata.message["checks"]}["PKCE S256 offered"] is False
    drawn = {a.seq: a for a in layout_operation(op, messages).arrows}
    assert drawn[metadata.seq].kind == "auth_failed" and "✖ PKCE S256 offered" in drawn[metadata.seq].sublabel
    assert not [r for r in issuer.requests if r["path"] == "/authorize"]
