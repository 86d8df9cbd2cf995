"""Draft SEPs as experiments: off by default; SEP-3221 secure parameters (listed only to clients that declared
the extension, never taken from arguments, validated, re-sent on the retry and bound by the state) and
SEP-2643 denials (a URL elicitation with the envelope, the handle echoed by a client with the draft on)."""

import asyncio
import subprocess
import sys
from typing import Any

import pytest

from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ALL_CAPABILITIES, ClientSettings
from mrtr_studio.engine import ServerOptions
from mrtr_studio.protocol.drafts import AUTHORIZATION_META, CONTEXT_ID_META
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.transport.memory import MemoryTransport
from tests.engine.wire import ALL_CAPS, Wire, meta

SECURE = "io.modelcontextprotocol/secure-params"
BOTH = frozenset({"sep-2643", "sep-3221"})
WITH_SECURE = {**ALL_CAPS, "extensions": {SECURE: {}}}
YES = R.table({"*": {"action": "accept", "content": {"confirm": True}}})


def wire(drafts: frozenset[str] = BOTH) -> Wire:
    return Wire(build_demo_server(ServerOptions(drafts=drafts)))


def send(w: Wire, method: str, params: dict[str, Any], caps: dict[str, Any] | None = None) -> dict[str, Any]:
    return asyncio.run(w.send(method, {"_meta": meta(caps), **params}))


def test_drafts_are_off_by_default_and_named_when_switched_on() -> None:
    plain = wire(frozenset())
    names = {t["name"] for t in send(plain, "tools/list", {}, WITH_SECURE)["result"]["tools"]}
    assert not names & {"list_folder", "run_sql"}
    extensions = send(plain, "server/discover", {})["result"]["capabilities"]["extensions"]
    assert SECURE not in extensions
    on = send(wire(), "server/discover", {})["result"]["capabilities"]["extensions"]
    assert {SECURE, "io.modelcontextprotocol/structured-authorization-denials"} <= set(on)
    with pytest.raises(ValueError, match="unknown draft"):
        ServerOptions(drafts=frozenset({"sep-9999"}))
    bad = subprocess.run([sys.executable, "-m", "mrtr_studio", "serve", "--draft", "sep-9999"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--draft" in bad.stderr


def test_secure_tools_are_listed_only_to_clients_that_declared_the_extension() -> None:
    w = wire()
    without = [t["name"] for t in send(w, "tools/list", {})["result"]["tools"]]
    assert "run_sql" not in without and "list_folder" in without
    listed = {t["name"]: t for t in send(w, "tools/list", {}, WITH_SECURE)["result"]["tools"]}
    assert listed["run_sql"]["secureInputSchema"]["required"] == ["project_id", "instance"]
    assert "instance" not in listed["run_sql"]["inputSchema"]["properties"]
    refused = send(w, "tools/call", {"name": "run_sql", "arguments": {"query": "SELECT 1"}})
    assert refused["error"]["code"] == -32021 and SECURE in str(refused["error"]["data"])


@pytest.mark.parametrize(("arguments", "secure", "words"), [
    ({"query": "q", "instance": "db-payroll"}, {"project_id": "p", "instance": "db-1"}, "only come in secureArguments"),
    ({"query": "q"}, {"project_id": "p"}, "fails 'required'"),
    ({"query": "q"}, {"project_id": "p", "instance": "db-1", "token": "hunter2"}, "additionalProperties"),
    ({"query": "q"}, "db-1", "must be an object"),
])
def test_secure_arguments_never_come_from_arguments_and_must_fit_the_schema(
        arguments: dict[str, Any], secure: Any, words: str) -> None:
    error = send(wire(), "tools/call", {"name": "run_sql", "arguments": arguments, "secureArguments": secure},
                 WITH_SECURE)["error"]
    assert error["code"] == -32602 and words in error["message"]
    assert "hunter2" not in str(error)  # a secure value is never echoed back


def client(drafts: frozenset[str], caps: frozenset[str] = ALL_CAPABILITIES, **extra: Any) -> ClientSession:
    settings = ClientSettings(drafts=drafts, capabilities=caps, **extra)
    return ClientSession(MemoryTransport(build_demo_server(ServerOptions(drafts=BOTH))), settings, YES)


def run(session: ClientSession, tool: str, arguments: dict[str, Any]) -> Any:
    async def go() -> Any:
        try:
            return await session.run("tools/call", tool, arguments)
        finally:
            await session.close()
    return asyncio.run(go())


def test_the_client_binds_secure_arguments_and_resends_them_on_the_retry() -> None:
    session = client(frozenset({"sep-3221"}), secure_arguments={"run_sql": {"project_id": "shop", "instance": "db-1"}})
    result = run(session, "run_sql", {"query": "SELECT 1"})
    assert result.drive.ok and result.drive.result["content"][0]["text"] == "Ran on db-1 in shop: SELECT 1"
    requests = [r.request["params"] for r in result.drive.rounds]
    assert len(requests) == 2 and all(p["secureArguments"] == {"project_id": "shop", "instance": "db-1"}
                                      for p in requests)


def test_a_denial_carries_the_envelope_and_the_retry_echoes_its_handle() -> None:
    result = run(client(frozenset({"sep-2643"})), "list_folder", {"folderId": "fld_1"})
    first = result.drive.rounds[0].response["result"]
    envelope = first["_meta"][AUTHORIZATION_META]
    assert first["resultType"] == "input_required" and envelope["remediation"] == "available"
    assert envelope["remediationHints"] == [{"type": "url"}] and "requestState" in first
    assert first["inputRequests"]["folder_approval"]["params"]["mode"] == "url"
    retry = result.drive.rounds[1].request["params"]
    assert retry["_meta"][CONTEXT_ID_META] == envelope["authorizationContextId"]
    assert "echoed." in result.drive.result["content"][0]["text"]
    plain = run(client(frozenset()), "list_folder", {"folderId": "fld_1"})  # draft off on the client: no echo
    assert plain.drive.ok and "not echoed (processed anyway)" in plain.drive.result["content"][0]["text"]


def test_without_url_elicitation_the_denial_is_undisclosed_not_unavailable() -> None:
    result = run(client(frozenset({"sep-2643"}), caps=frozenset({"elicitation"})), "list_folder", {})
    body = result.drive.result
    assert body["isError"] and body["_meta"][AUTHORIZATION_META]["remediation"] == "undisclosed"
    assert "remediationHints" not in body["_meta"][AUTHORIZATION_META]


@pytest.mark.parametrize("schema", [{"type": "string"}, {"type": "object", "properties": {"a": {"type": 5}}}, []])
def test_a_bad_secure_input_schema_is_refused_when_the_tool_is_registered(schema: Any) -> None:
    from mrtr_studio.engine.server import McpServer

    with pytest.raises(ValueError, match="tool 'bad': secureInputSchema"):
        McpServer().tool("bad", input_schema={"type": "object"}, secure_input_schema=schema)
