"""The Streamable HTTP server at the HTTP level: statuses, headers, both eras, every bad input."""

import itertools
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mrtr_studio.protocol.schema import message_problems
from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.transport.http_host import ServerThread
from mrtr_studio.transport.http_server import HttpServerConfig, decode_header_value

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]
MODERN = "2026-07-28"
ALL_CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}
_ids = itertools.count(1)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    config = HttpServerConfig(users={"s3cret": "alice"}, max_body_bytes=64 * 1024)
    with ServerThread(build_demo_server(), config=config) as thread:
        yield thread.url


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as client:
        yield client


def meta(caps: dict[str, Any] | None = None, version: str = MODERN, **extra: Any) -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": ALL_CAPS if caps is None else caps, **extra}


def modern(method: str, params: dict[str, Any] | None = None, caps: dict[str, Any] | None = None,
           **extra: Any) -> tuple[dict[str, Any], dict[str, str]]:
    params = dict(params or {})
    params.setdefault("_meta", meta(caps, **extra))
    body = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method,
               "Accept": "application/json, text/event-stream"}
    name = params.get("uri", params.get("name"))
    if isinstance(name, str):
        headers["Mcp-Name"] = name
    return body, headers


def post(http: httpx.Client, url: str, body: Any, headers: dict[str, str]) -> httpx.Response:
    return http.post(url, content=json.dumps(body), headers={"Content-Type": "application/json", **headers})


def check(response: httpx.Response, status: int, code: int | None = None, method: str | None = None
          ) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert "\n" not in response.text.strip()
    message = response.json()
    if code is not None:
        assert message["error"]["code"] == code
    if method is not None:
        assert message_problems(message, method=method) == []
    return message


def test_modern_two_round_flow(url: str, http: httpx.Client) -> None:
    body, headers = modern("tools/call", {"name": "delete_file", "arguments": {"path": "/a"}})
    first = check(post(http, url, body, headers), 200, method="tools/call")
    assert first["id"] == body["id"]
    state = first["result"]["requestState"]
    body, headers = modern("tools/call", {"name": "delete_file", "arguments": {"path": "/a"}, "requestState": state,
                                          "inputResponses": {"confirm": {"action": "accept",
                                                                         "content": {"confirm": True}}}})
    done = check(post(http, url, body, headers), 200, method="tools/call")
    assert done["result"]["content"][0]["text"] == "File deleted"


@pytest.mark.parametrize("header", [
    {"MCP-Protocol-Version": "2025-11-25"}, {"Mcp-Method": "tools/list"}, {"Mcp-Name": "other"},
])
def test_header_mismatch_is_32020(url: str, http: httpx.Client, header: dict[str, str]) -> None:
    body, headers = modern("tools/call", {"name": "delete_file", "arguments": {"path": "/a"}})
    message = check(post(http, url, body, {**headers, **header}), 400, -32020)
    assert message["id"] == body["id"]


def test_missing_name_header_is_32020(url: str, http: httpx.Client) -> None:
    body, headers = modern("tools/call", {"name": "delete_file", "arguments": {"path": "/a"}})
    del headers["Mcp-Name"]
    check(post(http, url, body, headers), 400, -32020)


def test_base64_name_header_is_decoded(url: str, http: httpx.Client) -> None:
    body, headers = modern("resources/read", {"uri": "config://secrets"})
    headers["Mcp-Name"] = "=?base64?Y29uZmlnOi8vc2VjcmV0cw==?="
    assert decode_header_value(headers["Mcp-Name"]) == "config://secrets"
    assert check(post(http, url, body, headers), 200)["result"]["resultType"] == "input_required"


def test_missing_meta_is_32602_before_header_checks(url: str, http: httpx.Client) -> None:
    body, headers = modern("server/discover", {"_meta": {}})
    message = check(post(http, url, body, {**headers, "MCP-Protocol-Version": "v9"}), 400, -32602)
    assert message["id"] == body["id"]


def test_unsupported_version_is_32022_with_supported(url: str, http: httpx.Client) -> None:
    body, headers = modern("server/discover", version="v999.0.0")
    message = check(post(http, url, body, {**headers, "MCP-Protocol-Version": "v999.0.0"}), 400, -32022)
    assert MODERN in message["error"]["data"]["supported"]
    assert message["error"]["data"]["requested"] == "v999.0.0"


def test_missing_capability_is_32021_with_400(url: str, http: httpx.Client) -> None:
    body, headers = modern("tools/call", {"name": "summarize", "arguments": {"text": "x"}}, caps={})
    message = check(post(http, url, body, headers), 400, -32021)
    assert message["error"]["data"]["requiredCapabilities"] == {"sampling": {}}


@pytest.mark.parametrize("method", ["initialize", "ping", "logging/setLevel", "unknown/method"])
def test_removed_and_unknown_methods_are_404(url: str, http: httpx.Client, method: str) -> None:
    body, headers = modern(method)
    check(post(http, url, body, headers), 404, -32601)


def test_notification_is_202(url: str, http: httpx.Client) -> None:
    response = post(http, url, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}, {})
    assert response.status_code == 202
    assert response.content == b""


def test_get_is_405(url: str, http: httpx.Client) -> None:
    response = http.get(url, headers={"Accept": "text/event-stream"})
    assert response.status_code == 405
    assert response.headers["allow"] == "POST, DELETE"


def test_foreign_origin_is_403_and_loopback_is_fine(url: str, http: httpx.Client) -> None:
    body, headers = modern("tools/list")
    assert post(http, url, body, {**headers, "Origin": "http://evil.example"}).status_code == 403
    assert post(http, url, body, {**headers, "Origin": "http://localhost:3000"}).status_code == 200


def test_request_too_large_is_413(url: str, http: httpx.Client) -> None:
    body, headers = modern("tools/call", {"name": "summarize", "arguments": {"text": "x" * 100_000}})
    assert post(http, url, body, headers).status_code == 413


@pytest.mark.parametrize(("content", "content_type", "code"), [
    (b"{not json", "application/json", -32700),
    (b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}', "text/plain", -32600),
    (b'[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]', "application/json", -32600),
    (b'{"jsonrpc":"1.0","id":7,"method":"tools/list"}', "application/json", -32600),
])
def test_malformed_bodies_are_400_with_a_jsonrpc_error(url: str, http: httpx.Client, content: bytes,
                                                       content_type: str, code: int) -> None:
    check(http.post(url, content=content, headers={"Content-Type": content_type}), 400, code)


def test_bearer_tokens(url: str, http: httpx.Client) -> None:
    body, headers = modern("tools/list")
    unknown = post(http, url, body, {**headers, "Authorization": "Bearer nope"})
    assert unknown.status_code == 401
    assert unknown.headers["www-authenticate"].startswith("Bearer")
    assert unknown.json()["error"]["code"] == -32600
    assert post(http, url, body, {**headers, "Authorization": "Bearer s3cret"}).status_code == 200


def test_state_is_bound_to_the_bearer_principal(url: str, http: httpx.Client) -> None:
    body, headers = modern("tools/call", {"name": "delete_file", "arguments": {"path": "/a"}})
    state = post(http, url, body, {**headers, "Authorization": "Bearer s3cret"}).json()["result"]["requestState"]
    params = {"name": "delete_file", "arguments": {"path": "/a"}, "requestState": state,
              "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": True}}}}
    body, headers = modern("tools/call", params)
    check(post(http, url, body, headers), 400, -32602)  # anonymous replay of alice's state


def sse_messages(response: httpx.Response) -> Iterator[dict[str, Any]]:
    for line in response.iter_lines():
        if line.startswith("data:"):
            yield json.loads(line[5:])


def test_notifications_switch_the_reply_to_sse(url: str, http: httpx.Client) -> None:
    body, headers = modern("tools/call", {"name": "test_logging_tool", "arguments": {}},
                           **{"io.modelcontextprotocol/logLevel": "info"})
    with http.stream("POST", url, content=json.dumps(body),
                     headers={"Content-Type": "application/json", **headers}) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        messages = list(sse_messages(response))
    assert [m.get("method") for m in messages[:-1]] == ["notifications/message"] * 2
    assert messages[-1]["id"] == body["id"]
    assert messages[-1]["result"]["content"][0]["text"] == "logged"


def legacy(http: httpx.Client, url: str) -> str:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
                       "clientInfo": {"name": "t", "version": "1"}}}
    response = post(http, url, init, {})
    assert response.status_code == 200
    assert response.json()["result"]["protocolVersion"] == "2025-11-25"
    session = response.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(http, url, note, {"Mcp-Session-Id": session}).status_code == 202
    return session


def test_legacy_server_initiated_roots_ride_the_request_stream(url: str, http: httpx.Client) -> None:
    session = legacy(http, url)
    headers = {"Content-Type": "application/json", "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "count_roots", "arguments": {}}}
    seen: list[dict[str, Any]] = []
    with http.stream("POST", url, content=json.dumps(call), headers=headers) as response, \
            httpx.Client(timeout=10) as answerer:
        assert response.headers["content-type"].startswith("text/event-stream")
        for message in sse_messages(response):
            seen.append(message)
            if message.get("method") == "roots/list":
                answer = {"jsonrpc": "2.0", "id": message["id"],
                          "result": {"roots": [{"uri": "file:///r", "name": "r"}]}}
                assert answerer.post(url, content=json.dumps(answer), headers=headers).status_code == 202
    assert seen[0]["method"] == "roots/list"
    assert seen[-1]["id"] == 2
    assert seen[-1]["result"]["content"][0]["text"] == "1 root(s): file:///r"
    assert http.delete(url, headers={"Mcp-Session-Id": session}).status_code == 204
    gone = http.post(url, content=json.dumps(call), headers=headers)
    assert gone.status_code == 404


def test_unknown_legacy_session_is_404(url: str, http: httpx.Client) -> None:
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}
    check(post(http, url, call, {"Mcp-Session-Id": "nope"}), 404, -32600)


def test_server_keeps_answering_after_bad_inputs(url: str, http: httpx.Client) -> None:
    for content in (b"{", b"[]", b"null", b'"x"', b"{}"):
        assert http.post(url, content=content, headers={"Content-Type": "application/json"}).status_code == 400
    body, headers = modern("tools/list")
    assert check(post(http, url, body, headers), 200, method="tools/list")["result"]["tools"]


def test_serve_in_background_on_the_running_loop() -> None:
    import asyncio

    from mrtr_studio.transport.http_host import serve_in_background

    async def go() -> str:
        async with serve_in_background(build_demo_server()) as url, httpx.AsyncClient(timeout=10) as client:
            body, headers = modern("tools/list")
            response = await client.post(url, content=json.dumps(body),
                                         headers={"Content-Type": "application/json", **headers})
            assert response.status_code == 200
            return url

    url = asyncio.run(asyncio.wait_for(go(), 30))
    with pytest.raises(httpx.ConnectError):
        httpx.post(url, content=b"{}", timeout=5)



def test_big_integer_ids_are_echoed_exactly(url: str, http: httpx.Client) -> None:
    """The fast JSON parser would turn a 30-digit id into a float; the server must echo it exactly."""
    big = 123456789012345678901234567890
    body, headers = modern("server/discover")
    body["id"] = big
    response = post(http, url, body, headers)
    assert response.status_code == 200
    assert f'"id":{big}' in response.text
    assert response.json()["id"] == big


def test_mcp_param_headers_must_match_the_body(url: str, http: httpx.Client) -> None:
    arguments = {"region": "eu-north1", "query": "SELECT 1"}
    body, headers = modern("tools/call", {"name": "run_query", "arguments": arguments})
    error = check(post(http, url, body, headers), 400, -32020)
    assert "Mcp-Param-Region header is missing" in error["error"]["message"]
    body, headers = modern("tools/call", {"name": "run_query", "arguments": arguments})
    error = check(post(http, url, body, {**headers, "Mcp-Param-Region": "us-west1"}), 400, -32020)
    assert "does not match body value 'eu-north1'" in error["error"]["message"]
    body, headers = modern("tools/call", {"name": "run_query", "arguments": arguments})
    ok = check(post(http, url, body, {**headers, "Mcp-Param-Region": "eu-north1"}), 200, method="tools/call")
    assert ok["result"]["resultType"] == "input_required"
