"""A real `serve` on loopback probed as an attacker would: repeated and padded headers, a foreign Host,
someone else's session, malformed envelopes and bodies. Every answer is a clear 4xx with a JSON-RPC
error, and the server's log never shows a traceback."""

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from .serve_process import Served, raw_post, serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "roots": {}}}
JSON = ("Content-Type", "application/json")


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with serve("--user", "alice:tok-a", "--user", "bob:tok-b") as server:
        yield server
        assert "Traceback" not in server.log(), server.log()


def tool_call(name: str = "delete_file", arguments: Any = None) -> bytes:
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": name, "arguments": {"path": "/a"} if arguments is None else arguments,
                       "_meta": META}}
    return json.dumps(body).encode()


def modern_headers(name: str = "delete_file") -> list[tuple[str, str]]:
    return [JSON, ("MCP-Protocol-Version", MODERN), ("Mcp-Method", "tools/call"), ("Mcp-Name", name)]


# --- mirrored headers -------------------------------------------------------------------------------

@pytest.mark.parametrize("repeat", [("Mcp-Name", "read_file"), ("Mcp-Method", "tools/list"),
                                    ("Mcp-Name", "delete_file"), ("MCP-Protocol-Version", MODERN)])
def test_a_repeated_mirrored_header_is_32020(served: Served, repeat: tuple[str, str]) -> None:
    """The first copy is what a gateway in front may read: two copies are a mismatch, even if equal."""
    headers = modern_headers()
    headers.insert(1, repeat)
    response = raw_post(served.port, tool_call(), headers)
    assert response.status == 400, response.body
    assert response.json()["error"]["code"] == -32020
    assert response.json()["id"] == 7
    assert "more than once" in response.json()["error"]["message"]


def test_a_repeated_param_header_is_32020(served: Served) -> None:
    arguments = {"region": "eu-north1", "query": "SELECT 1"}
    headers = [*modern_headers("run_query"), ("Mcp-Param-Region", "us-west1"), ("Mcp-Param-Region", "eu-north1")]
    response = raw_post(served.port, tool_call("run_query", arguments), headers)
    assert response.status == 400
    assert response.json()["error"]["code"] == -32020


def test_whitespace_around_header_values_is_not_part_of_them(served: Served) -> None:
    headers = [JSON, ("MCP-Protocol-Version", f" {MODERN}\t"), ("Mcp-Method", "  tools/call "),
               ("Mcp-Name", '  delete_file  ')]
    response = raw_post(served.port, tool_call(), headers)
    assert response.status == 200, response.body
    assert response.json()["result"]["resultType"] == "input_required"


# --- Host (DNS rebinding) ----------------------------------------------------------------------------

@pytest.mark.parametrize("host", ["evil.com", "evil.com:{port}", "127.0.0.1:1", "localhost.evil.com:{port}", "",
                                  "[::1", "127.0.0.1:{port}x"])
def test_a_foreign_host_is_421_even_without_origin(served: Served, host: str) -> None:
    response = raw_post(served.port, tool_call(), modern_headers(), host=host.format(port=served.port))
    assert response.status == 421, response.body
    assert response.json()["error"]["code"] == -32600


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}"])
def test_loopback_hosts_with_the_bound_port_are_served(served: Served, host: str) -> None:
    response = raw_post(served.port, tool_call(), modern_headers(), host=host.format(port=served.port))
    assert response.status == 200, response.body


def test_the_origin_check_stays(served: Served) -> None:
    response = raw_post(served.port, tool_call(), [*modern_headers(), ("Origin", "http://evil.example")])
    assert response.status == 403


def test_allowed_hosts_are_configurable() -> None:
    with serve("--allow-host", "mcp.test", "--allow-host", "gw.test:8443") as server:
        for host, status in [("mcp.test", 200), ("mcp.test:1234", 200), ("gw.test:8443", 200),
                             ("gw.test:8444", 421), ("evil.com", 421)]:
            assert raw_post(server.port, tool_call(), modern_headers(), host=host).status == status, host
    with serve("--allow-host", "*") as server:
        assert raw_post(server.port, tool_call(), modern_headers(), host="anything.test").status == 200


# --- legacy sessions belong to their principal -----------------------------------------------------

def initialize(url: str, token: str | None) -> str:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
                       "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = httpx.post(url, json=body, headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    return response.headers["mcp-session-id"]


def delete(url: str, session: str, token: str | None) -> httpx.Response:
    headers = {"Mcp-Session-Id": session, **({"Authorization": f"Bearer {token}"} if token else {})}
    return httpx.delete(url, headers=headers, timeout=10)


def list_tools(url: str, session: str, token: str | None) -> httpx.Response:
    headers = {"Mcp-Session-Id": session, **({"Authorization": f"Bearer {token}"} if token else {})}
    return httpx.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers, timeout=10)


def test_only_the_sessions_principal_can_end_it(served: Served) -> None:
    session = initialize(served.url, "tok-a")
    assert delete(served.url, session, "wrong").status_code == 401
    assert delete(served.url, session, "tok-b").status_code == 404
    assert delete(served.url, session, None).status_code == 404
    assert list_tools(served.url, session, "tok-a").status_code == 200  # still alice's, still open
    assert delete(served.url, session, "tok-a").status_code == 204
    assert list_tools(served.url, session, "tok-a").status_code == 404
    assert delete(served.url, session, "tok-a").status_code == 404


def test_delete_without_a_session_header_is_400(served: Served) -> None:
    response = httpx.delete(served.url, timeout=10)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600


# --- malformed envelopes and bodies: 400, never a 500 ---------------------------------------------

@pytest.mark.parametrize("body", [
    b'{"jsonrpc": "2.0", "id": [1], "result": {}}',
    b'{"jsonrpc": "2.0", "id": {"a": 1}, "error": {"code": 1, "message": "x"}}',
    b'{"jsonrpc": "2.0", "id": 1, "result": 5}',
    b'{"jsonrpc": "2.0", "id": 1, "error": {"code": "abc", "message": "x"}}',
    b'{"jsonrpc": "2.0", "id": 1, "error": {"code": 1.5, "message": "x"}}',
    b'{"jsonrpc": "2.0", "id": 1, "error": {"code": 1}}',
    b'{"jsonrpc": "2.0", "id": 1, "error": "boom"}',
    b'{"id": [1], "result": {}}',
])
def test_malformed_responses_are_400(served: Served, body: bytes) -> None:
    response = httpx.post(served.url, content=body, headers=dict([JSON]), timeout=10)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == -32600


def test_a_legacy_error_reply_with_a_string_code_is_400(served: Served) -> None:
    session = initialize(served.url, None)
    reply = {"jsonrpc": "2.0", "id": "server-1", "error": {"code": "abc", "message": "no"}}
    response = httpx.post(served.url, json=reply, headers={"Mcp-Session-Id": session}, timeout=10)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == -32600


def test_deep_brackets_with_a_big_number_are_400(served: Served) -> None:
    body = b"[" * 100_000 + b"1234567890123456789"
    response = httpx.post(served.url, content=body, headers=dict([JSON]), timeout=30)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] in (-32700, -32600)


def test_deeply_nested_arguments_are_a_clear_invalid_request(served: Served) -> None:
    deep = b'{"a":' * 1000 + b'"x"' + b"}" * 1000
    body = tool_call(arguments={"path": "PLACEHOLDER"}).replace(b'"PLACEHOLDER"', deep)
    response = raw_post(served.port, body, modern_headers())
    assert response.status == 400, response.body
    error = response.json()["error"]
    assert error["code"] == -32600
    assert "nested deeper than" in error["message"]


def test_the_server_still_answers_and_logged_no_traceback(served: Served) -> None:
    response = raw_post(served.port, tool_call(), modern_headers())
    assert response.status == 200
    assert "Traceback" not in served.log(), served.log()
