"""`call --oauth-headless` against a real authorization server, panva's oidc-provider 9 in its default
configuration (DPoP offered), and `serve --auth jwt`, which takes only Bearer tokens and was started
WITHOUT --no-dpop on the client. Before the client judged DPoP by the resource, it took a DPoP-bound token,
sent `Authorization: DPoP`, and gave up with "still refused after 3 authorization attempt(s)".

The browser step is oidc-provider's own interaction (login and consent prompts, with its cookies), which
the launcher completes without a page for the user alice; headless mode follows its redirects.
"""

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from joserfc.jwk import ECKey

from ..transport.serve_process import Served, serve
from .oidc_provider import ROOT, VERSION, oidc_provider

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]
SECRET = "oidc-provider-client-secret"
ANSWERS = {"confirm": {"action": "accept", "content": {"confirm": True}}}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def key_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A P-256 client key: the PEM `--client-key` reads, and its public JWK registered at oidc-provider."""
    folder = tmp_path_factory.mktemp("client-key")
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    (folder / "client.pem").write_bytes(pem)
    public = ECKey.import_key(pem).as_dict(private=False)
    (folder / "client.jwk").write_text(json.dumps({**public, "use": "sig", "alg": "ES256"}))
    return folder / "client.pem", folder / "client.jwk"


@pytest.fixture(scope="module")
def issuer(key_files: tuple[Path, Path]) -> Iterator[str]:
    with oidc_provider(SECRET, key_files[1]) as url:
        yield url


@pytest.fixture(scope="module")
def served(issuer: str) -> Iterator[Served]:
    port = free_port()  # the audience is the server's URL: the resource indicator oidc-provider puts in `aud`
    with serve("--port", str(port), "--auth", "jwt", "--issuer", issuer, "--audience",
               f"http://127.0.0.1:{port}/mcp", "--required-scope", "mcp") as server:
        yield server


def call(served: Served, tmp_path: Path, *flags: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    answers, trace = tmp_path / "answers.json", tmp_path / "trace.mrtr.json"
    answers.write_text(json.dumps(ANSWERS))
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "call", served.url, "--tool", "delete_file",
                           "--args", '{"path": "/a"}', "--answers", str(answers), "--trace", str(trace), "--json",
                           *flags], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    return done, json.loads(trace.read_text()) if trace.exists() else {}


def mcp_authorizations(trace: dict[str, Any]) -> list[str]:
    return [str(message["transport"]["request_headers"].get("Authorization"))
            for message in trace["messages"] if message["kind"] == "request"]


def auth_exchanges(trace: dict[str, Any], phase: str) -> list[dict[str, Any]]:
    return [message["message"] for message in trace["messages"]
            if message["kind"] == "auth" and message["message"]["phase"] == phase]


def test_the_makefile_installs_the_version_the_tests_expect() -> None:
    assert f"OIDC_PROVIDER_VERSION := {VERSION}\n" in (ROOT / "Makefile").read_text()


def test_oidc_providers_default_configuration_offers_dpop(issuer: str) -> None:
    """The premise of the tests below: an authorization server that offers DPoP-bound tokens (ES256 too)."""
    metadata = httpx.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()
    assert "ES256" in metadata["dpop_signing_alg_values_supported"]


def test_a_browser_sign_in_at_oidc_provider_gets_a_bearer_token_the_server_takes(served: Served,
                                                                                 tmp_path: Path) -> None:
    done, trace = call(served, tmp_path, "--oauth-headless", "--client-id", "mrtr-studio", "--client-secret", SECRET)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["content"][0]["text"] == "File deleted"
    assert mcp_authorizations(trace)[-1] == "Bearer ***"  # the resource takes only Bearer: no DPoP on it
    token = auth_exchanges(trace, "token request")
    assert len(token) == 1 and token[0]["status"] == 200
    assert "DPoP" not in token[0]["request_headers"]  # no proof asked oidc-provider for a bound token
    hops = auth_exchanges(trace, "authorization redirect")
    assert any("/interaction/" in hop["response_headers"].get("location", "") for hop in hops)  # its real prompt
    for text in (done.stdout, done.stderr, json.dumps(trace)):
        assert SECRET not in text


def test_a_machine_client_authenticates_with_its_private_key(served: Served, tmp_path: Path,
                                                             key_files: tuple[Path, Path]) -> None:
    """`--client-key`: private_key_jwt at oidc-provider's token endpoint, the client-credentials grant with the
    resource indicator (a JWT access token for this server)."""
    done, trace = call(served, tmp_path, "--client-credentials", "--client-id", "mrtr-studio-key",
                       "--client-key", str(key_files[0]))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["content"][0]["text"] == "File deleted"
    token = auth_exchanges(trace, "client credentials token")
    assert token[-1]["status"] == 200
    assert token[-1]["request_body"].count("client_assertion_type=") == 1  # a signed assertion, not a secret
    assert mcp_authorizations(trace)[-1] == "Bearer ***"


def test_a_refused_client_is_told_oidc_providers_reason(served: Served, tmp_path: Path) -> None:
    done, _ = call(served, tmp_path, "--oauth-headless", "--client-id", "mrtr-studio", "--client-secret", "wrong")
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "token request refused: HTTP 401 invalid_client: client authentication failed" in lines[0]
