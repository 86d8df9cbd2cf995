"""`mrtr-studio serve --auth jwt`: a real server process verifying the fixture issuer's JWTs on loopback."""

import base64
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from joserfc.jwk import RSAKey

from ..transport.serve_process import Served, serve
from .as_fixture import AuthServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]
AUDIENCE = "mcp-demo"
MODERN = "2026-07-28"
CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}


@pytest.fixture(scope="module")
def issuer() -> Iterator[AuthServer]:
    with AuthServer() as server:
        yield server


@pytest.fixture(scope="module")
def served(issuer: AuthServer) -> Iterator[Served]:
    with serve("--auth", "jwt", "--issuer", issuer.issuer, "--audience", AUDIENCE, "--secret", "k1",
               "--explain-rejections") as server:
        yield server


def call(url: str, token: str | None, params: dict[str, Any]) -> httpx.Response:
    params = {**params, "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                                  "io.modelcontextprotocol/clientCapabilities": CAPS}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": params["name"]}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    return httpx.post(url, content=json.dumps(body), headers=headers, timeout=10)


DELETE = {"name": "delete_file", "arguments": {"path": "/a"}}


def payload(state: str) -> dict[str, Any]:
    part = state.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))))


def test_protected_resource_metadata_and_the_401_challenge(issuer: AuthServer, served: Served) -> None:
    metadata_url = served.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    document = httpx.get(metadata_url, timeout=10).json()
    assert document["authorization_servers"] == [issuer.issuer]
    refused = call(served.url, None, DELETE)
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == f'Bearer resource_metadata="{metadata_url}"'
    assert refused.json()["error"]["code"] == -32600


def test_a_valid_token_maps_to_iss_and_sub(issuer: AuthServer, served: Served) -> None:
    answer = call(served.url, issuer.mint("alice", AUDIENCE), DELETE)
    assert answer.status_code == 200, answer.text
    state = answer.json()["result"]["requestState"]
    assert payload(state)["p"] == f"{issuer.issuer}#alice"


@pytest.mark.parametrize(("make", "why"), [
    (lambda s: s.mint("alice", AUDIENCE, ttl=-300), "expired"),
    (lambda s: s.mint("alice", "another-server"), "not for audience"),
    (lambda s: s.mint("alice", AUDIENCE, issuer="https://other-issuer.example"), "not issued by"),
    (lambda s: s.mint("alice", AUDIENCE, key=RSAKey.generate_key(2048, parameters={"kid": "fixture-1"})),
     "signature"),
    (lambda s: "not-a-jwt", "not a JWT"),
])
def test_bad_tokens_are_refused_with_401_invalid_token(issuer: AuthServer, served: Served, make: Any,
                                                       why: str) -> None:
    refused = call(served.url, make(issuer), DELETE)
    assert refused.status_code == 401, refused.text
    challenge = refused.headers["www-authenticate"]
    assert challenge.startswith('Bearer error="invalid_token"') and why in challenge
    assert "resource_metadata=" in challenge


def test_a_state_minted_for_one_subject_is_refused_for_another(issuer: AuthServer, served: Served) -> None:
    state = call(served.url, issuer.mint("alice", AUDIENCE), DELETE).json()["result"]["requestState"]
    retry = {**DELETE, "requestState": state,
             "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": True}}}}
    bob = call(served.url, issuer.mint("bob", AUDIENCE), retry)
    assert bob.json()["error"]["code"] == -32602
    assert bob.json()["error"]["data"]["reason"] == "principal"
    alice = call(served.url, issuer.mint("alice", AUDIENCE), retry)
    assert alice.json()["result"]["content"][0]["text"] == "File deleted"


def test_auth_flags_that_do_not_fit_are_usage_errors(issuer: AuthServer) -> None:
    import subprocess
    import sys

    for flags in (["--auth", "jwt", "--issuer", issuer.issuer], ["--issuer", issuer.issuer]):
        done = subprocess.run([sys.executable, "-m", "mrtr_studio", "serve", "--port", "0", *flags],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 2 and "mrtr-studio serve:" in done.stderr
