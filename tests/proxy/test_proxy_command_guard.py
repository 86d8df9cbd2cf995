"""`mrtr-studio proxy` as a process: --allow-host admits a name, any other Host is 421, and the trace file
it writes holds no credential (Cookie, X-Api-Key, `?api_key=` of the client's request or of --upstream)."""

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.interop.proxy_process import proxy
from tests.transport.serve_process import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {}}
PING = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "test_simple_text", "arguments": {}, "_meta": META}}
ACCEPT = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call", "mcp-name": "test_simple_text"}


def test_the_proxy_command_guards_its_host_and_masks_its_trace(tmp_path: Path) -> None:
    trace = tmp_path / "run.mrtr.json"
    with serve() as server, proxy(server.url + "?api_key=UPSTREAM-SECRET-0", trace, "--allow-host", "dev.test",
                                  "--redact", "X-Tenant") as proxied:
        with httpx.Client(timeout=10) as http:
            masked = http.post(proxied.url + "?api_key=KEY-SECRET-1", json=PING, headers={
                **ACCEPT, "cookie": "sid=COOKIE-SECRET-2", "x-api-key": "APIKEY-SECRET-3",
                "x-tenant": "TENANT-SECRET-4"})
            evil = http.post(proxied.url, json=PING, headers={**ACCEPT, "host": "evil.example"})
            allowed = http.post(proxied.url, json=PING, headers={**ACCEPT, "host": "dev.test:1"})
        proxied.stop()
    assert masked.status_code == 200 and allowed.status_code == 200
    assert evil.status_code == 421 and "--allow-host" in evil.json()["error"]["message"]
    text = trace.read_text()
    assert "SECRET" not in text
    document = json.loads(text)
    assert "api_key=***" in json.dumps(document)
    requests = [m for m in proxied.store.messages if m.direction == "client->server"]
    assert len(requests) == 2  # the refused one was never relayed, so never recorded
    headers = requests[0].transport["request_headers"]
    assert headers["cookie"] == "sid=***" and headers["x-api-key"] == "***" and headers["x-tenant"] == "***"


def test_a_malformed_allow_host_is_a_one_line_error() -> None:
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "proxy", "--listen", "127.0.0.1:0", "--upstream",
                           "http://127.0.0.1:9/mcp", "--allow-host", "bad/name"], capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "mrtr-studio proxy: --allow-host takes NAME or NAME:PORT, got 'bad/name'"]
