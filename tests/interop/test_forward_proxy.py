"""`mrtr-studio proxy --forward` between the official Python SDK client (HTTP_PROXY set, the server's own
URL kept) and the SDK server: the flow completes and is recorded like the reverse proxy's; https
CONNECT is refused with a sentence saying it would be tunnelled unrecorded; a request sent to the
proxy's own URL is told to set HTTP_PROXY instead."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.interop.proxy_process import ROOT, proxy

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

CLIENT = """
import asyncio, sys
from tests.interop.test_sdk_client_http import client, text_of

async def main():
    async with client(sys.argv[1]) as c:
        print(text_of(await c.call_tool("sdk_delete", {"path": "/srv/a"})))

asyncio.run(main())
"""


def raw(url: str, request: bytes) -> bytes:
    host, port = url.split("//")[1].split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return data


def test_the_sdk_client_through_the_forward_proxy(sdk_url: str, tmp_path: Path) -> None:
    with proxy(None, tmp_path / "fwd.mrtr.json") as proxied:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HTTP_PROXY": proxied.url.rstrip("/"), "NO_PROXY": "",
               "no_proxy": "", "http_proxy": proxied.url.rstrip("/")}
        done = subprocess.run([sys.executable, "-c", CLIENT, sdk_url], capture_output=True, text=True, timeout=60,
                              env=env, cwd=ROOT, stdin=subprocess.DEVNULL)
        connect = raw(proxied.url, b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        direct = raw(proxied.url, b"GET / HTTP/1.1\r\nHost: " + proxied.url.split("//")[1].rstrip("/").encode()
                     + b"\r\nConnection: close\r\n\r\n")
        proxied.stop()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "deleted /srv/a"
    calls = [op for op in proxied.store.operations if op.method != "session"]
    assert [(op.target, op.rounds, op.outcome, op.server) for op in calls] == [
        ("sdk_delete", 2, "complete", "forward proxy")]
    first = proxied.store.messages_of(calls[0].id)[0]
    assert first.transport["request_headers"]["host"] == sdk_url.split("//")[1].split("/")[0]  # the server's own
    assert connect.startswith(b"HTTP/1.1 501") and b"tunnelled unrecorded" in connect
    assert direct.startswith(b"HTTP/1.1 400") and b"set HTTP_PROXY" in direct
