"""`mrtr-studio replay-server`: the official Python SDK client (mcp 2.3.0) completes the recorded flows
against the recording, in both eras and with both state modes, with the same results as against `serve`;
a request the recording does not hold gets a JSON-RPC error naming the nearest recorded one."""

import json
import subprocess
from pathlib import Path

import httpx
import pytest

from mrtr_studio.replay.server import REPLAY_META
from mrtr_studio.trace import files
from tests.interop.test_sdk_client_http import run
from tests.replay.processes import SDK_TEXTS, command, environment, replay_server, sdk_flows

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
HEADERS = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Accept": "application/json"}


def post(url: str, message: dict, name: str) -> dict:
    response = httpx.post(url, json=message, headers={**HEADERS, "Mcp-Name": name}, timeout=10)
    return response.json()


def call(msg_id: int, name: str, arguments: dict, **extra: object) -> dict:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": MODERN, **extra}}


@pytest.mark.parametrize("state", ["verbatim", "resign"])
def test_the_sdk_client_completes_the_recorded_flows_against_the_recording(sdk_recording: Path, state: str) -> None:
    with replay_server(sdk_recording, "--state", state) as replaying:
        texts = run(lambda: sdk_flows(replaying.url))
        assert replaying.stop() == 0  # SIGTERM: a clean stop
    assert texts == SDK_TEXTS
    told = "resigned" if state == "resign" else "verbatim"
    assert f"tools/call deploy_wizard round 3: input_required (requestState {told})" in replaying.stderr
    assert "tools/call count_roots round 1: complete" in replaying.stderr  # the legacy flow, roots/list asked again


def test_the_state_is_the_recorded_token_or_a_fresh_one_and_the_meta_says_which(sdk_recording: Path) -> None:
    _, messages = files.open_trace(sdk_recording)
    asked = next(m for m in messages if m.kind == "input_required")  # the flow (the session operation comes first)
    recorded = asked.message["result"]["requestState"]
    for state, expect_same in (("verbatim", True), ("resign", False)):
        with replay_server(sdk_recording, "--state", state) as replaying:
            answer = post(replaying.url, call(77, "delete_file", {"path": "/tmp/x"}), "delete_file")
            replaying.stop()
        assert answer["id"] == 77
        body = answer["result"]
        assert (body["requestState"] == recorded) is expect_same
        assert body["_meta"][REPLAY_META] == {"operation": asked.operation_id, "round": 1,
                                              "requestState": "verbatim" if expect_same else "resigned"}


def test_an_unmatched_request_names_the_nearest_recording_and_the_difference(sdk_recording: Path) -> None:
    with replay_server(sdk_recording) as replaying:
        other_path = post(replaying.url, call(1, "delete_file", {"path": "/etc/passwd"}), "delete_file")
        unknown_tool = post(replaying.url, call(2, "format_disk", {}), "format_disk")
        unknown_state = post(replaying.url, call(3, "delete_file", {"path": "/tmp/x"}, requestState="v1.forged",
                                                 inputResponses={"confirm": {"action": "accept"}}), "delete_file")
        replaying.stop()
    error = other_path["error"]
    assert error["code"] == -32602
    assert "nearest is tools/call delete_file round 1" in error["message"]
    assert error["data"]["differences"] == ['arguments.path is "/etc/passwd", recorded "/tmp/x"']
    assert unknown_tool["error"]["code"] == -32602
    assert "the target is 'format_disk', recorded" in unknown_tool["error"]["message"]
    assert unknown_state["error"]["data"]["reason"] == "unknown"
    assert "no match" in replaying.stderr


def test_loose_matching_ignores_the_arguments(sdk_recording: Path) -> None:
    with replay_server(sdk_recording, "--loose") as replaying:
        answer = post(replaying.url, call(1, "delete_file", {"path": "/somewhere/else"}), "delete_file")
        replaying.stop()
    assert answer["result"]["resultType"] == "input_required"


def test_a_resigned_state_is_bound_to_the_request_it_was_minted_for(sdk_recording: Path) -> None:
    with replay_server(sdk_recording, "--state", "resign", "--loose") as replaying:
        first = post(replaying.url, call(1, "delete_file", {"path": "/a"}), "delete_file")
        state = first["result"]["requestState"]
        answers = {"confirm": {"action": "accept", "content": {"confirm": True}}}
        moved = post(replaying.url, call(2, "delete_file", {"path": "/b"}, requestState=state,
                                         inputResponses=answers), "delete_file")
        done = post(replaying.url, call(3, "delete_file", {"path": "/a"}, requestState=state,
                                        inputResponses=answers), "delete_file")
        replaying.stop()
    assert moved["error"]["data"]["reason"] == "arguments"
    assert done["result"]["content"] == [{"type": "text", "text": "File deleted"}]


def test_stdio_serves_the_recording_on_json_lines(sdk_recording: Path) -> None:
    lines = [call(1, "delete_file", {"path": "/tmp/x"}), {"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                                                          "params": {"_meta": MODERN}}]
    done = subprocess.run(command("replay-server", str(sdk_recording), "--stdio"), env=environment(),
                          input="".join(json.dumps(m) + "\n" for m in lines) + "not json\n",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    answers = {a.get("id"): a for a in map(json.loads, done.stdout.splitlines())}
    assert answers[1]["result"]["resultType"] == "input_required"
    assert {t["name"] for t in answers[2]["result"]["tools"]} == {"delete_file", "deploy_wizard", "count_roots"}
    assert answers[None]["error"]["code"] == -32700


def test_a_file_that_is_no_trace_is_a_one_line_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mrtr.json"
    bad.write_text("[1, 2")
    done = subprocess.run(command("replay-server", str(bad)), env=environment(), capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.startswith("mrtr-studio replay-server: ") and len(done.stderr.splitlines()) == 1
