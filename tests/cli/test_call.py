"""`mrtr-studio call` and `state decode` end to end (in process): output, exit codes, one-line reasons."""

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mrtr_studio.cli.parser import main

ANSWERS = {"confirm": {"action": "accept", "content": {"confirm": True}},
           "environment": {"action": "accept", "content": {"environment": "production"}},
           "version": {"action": "accept", "content": {"version": "3.1"}},
           "consent": {"action": "decline"}}
FAKE_STDIO = Path(__file__).resolve().parents[1] / "transport" / "stdio_fake_server.py"


@pytest.fixture
def answers(tmp_path: Path) -> str:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(ANSWERS))
    return str(path)


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["call", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output_of_the_delete_file_flow(capsys: pytest.CaptureFixture[str], answers: str) -> None:
    code, out, err = call(capsys, "memory:", "--tool", "delete_file", "--args", '{"path": "/a"}',
                          "--answers", answers, "--json")
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert list(document) == ["result", "error", "rounds"]
    assert document["result"] == {"content": [{"type": "text", "text": "File deleted"}], "resultType": "complete",
                                  **({"_meta": document["result"]["_meta"]} if "_meta" in document["result"] else {})}
    assert document["error"] is None
    first, second = document["rounds"]
    assert first["response"]["result"]["resultType"] == "input_required"
    assert second["request"]["params"]["inputResponses"] == {"confirm": ANSWERS["confirm"]}
    assert second["request"]["params"]["requestState"] == first["response"]["result"]["requestState"]
    assert second["request"]["id"] != first["request"]["id"]


def test_human_output_of_a_three_round_wizard(capsys: pytest.CaptureFixture[str], answers: str) -> None:
    code, out, err = call(capsys, "memory:", "--tool", "deploy_wizard", "--answers", answers)
    assert (code, err) == (0, "")
    assert out == (
        "round 1 -> tools/call deploy_wizard (id 1)\n"
        "round 1 <- input_required: environment (elicitation/create), requestState\n"
        "round 2 -> tools/call deploy_wizard (id 2) inputResponses: environment; requestState\n"
        "round 2 <- input_required: version (elicitation/create), requestState\n"
        "round 3 -> tools/call deploy_wizard (id 3) inputResponses: version; requestState\n"
        "round 3 <- input_required: confirm (elicitation/create), requestState\n"
        "round 4 -> tools/call deploy_wizard (id 4) inputResponses: confirm; requestState\n"
        "round 4 <- complete\n"
        "Deployed 3.1 to production\n")


def test_round_limit_is_a_failure_with_a_reason(capsys: pytest.CaptureFixture[str], answers: str) -> None:
    code, _, err = call(capsys, "memory:", "--tool", "deploy_wizard", "--answers", answers, "--max-rounds", "2")
    assert code == 1
    assert err == "mrtr-studio call: round_limit: still input_required after 2 rounds (the round limit)\n"


def test_legacy_era_error_is_one_line(capsys: pytest.CaptureFixture[str], answers: str) -> None:
    code, _, err = call(capsys, "memory:", "--tool", "delete_file", "--args", '{"path":"/a"}', "--era", "legacy",
                        "--answers", answers)
    assert code == 1
    assert err == "mrtr-studio call: error -32603 input_required needs protocol 2026-07-28\n"


def test_missing_capability(capsys: pytest.CaptureFixture[str], answers: str) -> None:
    code, out, err = call(capsys, "memory:", "--tool", "connect_account", "--caps", "elicitation",
                          "--answers", answers, "--json")
    assert code == 1
    assert json.loads(out)["error"]["code"] == -32021
    assert err.startswith("mrtr-studio call: error -32021 ")
    assert err.endswith('({"requiredCapabilities":{"elicitation":{"url":{}}}})\n')


def test_url_consent_from_answers_and_prompt_and_resource(capsys: pytest.CaptureFixture[str], answers: str) -> None:
    assert call(capsys, "memory:", "--tool", "connect_account", "--answers", answers)[1].endswith(
        "Not connected (decline)\n")
    ask = {"focus": {"action": "accept", "content": {"focus": "security"}},
           "reveal": {"action": "accept", "content": {"confirm": True}}}
    path = Path(answers)
    path.write_text(json.dumps(ask))
    code, out, _ = call(capsys, "memory:", "--prompt", "code_review", "--args", '{"code": "x=1"}', "--answers", answers)
    assert code == 0 and out.endswith("[user] Please review this code with a focus on security:\n\nx=1\n")
    code, out, _ = call(capsys, "memory:", "--resource", "config://secrets", "--answers", answers)
    assert code == 0 and out.endswith("config://secrets: API_KEY=demo-123\nDB_PASSWORD=hunter2\n")


def test_terminal_answers_and_step_tampering(capsys: pytest.CaptureFixture[str], monkeypatch: Any,
                                            answers: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("yes\nyes\n"))
    code, out, _ = call(capsys, "memory:", "--tool", "delete_file", "--args", '{"path":"/a"}')
    assert code == 0 and out.endswith("File deleted\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ns\nforged\n\n"))
    code, _, err = call(capsys, "memory:", "--tool", "delete_file", "--args", '{"path":"/a"}', "--step",
                        "--answers", answers)
    assert code == 1
    assert err.endswith('mrtr-studio call: error -32602 Invalid requestState '
                        '({"reason":"malformed","detail":"missing the v1. prefix"})\n')
    assert "--- round 2: about to send ---" in err


def test_closed_terminal_is_a_clear_failure(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, _, err = call(capsys, "memory:", "--tool", "delete_file", "--args", '{"path":"/a"}')
    assert code == 1
    assert err.endswith("mrtr-studio call: aborted: could not answer round 1: no answer on the terminal "
                        "(input closed); pass --answers FILE\n")


@pytest.mark.parametrize(("argv", "message"), [
    (["ftp://x", "--tool", "a"], "unsupported URL 'ftp://x': use http(s)://…, stdio:COMMAND ARGS or memory:"),
    (["memory:", "--tool", "a", "--args", "[1]"], "--args must be a JSON object, not '[1]'"),
    (["memory:", "--tool", "a", "--caps", "bogus"],
     "unknown capabilities: bogus (known: elicitation, elicitation.url, sampling, sampling.tools, roots, tasks)"),
])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, _, err = call(capsys, *argv)
    assert (code, err) == (2, f"mrtr-studio call: {message}\n")


def test_unreachable_server(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "http://127.0.0.1:1/mcp", "--tool", "a", "--json")
    assert code == 1
    assert json.loads(out)["error"] == {"outcome": "transport_error", "message":
                                        "TransportError: cannot connect to http://127.0.0.1:1/mcp: "
                                        "All connection attempts failed"}
    assert err == ("mrtr-studio call: transport_error: TransportError: cannot connect to "
                   "http://127.0.0.1:1/mcp: All connection attempts failed\n")


@pytest.mark.slow
@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_stdio_url(capsys: pytest.CaptureFixture[str], era: str) -> None:
    roots = Path.cwd().as_uri()
    code, out, _ = call(capsys, f"stdio:{sys.executable} {FAKE_STDIO} engine", "--tool", "count_roots", "--era", era)
    assert code == 0 and out.endswith(f"1 root(s): {roots}\n")


def test_state_decode(capsys: pytest.CaptureFixture[str], answers: str) -> None:
    _, out, _ = call(capsys, "memory:", "--tool", "delete_file", "--args", '{"path":"/a"}', "--answers", answers,
                        "--json")
    token = json.loads(out)["rounds"][0]["response"]["result"]["requestState"]
    assert main(["state", "decode", token]) == 0
    decoded = capsys.readouterr().out
    assert decoded.startswith("payload:\n")
    assert '  m      "tools/call"\n' in decoded and '  n      "delete_file"\n' in decoded
    assert main(["state", "decode", "v1.garbage"]) == 1


def test_call_over_http_mirrors_param_headers_and_saves_the_trace(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`call` lists tools first so x-mcp-header parameters are mirrored; --trace keeps what happened."""
    import json as _json
    import subprocess as _subprocess
    import sys as _sys

    from mrtr_studio.scenarios import build_demo_server
    from mrtr_studio.trace import files
    from mrtr_studio.transport.http_host import ServerThread

    answers = tmp_path / "answers.json"
    answers.write_text(_json.dumps({"confirm": {"action": "accept", "content": {"confirm": True}}}))
    trace = tmp_path / "call.mrtr.json"
    with ServerThread(build_demo_server()) as thread:
        run = _subprocess.run([_sys.executable, "-m", "mrtr_studio", "call", thread.url, "--tool", "run_query",
                               "--args", '{"region": "eu-north1", "query": "SELECT 1"}', "--answers", str(answers),
                               "--json", "--trace", str(trace)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert _json.loads(run.stdout)["result"]["content"][0]["text"] == "Ran the query in eu-north1"
    operations, messages = files.open_trace(trace)
    assert [op.target for op in operations] == ["run_query"]
    assert [m.transport["request_headers"]["Mcp-Param-Region"] for m in messages if m.kind == "request"] == [
        "eu-north1", "eu-north1"]


def modern_server(tool_reply: Any) -> Any:
    """A 2026-07-28 server whose tools/call answer is `tool_reply(id)`; tools/list lists nothing."""
    from tests.hostile_http import Conn, Request, result

    async def behaviour(request: Request, conn: Conn) -> None:
        message = request.json()
        if message.get("method") == "tools/list":
            await conn.json(result(message["id"], tools=[]))
        else:
            await conn.json(tool_reply(message["id"]))

    return behaviour


@pytest.mark.parametrize(("reply", "message"), [
    ({"error": None}, "protocol_error: the response's error is null, not an object with an integer code and a message"),
    ({"error": "boom"},
     "protocol_error: the response's error is \"boom\", not an object with an integer code and a message"),
    ({"result": {"content": 5}}, "protocol_error: the tools/call result's content is 5, not a list"),
    ({"result": {"content": [{"type": "text", "text": "MCP error -32001: Request timed out"}], "isError": True}},
     "the tool reported an error: MCP error -32001: Request timed out"),
])
@pytest.mark.parametrize("as_json", [False, True])
def test_broken_or_failed_results_exit_1_with_one_line(capsys: pytest.CaptureFixture[str], reply: dict[str, Any],
                                                       message: str, as_json: bool) -> None:
    from tests.hostile_http import HostileServer

    with HostileServer(modern_server(lambda request_id: {"jsonrpc": "2.0", "id": request_id, **reply})) as url:
        code, out, err = call(capsys, url, "--tool", "t", *(["--json"] if as_json else []))
    assert (code, err) == (1, f"mrtr-studio call: {message}\n")
    if as_json:
        assert json.loads(out)["rounds"][0]["response"]["id"] == 2


def test_modern_call_against_a_legacy_only_server_says_what_happened(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.hostile_http import Conn, HostileServer, Request

    async def legacy_only(request: Request, conn: Conn) -> None:  # the official TypeScript SDK's answer
        await conn.json({"jsonrpc": "2.0", "error": {"code": -32000, "message": "Bad Request: Server not initialized"},
                         "id": None}, status=400)

    with HostileServer(legacy_only) as url:
        code, _, err = call(capsys, url, "--tool", "t", "--era", "modern")
    assert code == 1
    assert err == ("mrtr-studio call: error -32000 Bad Request: Server not initialized; the server answered with an "
                   "error without id instead of id 2; it does not seem to speak 2026-07-28 (a legacy server answers "
                   "so when there is no session): try --era auto\n")


def test_max_body_bounds_an_endless_body(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.hostile_http import Conn, HostileServer, Request

    async def endless(request: Request, conn: Conn) -> None:
        await conn.start_stream("application/json")
        while True:
            await conn.chunk(b"[" * 65536)

    with HostileServer(endless) as url:
        code, _, err = call(capsys, url, "--tool", "t", "--max-body", "64K")
    assert code == 1
    assert err == (f"mrtr-studio call: transport_error: TransportError: HTTP 200 from {url}: the body is over the "
                   "limit of 65536 bytes (--max-body); stopped reading\n")


@pytest.mark.parametrize("value", ["0", "-5", "lots", "12X"])
def test_max_body_must_be_a_size(capsys: pytest.CaptureFixture[str], value: str) -> None:
    code, _, err = call(capsys, "memory:", "--tool", "t", "--max-body", value)
    assert (code, err) == (2, f"mrtr-studio call: --max-body must be a positive size like 1048576, 512K or 16M, "
                              f"not {value!r}\n")


def test_a_closed_stdout_pipe_exits_quietly(answers: str) -> None:
    import os
    import subprocess

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (`| head`) is already gone when call writes its document
    try:
        run = subprocess.run([sys.executable, "-m", "mrtr_studio", "call", "memory:", "--tool", "delete_file",
                              "--args", '{"path": "/a"}', "--answers", answers, "--json"],
                             stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write_end)
    assert (run.returncode, run.stderr) == (141, "")
