"""`mrtr-studio check --oauth-headless` against `serve --auth jwt`: the flow runs once and its token serves
every transport the checks open (the checker's, the lab's, the header check); without OAuth flags, or when
the authorization fails, one clear line and exit 1, never a traceback."""

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..transport.serve_process import Served, serve
from .as_fixture import AuthServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]
ROOT = Path(__file__).resolve().parents[2]
AUDIENCE = "mcp-demo"


@pytest.fixture
def issuer() -> Iterator[AuthServer]:
    with AuthServer(audience=AUDIENCE) as server:
        yield server


@pytest.fixture
def served(issuer: AuthServer) -> Iterator[Served]:
    with serve("--auth", "jwt", "--issuer", issuer.issuer, "--audience", AUDIENCE) as server:
        yield server


def check(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mrtr_studio", "check", *argv], capture_output=True, text=True,
                          timeout=150, stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})


def paths(issuer: AuthServer, path: str) -> int:
    return sum(1 for r in issuer.requests if r["path"] == path)


def test_check_with_oauth_runs_the_flow_once_and_every_check_uses_its_token(
        issuer: AuthServer, served: Served, tmp_path: Path) -> None:
    bob = issuer.mint("bob", AUDIENCE)  # a static identity beside the OAuth one: the other-identity attack
    trace = tmp_path / "check.mrtr.json"
    done = check(served.url, "--tool", "delete_file", "--args", '{"path": "/a"}', "--oauth-headless",
                 "--identity", bob, "--json", "--trace", str(trace))
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(done.stdout)
    assert document["passed"] is True
    checks = {c["id"]: c for c in document["checks"]}
    for name in ("delete_file: first-round", "delete_file: state-echo", "delete_file: capability-error",
                 "delete_file: lab flip-signature", "delete_file: lab other-identity", "header-mirroring",
                 "schema-valid"):
        assert checks[name]["verdict"] == "pass", checks[name]
    assert paths(issuer, "/authorize") == 1 and paths(issuer, "/token") == 1
    recorded = trace.read_text()
    assert "Bearer ***" in recorded
    for secret in issuer.issued:
        assert secret not in recorded and secret not in done.stdout and secret not in done.stderr


def test_check_without_oauth_flags_says_the_server_needs_authorization(served: Served) -> None:
    done = check(served.url, "--tool", "delete_file", "--args", '{"path": "/a"}')
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line == (f"mrtr-studio check: cannot check {served.url}: HTTP 401: the server needs authorization; "
                    "check it with --oauth (or --oauth-headless) to run its OAuth flow, or --identity TOKEN")


def test_a_failed_authorization_is_one_line(issuer: AuthServer, served: Served) -> None:
    issuer.wrong_iss = True
    done = check(served.url, "--tool", "delete_file", "--oauth-headless")
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith(f"mrtr-studio check: cannot check {served.url}: HTTP 401")
    assert "authorization failed" in line and "iss is 'https://evil.example'" in line
    assert paths(issuer, "/token") == 0


def test_oauth_flags_that_cannot_work_are_usage_errors() -> None:
    for argv in (["memory:", "--tool", "delete_file", "--oauth-headless"],
                 ["http://127.0.0.1:9/mcp", "--tool", "delete_file", "--client-credentials"]):
        done = check(*argv)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("mrtr-studio check: ") and "Traceback" not in done.stderr
