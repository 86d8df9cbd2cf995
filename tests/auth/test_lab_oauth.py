"""The tamper-and-replay lab against an OAuth-protected server: each identity is an OAuth flow of its own
(real tokens from the authorization server fixture), and a state minted for alice is refused for bob."""

import asyncio
from collections.abc import Iterator

import pytest

from mrtr_studio.auth.flow import OAuthClient
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.engine import MrtrOptions, ServerOptions
from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.teaching.lab import ATTACKS, Lab, LabTarget
from mrtr_studio.trace import TraceStore
from mrtr_studio.transport.base import ClientTransport
from mrtr_studio.transport.http_client import HttpClientTransport

from .as_fixture import AuthServer
from .as_fixture import protected as protected_by

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


@pytest.fixture
def protected() -> Iterator[tuple[str, AuthServer]]:
    server = build_demo_server(ServerOptions(mrtr=MrtrOptions(explain_rejections=True)))
    with AuthServer() as issuer, protected_by(issuer, server) as (url, _):
        yield url, issuer


def test_the_lab_attacks_an_oauth_server_with_two_real_identities(protected: tuple[str, AuthServer]) -> None:
    url, issuer = protected
    store = TraceStore()

    async def go() -> dict[str, tuple[str, str]]:
        flows = {name: OAuthClient(url, HeadlessRedirect()) for name in ("alice", "bob")}
        for name, flow in flows.items():  # authorize each: the fixture signs the next token for `subject`
            issuer.subject = name
            probe = HttpClientTransport(url, auth=flow)
            try:
                await probe.send({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}})
            finally:
                await probe.close()

        def connect(name: str) -> ClientTransport:
            return HttpClientTransport(url, auth=flows[name])

        try:
            run = await Lab(LabTarget(connect, ("alice", "bob"), label=url), store).run(
                "tools/call", "delete_file", {"path": "/tmp/report.txt"})
        finally:
            for flow in flows.values():
                await flow.aclose()
        return {r.attack.id: (r.status, r.answer) for r in run.results}

    results = asyncio.run(go())
    assert set(results) == {a.id for a in ATTACKS}
    assert results["other-identity"] == ("rejected", "-32602 Invalid requestState (principal)"), results
    assert results["flip-signature"][0] == "rejected" and results["twice"][0] == "rejected"
    assert results["expired"][0] == "skipped"  # an HTTP server's clock is not the lab's to move
    assert len([r for r in issuer.requests if r["path"] == "/authorize"]) == 2  # one flow per identity, then reused
    assert not [m for m in store.messages if m.kind == "auth"]  # both were authorized before the lab ran
