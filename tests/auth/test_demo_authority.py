"""The demo authorization server: the whole flow without an account anywhere. `serve --auth demo` with
`call --oauth-headless`, the window's OAuth scenario, and what the demo authority refuses."""

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from mrtr_studio.auth.demo_authority import MAX_FORM, DemoAuthority
from mrtr_studio.trace.files import open_trace

from ..transport.serve_process import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
ROOT = Path(__file__).resolve().parents[2]


def test_serve_auth_demo_is_reached_by_call_with_the_whole_flow(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"confirm": {"action": "accept", "content": {"confirm": True}}}))
    trace = tmp_path / "run.mrtr.json"
    with serve("--auth", "demo") as served:
        refused = httpx.post(served.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=10)
        assert refused.status_code == 401 and "resource_metadata=" in refused.headers["www-authenticate"]
        done = subprocess.run([sys.executable, "-m", "mrtr_studio", "call", served.url, "--tool", "delete_file",
                               "--args", '{"path": "/a"}', "--answers", str(answers), "--oauth-headless",
                               "--trace", str(trace), "--json"], capture_output=True, text=True, timeout=60,
                              env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        assert "demo authorization server on http://127.0.0.1:" in served.log_path.read_text()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["content"][0]["text"] == "File deleted"
    _, messages = open_trace(trace)
    assert [m.method for m in messages if m.kind == "auth"] == [
        "challenge", "protected resource metadata", "authorization server metadata", "client registration",
        "authorization redirect", "authorization response", "token request"]


def test_serve_auth_demo_takes_no_issuer_of_its_own() -> None:
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "serve", "--auth", "demo", "--issuer", "http://x"],
                          capture_output=True, text=True, timeout=30, env={"PYTHONPATH": str(ROOT)})
    assert done.returncode == 2 and "runs its own authorization server" in done.stderr


def test_the_demo_authority_refuses_what_it_must() -> None:
    with DemoAuthority() as authority:
        base = authority.issuer
        unknown = httpx.get(f"{base}/authorize", params={"client_id": "nobody", "redirect_uri": "http://127.0.0.1/cb",
                                                         "response_type": "code"}, timeout=5)
        assert unknown.status_code == 400
        client = httpx.post(f"{base}/register", json={"redirect_uris": ["http://127.0.0.1:1/cb"]}, timeout=5).json()
        no_pkce = httpx.get(f"{base}/authorize", params={"client_id": client["client_id"], "response_type": "code",
                                                         "redirect_uri": "http://127.0.0.1:1/cb"}, timeout=5)
        assert no_pkce.status_code == 400 and "PKCE" in no_pkce.json()["error_description"]
        huge = httpx.post(f"{base}/token", content=b"a=" + b"x" * (MAX_FORM + 10),
                          headers={"Content-Type": "application/x-www-form-urlencoded"}, timeout=5)
        assert huge.status_code == 413
        wrong = httpx.post(f"{base}/token", data={"grant_type": "authorization_code", "code": "made-up",
                                                  "client_id": client["client_id"]}, timeout=5)
        assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
        other = httpx.post(f"{base}/token", data={"grant_type": "password"}, timeout=5)
        assert other.json()["error"] == "unsupported_grant_type"
        bad_json = httpx.post(f"{base}/register", content=b"{not json", timeout=5)
        assert bad_json.status_code == 400


def test_the_window_scenario_draws_the_flow_and_the_auth_tab(tmp_path: Path) -> None:
    out = tmp_path / "shots"
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "--scenario", "oauth", "--auto", "--screenshot-dir",
                           str(out), "--screen-size", "1366x768"], capture_output=True, text=True, timeout=90,
                          env={"PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin",
                               "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "delete_file: complete" in done.stdout
    shots = sorted(p.name for p in out.glob("*.png"))
    assert shots[-2:] == ["90-authorization.png", "91-auth-tab.png"] and len(shots) == 6
