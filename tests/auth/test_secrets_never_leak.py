"""No access token, refresh token or client secret in a trace file, an export, a log line or the output of
`call`, after a real OAuth flow (`call --oauth-headless` against `serve --auth jwt` and the fixture issuer)."""

import asyncio
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mrtr_studio.auth.flow import OAuthClient, OAuthSettings
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.trace import files
from mrtr_studio.trace.mermaid import to_mermaid
from mrtr_studio.trace.store import TraceStore
from mrtr_studio.transport.http_client import HttpClientTransport

from ..transport.serve_process import serve
from .as_fixture import AuthServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
ROOT = Path(__file__).resolve().parents[2]
CLIENT_SECRET = "pre-registered-secret-0123456789"
ANSWERS = {"confirm": {"action": "accept", "content": {"confirm": True}}}


def leaks(text: str, secrets: list[str]) -> list[str]:
    return [secret[:12] + "..." for secret in secrets if secret in text]


def test_call_with_oauth_leaves_no_secret_anywhere(tmp_path: Path) -> None:
    with AuthServer(audience="mcp-demo") as issuer:
        issuer.clients["pre-client"] = CLIENT_SECRET
        issuer.scopes_supported = ["mcp"]
        with serve("--auth", "jwt", "--issuer", issuer.issuer, "--audience", "mcp-demo") as served:
            answers = tmp_path / "answers.json"
            answers.write_text(json.dumps(ANSWERS))
            trace = tmp_path / "run.mrtr.json"
            env = {**os.environ, "PYTHONPATH": str(ROOT), "MRTR_STUDIO_CLIENT_SECRET": CLIENT_SECRET}
            done = subprocess.run([sys.executable, "-m", "mrtr_studio", "call", served.url, "--tool", "delete_file",
                                   "--args", '{"path": "/a"}', "--answers", str(answers), "--oauth-headless",
                                   "--client-id", "pre-client", "--json", "--trace", str(trace)],
                                  capture_output=True, text=True, timeout=60, env=env)
            server_log = served.log()
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["result"]["content"][0]["text"] == "File deleted"
        secrets = [CLIENT_SECRET, *issuer.issued]
        assert len(issuer.issued) >= 2  # an access and a refresh token were really handed out
        store = TraceStore()
        files.load_into(store, trace)
        exported = "\n".join(to_mermaid(op, store.messages_of(op.id)) for op in store.operations)
        for where, text in {"trace file": trace.read_text(), "stdout": done.stdout, "stderr": done.stderr,
                            "server log": server_log, "mermaid export": exported}.items():
            assert leaks(text, secrets) == [], where
        assert "Bearer ***" in trace.read_text()  # the Authorization header was recorded, masked


def test_the_flow_records_and_logs_no_secret(caplog: pytest.LogCaptureFixture) -> None:
    with AuthServer() as issuer:
        from mrtr_studio.auth.jwt_verifier import JwtVerifier
        from mrtr_studio.scenarios.demo import build_demo_server
        from mrtr_studio.transport.http_host import ServerThread
        from mrtr_studio.transport.http_server import HttpServerConfig

        verifier = JwtVerifier(issuer.issuer, audience="")
        with ServerThread(build_demo_server(), config=HttpServerConfig(verifier=verifier)) as thread:
            verifier.audience = thread.url
            flow = OAuthClient(thread.url, HeadlessRedirect(), OAuthSettings())

            async def go() -> None:
                session = ClientSession(HttpClientTransport(thread.url, auth=flow), ClientSettings(),
                                        R.compose(), server_label=thread.url)
                try:
                    await session.list_tools()
                finally:
                    await session.close()
                    await flow.aclose()

            with caplog.at_level(logging.DEBUG):
                asyncio.run(go())
    recorded = json.dumps([exchange.as_dict() for exchange in flow.exchanges])
    assert "token request" in recorded and issuer.issued
    assert leaks(recorded, issuer.issued) == []
    assert leaks(caplog.text, issuer.issued) == []
    assert "code=***" in recorded  # the authorization code is masked even in the redirect that carried it
