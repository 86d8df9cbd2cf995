"""`mrtr-studio diff A B`: live servers (the studio's engine, the Python SDK's server), recordings of
flows that went differently, a recording made by a real proxy against a live engine."""

import json
import sys
from pathlib import Path

import pytest

from mrtr_studio.cli.parser import main
from tests.cli.test_serve_command import serve
from tests.interop.proxy_process import proxy

SDK_SERVER = Path(__file__).resolve().parents[1] / "interop" / "sdk_server.py"
CONFIRM = {"confirm": {"action": "accept", "content": {"confirm": True}}}


def diff(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["diff", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def record(tmp_path: Path, name: str, *flags: str, target: str = "memory:") -> str:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(CONFIRM))
    trace = tmp_path / f"{name}.mrtr.json"
    main(["call", target, "--tool", "delete_file", "--args", '{"path": "/a"}', "--answers", str(answers),
          "--trace", str(trace), *flags])
    return str(trace)


def test_the_same_engine_twice_has_no_differences(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = diff(capsys, "memory:", "memory:", "--exit-code")
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "no differences"


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_the_engine_against_the_python_sdk_server(capsys: pytest.CaptureFixture[str]) -> None:
    sdk = f"stdio:{sys.executable} {SDK_SERVER} stdio"
    code, out, _ = diff(capsys, "memory:", sdk, "--exit-code", "--json")
    assert code == 1
    report = json.loads(out)
    changes = {(c["area"], c["subject"]): c for c in report["changes"]}
    assert changes[("tools", "delete_file")]["what"] == "only in memory:"
    assert changes[("tools", "sdk_delete")]["what"] == f"only in {sdk}"
    assert changes[("prompts", "sdk_review")]["what"] == f"only in {sdk}"
    assert changes[("server", "serverInfo.name")]["counted"] is False
    assert diff(capsys, "memory:", sdk)[0] == 0  # without --exit-code a difference is not a failure


def test_two_recordings_whose_flows_differ(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    modern = record(tmp_path, "modern")
    legacy = record(tmp_path, "legacy", "--era", "legacy")
    capsys.readouterr()
    code, out, _ = diff(capsys, modern, legacy, "--exit-code")
    assert code == 1
    assert "flows:" in out
    assert "  tools/call delete_file #1: rounds: 2 -> 1" in out
    assert "  tools/call delete_file #1: round 1 asks: confirm -> (no such round)" in out
    assert "  tools/call delete_file #1: outcome: complete -> error (-32603)" in out
    assert diff(capsys, modern, modern, "--exit-code")[0] == 0


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_a_proxy_recording_has_the_flows_the_client_recorded(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    with serve() as (_, upstream), proxy(upstream, tmp_path / "proxied.mrtr.json") as proxied:
        own = record(tmp_path, "client-side", target=proxied.url)
        proxied.stop()
    capsys.readouterr()
    code, out, _ = diff(capsys, str(proxied.trace_path), own, "--exit-code", "--json")
    report = json.loads(out)
    assert code == 0 and report["changes"] == [], report
    code, out, _ = diff(capsys, str(proxied.trace_path), record(tmp_path, "legacy", "--era", "legacy"),
                        "--exit-code")
    assert code == 1 and "outcome: complete -> error (-32603)" in out


def test_a_saved_listing_is_a_drift_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "memory:", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    snapshot = tmp_path / "before.json"
    snapshot.write_text(json.dumps(document))
    assert diff(capsys, str(snapshot), "memory:", "--exit-code")[0] == 0
    tools = document["tools"]
    delete = next(tool for tool in tools if tool["name"] == "delete_file")
    delete["inputSchema"]["properties"]["path"]["type"] = "integer"
    delete["annotations"] = {"destructiveHint": False}
    document["tools"] = [tool for tool in tools if tool["name"] != "greet"]
    snapshot.write_text(json.dumps(document))
    code, out, _ = diff(capsys, str(snapshot), "memory:", "--exit-code")
    assert code == 1
    assert "  greet: only in memory:" in out
    assert "  delete_file: inputSchema.properties.path.type changed: 'integer' -> 'string'" in out
    assert '  delete_file: annotations removed (was {"destructiveHint": false})' in out


def test_bad_sources_are_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = diff(capsys, str(tmp_path / "nothing.mrtr.json"), "memory:")
    assert code == 2 and err.startswith("mrtr-studio diff: cannot read") and len(err.splitlines()) == 1
