"""The proxy's listening side: a foreign Host is 421 and a foreign Origin 403 before anything is relayed
(DNS rebinding), a response has one Date, credentials are masked in what it records, and a client that
leaves cancels its upstream request."""

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from mrtr_studio.proxy.host_guard import HostGuard
from mrtr_studio.proxy.http_proxy import ProxyApp
from mrtr_studio.proxy.recording import Recording
from mrtr_studio.trace import files
from tests.proxy.test_http_proxy import hosted  # the one loopback host of these tests

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
PING = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}}


class Upstream:
    """Answers every POST with a JSON result (and its own Date); counts the requests it saw."""

    def __init__(self, hold: bool = False) -> None:
        self.seen = 0
        self.open = 0
        self.hold = hold
        self.query: list[bytes] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.seen += 1
        self.query.append(scope.get("query_string", b""))
        while (await receive()).get("more_body"):
            pass
        if self.hold:  # never answers: waits for the proxy to go away
            self.open += 1
            try:
                while (await receive())["type"] != "http.disconnect":
                    pass
            finally:
                self.open -= 1
            return
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}).encode()
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"application/json"), (b"date", b"Mon, 01 Jan 2001 00:00:00 GMT"),
            (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


@contextlib.asynccontextmanager
async def proxied(upstream: Upstream, **options: Any) -> AsyncIterator[tuple[str, Recording, ProxyApp]]:
    recording = Recording("upstream", "proxied")
    async with hosted(upstream) as upstream_url:
        app = ProxyApp(upstream_url, recording.tap, **options)
        try:
            async with hosted(app) as proxy_url:
                yield proxy_url, recording, app
        finally:
            await app.aclose()


async def test_a_foreign_host_is_421_and_never_relayed() -> None:
    upstream = Upstream()
    async with proxied(upstream) as (url, _, _), httpx.AsyncClient() as http:
        port = urlsplit(url).port
        evil = await http.post(url, json=PING, headers={"host": "evil.example"})
        evil_port = await http.post(url, json=PING, headers={"host": f"evil.example:{port}"})
        wrong_port = await http.post(url, json=PING, headers={"host": f"127.0.0.1:{port + 1}"})
        by_name = await http.post(url, json=PING, headers={"host": f"localhost:{port}"})
        by_address = await http.post(url, json=PING)
    assert [evil.status_code, evil_port.status_code, wrong_port.status_code] == [421, 421, 421]
    assert "--allow-host" in evil.json()["error"]["message"]
    assert by_name.status_code == 200 and by_address.status_code == 200
    assert upstream.seen == 2


async def test_allow_host_admits_a_name_and_its_origin() -> None:
    upstream = Upstream()
    async with proxied(upstream, allowed_hosts=["dev.test"]) as (url, _, _), httpx.AsyncClient() as http:
        named = await http.post(url, json=PING, headers={"host": "dev.test:1234", "origin": "http://dev.test:1234"})
        other = await http.post(url, json=PING, headers={"host": "other.test"})
    assert named.status_code == 200 and other.status_code == 421
    assert upstream.seen == 1


async def test_a_foreign_origin_is_403_and_the_proxys_own_is_fine() -> None:
    upstream = Upstream()
    async with proxied(upstream) as (url, _, _), httpx.AsyncClient() as http:
        port = urlsplit(url).port
        foreign = await http.post(url, json=PING, headers={"origin": "http://evil.example"})
        null = await http.post(url, json=PING, headers={"origin": "null"})
        own = await http.post(url, json=PING, headers={"origin": f"http://localhost:{port}"})
    assert foreign.status_code == 403 and null.status_code == 403
    assert foreign.json()["error"]["message"].startswith("forbidden")
    assert own.status_code == 200 and upstream.seen == 1


async def test_a_relayed_response_carries_one_date() -> None:
    async with proxied(Upstream()) as (url, _, _), httpx.AsyncClient() as http:
        reply = await http.post(url, json=PING)
    assert reply.status_code == 200
    assert len(reply.headers.get_list("date")) == 1


async def test_credentials_are_masked_in_the_recorded_trace(tmp_path: Path) -> None:
    upstream = Upstream()
    async with proxied(upstream) as (url, recording, app), httpx.AsyncClient() as http:
        reply = await http.post(url + "?api_key=KEY-SECRET-1&region=eu", json=PING, headers={
            "cookie": "sid=COOKIE-SECRET-2; theme=dark", "x-api-key": "APIKEY-SECRET-3",
            "authorization": "DPoP DPOP-SECRET-4", "x-session-token": "TOKEN-SECRET-5"})
        app.flush()
    assert reply.status_code == 200
    assert upstream.query == [b"api_key=KEY-SECRET-1&region=eu"]  # relayed as sent
    (op,) = recording.store.operations
    request = recording.store.messages_of(op.id)[0]
    headers = request.transport["request_headers"]
    assert headers["cookie"] == "sid=***; theme=***" and headers["x-api-key"] == "***"
    assert headers["authorization"] == "DPoP ***" and headers["x-session-token"] == "***"
    assert request.transport["http_path"] == "/mcp?api_key=***&region=eu"
    saved = tmp_path / "t.mrtr.json"
    files.save(saved, recording.store)
    text = saved.read_text()
    assert "SECRET" not in text and "api_key=***" in text


async def test_a_client_disconnect_cancels_its_upstream_request() -> None:
    upstream = Upstream(hold=True)
    async with proxied(upstream) as (url, _, _):
        async def leave() -> None:
            async with httpx.AsyncClient(timeout=httpx.Timeout(1.0)) as http:
                with contextlib.suppress(httpx.TimeoutException):
                    await http.post(url, json=PING)

        await asyncio.gather(*(leave() for _ in range(30)))
        assert upstream.seen == 30
        for _ in range(100):  # the proxy closes each upstream request within moments, not 15 s later
            if upstream.open == 0:
                break
            await asyncio.sleep(0.05)
        assert upstream.open == 0


def test_host_guard_parses_hosts_and_refuses_malformed_ones() -> None:
    guard = HostGuard(["Dev.Test:8080", "any.test"])
    server = ("127.0.0.1", 9000)
    assert guard.check([(b"host", b"[::1]:9000")], server) is not None  # not the address it was reached on
    assert guard.check([(b"host", b"127.0.0.1:9000")], server) is None
    assert guard.check([(b"host", b"dev.test:8080")], server) is None
    assert guard.check([(b"host", b"dev.test:8081")], server) is not None
    assert guard.check([(b"host", b"any.test:1")], server) is None
    assert guard.check([(b"host", b"a@127.0.0.1:9000")], server) is not None
    assert guard.check([], server) is not None
    assert guard.check([(b"host", b"127.0.0.1:9000"), (b"host", b"127.0.0.1:9000")], server) is not None
    refused = guard.check([(b"host", b"127.0.0.1:9000"), (b"origin", b"file://")], server)
    assert refused is not None and refused[0] == 403
    anything = HostGuard(["*"])
    assert anything.check([(b"host", b"evil.example")], server) is None
    refused = anything.check([(b"host", b"evil.example"), (b"origin", b"http://evil.example")], server)
    assert refused is not None and refused[0] == 403
    with pytest.raises(ValueError, match="--allow-host"):
        HostGuard(["bad/name"])
