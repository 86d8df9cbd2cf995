"""`call --jwt-bearer` (and `check`): the JWT-bearer grant (RFC 7523 §2.1) with the workload's JWT from a
file, stdin or MRTR_STUDIO_ASSERTION, against `serve --auth jwt` and the fixture issuer (whose authlib
JWTBearerGrant verifies the assertion). The JWT never shows in stdout, stderr or the trace file."""

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
CLIENT = "wif-client"
ANSWERS = {"confirm": {"action": "accept", "content": {"confirm": True}}}


@pytest.fixture(scope="module")
def issuer() -> Iterator[AuthServer]:
    with AuthServer(audience=AUDIENCE) as server:
        server.clients[CLIENT] = None  # pre-registered, public: the workload's JWT is its credential
        server.scopes_supported = ["mcp"]
        yield server


@pytest.fixture(scope="module")
def served(issuer: AuthServer) -> Iterator[Served]:
    with serve("--auth", "jwt", "--issuer", issuer.issuer, "--audience", AUDIENCE) as server:
        yield server


def mrtr(*argv: str, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "MRTR_STUDIO_ASSERTION"}
    return subprocess.run([sys.executable, "-m", "mrtr_studio", *argv], capture_output=True, text=True, timeout=150,
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                          env={**environment, "PYTHONPATH": str(ROOT), **(env or {})})


def call(url: str, tmp_path: Path, *flags: str, stdin: str | None = None,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(ANSWERS))
    return mrtr("call", url, "--tool", "delete_file", "--args", '{"path": "/a"}', "--answers", str(answers),
                "--json", "--client-id", CLIENT, *flags, stdin=stdin, env=env)


def jwt_bearer_tokens(issuer: AuthServer) -> list[dict[str, object]]:
    return [r for r in issuer.requests if r.get("grant_type") == "urn:ietf:params:oauth:grant-type:jwt-bearer"]


@pytest.mark.parametrize("source", ["file", "stdin", "env"])
def test_call_exchanges_the_workload_jwt_and_never_shows_it(issuer: AuthServer, served: Served, tmp_path: Path,
                                                            source: str) -> None:
    assertion = issuer.workload_assertion(subject=f"workload-{source}")
    trace = tmp_path / "run.mrtr.json"
    if source == "file":
        path = tmp_path / "workload.jwt"
        path.write_text(f"\n  {assertion}\n\n")  # as a token file often is: surrounded by whitespace
        done = call(served.url, tmp_path, "--jwt-bearer", str(path), "--trace", str(trace))
    elif source == "stdin":
        done = call(served.url, tmp_path, "--jwt-bearer", "-", "--trace", str(trace), stdin=assertion + "\n")
    else:
        done = call(served.url, tmp_path, "--trace", str(trace), "--jwt-bearer",
                    env={"MRTR_STUDIO_ASSERTION": assertion})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["content"][0]["text"] == "File deleted"
    assert jwt_bearer_tokens(issuer)[-1]["assertion_sub"] == f"workload-{source}"
    recorded = trace.read_text()
    assert "Bearer ***" in recorded
    for secret in [assertion, *issuer.issued]:
        assert secret not in done.stdout and secret not in done.stderr and secret not in recorded


def test_a_refused_assertion_is_one_line_without_the_jwt(issuer: AuthServer, served: Served,
                                                         tmp_path: Path) -> None:
    for assertion, why in ((issuer.workload_assertion(audience="https://another-server.example"), "'aud'"),
                           (issuer.workload_assertion(ttl=-600), "expired"),
                           (issuer.workload_assertion(issuer="https://untrusted.example"), "does not exist")):
        done = call(served.url, tmp_path, "--jwt-bearer", env={"MRTR_STUDIO_ASSERTION": assertion})
        assert done.returncode == 1, why
        [line] = done.stderr.splitlines()
        assert "jwt bearer token refused: HTTP 400 invalid_grant" in line, (why, line)
        assert why in str(jwt_bearer_tokens(issuer)[-1]["refused"])  # refused by authlib's check, for that reason
        assert assertion not in done.stdout + done.stderr


def test_check_with_a_workload_jwt(issuer: AuthServer, served: Served) -> None:
    assertion = issuer.workload_assertion(subject="workload-check")
    done = mrtr("check", served.url, "--tool", "delete_file", "--args", '{"path": "/a"}', "--client-id", CLIENT,
                "--jwt-bearer", env={"MRTR_STUDIO_ASSERTION": assertion})
    assert done.returncode == 0, done.stdout + done.stderr
    assert jwt_bearer_tokens(issuer)[-1]["assertion_sub"] == "workload-check"
    assert assertion not in done.stdout + done.stderr


def test_incomplete_or_unusable_jwt_bearer_flags_are_usage_errors(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/mcp"  # never reached: each is refused before anything connects
    big = tmp_path / "big.jwt"
    big.write_text("a." * 40_000 + "b")
    binary = tmp_path / "binary.jwt"
    binary.write_bytes(b"\xff\xfe.x.y")
    cases = [
        (["--jwt-bearer"], {"MRTR_STUDIO_ASSERTION": "e30.e30.sig"}, "--jwt-bearer needs --client-id"),
        (["--client-id", CLIENT, "--jwt-bearer", "--client-credentials"], {"MRTR_STUDIO_ASSERTION": "e30.e30.sig"},
         "not allowed with argument"),
        (["--client-id", CLIENT, "--jwt-bearer"], {}, "$MRTR_STUDIO_ASSERTION is empty"),
        (["--client-id", CLIENT, "--jwt-bearer", str(tmp_path / "missing.jwt")], {}, "cannot read"),
        (["--client-id", CLIENT, "--jwt-bearer", str(big)], {}, "is over 64 KiB"),
        (["--client-id", CLIENT, "--jwt-bearer", str(binary)], {}, "not ASCII"),
        (["--client-id", CLIENT, "--jwt-bearer"], {"MRTR_STUDIO_ASSERTION": "two words"}, "does not hold one JWT"),
    ]
    for flags, env, message in cases:
        for command in ("call", "check"):
            done = mrtr(command, url, "--tool", "delete_file", *flags, env=env)
            assert done.returncode == 2, (command, flags, done.stderr)
            assert message in done.stderr and "Traceback" not in done.stderr, (command, flags, done.stderr)
            assert "two words" not in done.stderr


def test_jwt_bearer_from_a_terminal_stdin_is_refused_not_waited_for() -> None:
    import pty

    main, terminal = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "mrtr_studio", "call", "http://127.0.0.1:9/mcp", "--tool", "t",
                               "--client-id", CLIENT, "--jwt-bearer", "-"], stdin=terminal, capture_output=True,
                              text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(main)
        os.close(terminal)
    assert done.returncode == 2
    assert "stdin is a terminal" in done.stderr


def test_call_with_an_enterprise_id_token_goes_through_the_idp(issuer: AuthServer, served: Served,
                                                               tmp_path: Path) -> None:
    """SEP-990: the ID token is exchanged at the IdP for an ID-JAG, which the JWT-bearer grant trades; the
    trace draws the IdP's exchange, and neither token shows anywhere."""
    id_token = issuer.enterprise_id_token("dana@corp.example")
    path = tmp_path / "id.jwt"
    path.write_text(id_token)
    trace = tmp_path / "run.mrtr.json"
    done = call(served.url, tmp_path, "--enterprise-idp", f"{issuer.issuer}/idp/token", "--idp-client-id",
                "corp-idp-client", "--id-token", str(path), "--trace", str(trace))
    assert done.returncode == 0, done.stderr
    [exchange] = [r for r in issuer.requests if r["path"] == "/idp/token"]
    assert exchange["form"]["audience"] == issuer.issuer and exchange["form"]["resource"]
    assert exchange["form"]["client_id"] == "corp-idp-client"
    assert jwt_bearer_tokens(issuer)[-1]["assertion_sub"] == "dana@corp.example"
    recorded = trace.read_text()
    assert "token exchange at the IdP" in recorded
    for secret in [id_token, *issuer.issued]:
        assert secret not in done.stdout and secret not in done.stderr and secret not in recorded


def test_enterprise_flags_that_cannot_work_are_usage_errors(issuer: AuthServer, served: Served,
                                                            tmp_path: Path) -> None:
    lonely = mrtr("call", served.url, "--tool", "greet", "--idp-client-id", "x")
    assert lonely.returncode == 2 and "--enterprise-idp" in lonely.stderr
    missing = mrtr("call", served.url, "--tool", "greet", "--client-id", CLIENT, "--enterprise-idp",
                   f"{issuer.issuer}/idp/token")
    assert missing.returncode == 2 and "--idp-client-id" in missing.stderr
    both = mrtr("call", served.url, "--tool", "greet", "--client-id", CLIENT, "--client-credentials",
                "--enterprise-idp", f"{issuer.issuer}/idp/token")
    assert both.returncode == 2 and "not allowed with" in both.stderr
