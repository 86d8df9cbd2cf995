"""`call --oauth`: the authorization URL is printed, the flow waits on a loopback redirect URI, and the
call goes on once "the browser" (here httpx, following the authorization server's redirect) lands there."""

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from ..transport.serve_process import serve
from .as_fixture import AuthServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
ROOT = Path(__file__).resolve().parents[2]


def test_call_prints_the_url_and_takes_the_loopback_redirect(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"confirm": {"action": "accept", "content": {"confirm": True}}}))
    with AuthServer(audience="mcp-demo") as issuer, \
            serve("--auth", "jwt", "--issuer", issuer.issuer, "--audience", "mcp-demo") as served:
        proc = subprocess.Popen([sys.executable, "-m", "mrtr_studio", "call", served.url, "--tool", "delete_file",
                                 "--args", '{"path": "/a"}', "--answers", str(answers), "--oauth", "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            assert proc.stderr is not None
            lines = [proc.stderr.readline() for _ in range(2)]
            assert lines[0] == "Open this URL to authorize:\n", lines
            link = lines[1].strip()
            assert link.startswith(f"{issuer.issuer}/authorize?")
            landed = httpx.get(link, follow_redirects=True, timeout=10)
            assert landed.status_code == 200 and "Authorization finished" in landed.text
            assert str(landed.url).startswith("http://127.0.0.1:")
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    assert proc.returncode == 0, err
    assert json.loads(out)["result"]["content"][0]["text"] == "File deleted"
