"""`mrtr-studio replay TRACE --against URL`: the recorded SDK client's flows, driven again through the
round-trip machine, are the same against a fresh `serve` (exit 0 with --exit-code) and differ against a
changed server (exit 1), with the difference listed on the round where it shows."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.replay.processes import command, environment, replay_server
from tests.transport.serve_process import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
CHANGED = Path(__file__).with_name("changed_server.py")


def replay(trace: Path, against: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command("replay", str(trace), "--against", against, *flags), env=environment(),
                          capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)


def test_against_the_original_server_nothing_differs(sdk_recording: Path) -> None:
    with serve() as served:
        done = replay(sdk_recording, served.url, "--exit-code", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(done.stdout)
    assert document["differs"] is False
    flows = [(f["flow"], f["era"], f["outcome"], len(f["rounds"])) for f in document["flows"]]
    assert flows == [("tools/call delete_file", "modern", "complete", 2),
                     ("tools/call deploy_wizard", "modern", "complete", 4),
                     ("prompts/get code_review", "modern", "complete", 2),
                     ("tools/call count_roots", "legacy", "complete", 1)]
    wizard = document["flows"][1]["rounds"]
    assert [r["now"]["asked"] for r in wizard[:3]] == [{"environment": "elicitation/create"},
                                                      {"version": "elicitation/create"},
                                                      {"confirm": "elicitation/create"}]
    assert all(r["now"]["ms"] > 0 and r["recorded"]["ms"] is not None for r in wizard)


def test_against_a_changed_server_the_differences_are_listed_and_exit_1(sdk_recording: Path) -> None:
    done = replay(sdk_recording, f"stdio:{sys.executable} {CHANGED}", "--exit-code")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "tools/call delete_file (modern, recorded" in lines[0] and "DIFFERS; aborted, recorded complete" in lines[0]
    assert '    differs: inputs asked {"sure":"elicitation/create"}, recorded {"confirm":"elicitation/create"}' in lines
    assert "  differs: round 1: the server asks for ['sure'], the recording answered only ['confirm']" in lines
    assert any("tools/call deploy_wizard" in line and ": same;" in line for line in lines)
    assert any(line.startswith('    differs: result {"content":[{"text":"2 roots"') for line in lines)
    assert "2 of 4 flow(s) differ" in done.stderr


def test_without_exit_code_a_difference_still_exits_0(sdk_recording: Path) -> None:
    done = replay(sdk_recording, f"stdio:{sys.executable} {CHANGED}")
    assert done.returncode == 0 and "DIFFERS" in done.stdout


def test_bad_input_is_a_one_line_usage_error(sdk_recording: Path, tmp_path: Path) -> None:
    wrong_url = replay(sdk_recording, "ftp://example")
    assert wrong_url.returncode == 2 and wrong_url.stderr.startswith("mrtr-studio replay: --against must be")
    missing = replay(tmp_path / "none.mrtr.json", "http://127.0.0.1:9/mcp")
    assert missing.returncode == 2 and len(missing.stderr.splitlines()) == 1


def test_a_call_trace_replayed_against_its_own_replay_server_is_the_same(tmp_path: Path) -> None:
    """Recorded by the studio's own client (`call --trace`), served back re-signed, played again: no difference."""
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"environment": {"action": "accept", "content": {"environment": "staging"}},
                                   "version": {"action": "accept", "content": {"version": "2.0.0"}},
                                   "*": {"action": "accept", "content": {"confirm": True}}}))
    trace = tmp_path / "call.mrtr.json"
    with serve() as served:
        recorded = subprocess.run(command("call", served.url, "--tool", "deploy_wizard", "--answers", str(answers),
                                          "--trace", str(trace)), env=environment(), capture_output=True, text=True,
                                  timeout=60, stdin=subprocess.DEVNULL)
    assert recorded.returncode == 0, recorded.stderr
    with replay_server(trace, "--state", "resign") as replaying:
        done = replay(trace, replaying.url, "--exit-code", "--json")
        replaying.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    (flow,) = json.loads(done.stdout)["flows"]
    assert (flow["flow"], flow["outcome"], len(flow["rounds"])) == ("tools/call deploy_wizard", "complete", 4)
    assert "round 3: input_required (requestState resigned)" in replaying.stderr
