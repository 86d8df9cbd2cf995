"""`mrtr-studio check` against the official SDK's server over stdio: its states are not the studio's
v1 format, so the lab changes them as opaque text, and every MUST passes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
SDK_SERVER = Path(__file__).with_name("sdk_server.py")


def test_check_passes_the_sdk_server_over_stdio() -> None:
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "check", f"stdio:{sys.executable} {SDK_SERVER} stdio",
                           "--tool", "sdk_delete", "--args", '{"path": "/a"}', "--json"],
                          capture_output=True, text=True, timeout=100, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    checks = {c["id"]: c for c in json.loads(done.stdout)["checks"]}
    flip = checks["sdk_delete: lab flip-signature"]
    assert flip["verdict"] == "pass" and "opaque" in flip["title"] and flip["detail"].startswith("rejected: -32602")
    assert checks["sdk_delete: capability-error"]["verdict"] == "pass"
    assert checks["schema-valid"]["verdict"] == "pass"
