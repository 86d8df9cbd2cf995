"""`serve --audience` is repeatable: a token for any of them is accepted (the server's own URL and a
proxy's in front of it), any other audience refused; the first is the resource it advertises."""

import httpx
import pytest

from ..transport.serve_process import serve
from .as_fixture import AuthServer
from .test_serve_jwt import DELETE, call

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]
PROXIED = "http://127.0.0.1:8766/mcp"
OWN = "https://mcp.example/mcp"


def test_every_audience_given_is_accepted_and_the_first_advertised() -> None:
    with AuthServer() as issuer, serve("--auth", "jwt", "--issuer", issuer.issuer, "--audience", PROXIED,
                                       "--audience", OWN, "--secret", "k1") as served:
        metadata = httpx.get(served.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"),
                             timeout=10).json()
        answers = [call(served.url, issuer.mint("alice", audience), DELETE) for audience in (PROXIED, OWN, "other")]
    assert metadata["resource"] == PROXIED
    assert [a.status_code for a in answers] == [200, 200, 401]
    assert f"not for audience {PROXIED} or {OWN}" in answers[2].headers["www-authenticate"]
