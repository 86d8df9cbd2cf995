"""`mrtr-studio call ... --json` against the official SDK server, as a real subprocess."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def call(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mrtr_studio", "call", *argv], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("era", ["modern", "legacy", "auto"])
def test_call_json_against_the_sdk(sdk_url: str, tmp_path: Path, era: str) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"*": {"action": "accept", "content": {"confirm": True}}}))
    done = call(sdk_url, "--tool", "sdk_delete", "--args", '{"path": "/srv/a"}', "--answers", str(answers),
                "--era", era, "--json")
    assert (done.returncode, done.stderr) == (0, "")
    document = json.loads(done.stdout)
    assert list(document) == ["result", "error", "rounds"]
    assert document["error"] is None
    assert document["result"]["content"] == [{"type": "text", "text": "deleted /srv/a"}]
    if era == "legacy":  # the question travelled as a server request: one round
        assert len(document["rounds"]) == 1
    else:
        first, second = document["rounds"]
        assert list(first["response"]["result"]["inputRequests"]) == list(second["request"]["params"]["inputResponses"])
        assert second["request"]["params"].get("requestState") == first["response"]["result"].get("requestState")


def test_call_sampling_and_roots_in_one_round(sdk_url: str, tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"roots/list": {"roots": [{"uri": "file:///data"}]}}))
    done = call(sdk_url, "--tool", "sdk_summarize_roots", "--args", '{"text": "hello"}', "--answers", str(answers),
                "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["result"]["content"][0]["text"] == "Summarize: hello | roots: file:///data"
    asked = document["rounds"][0]["response"]["result"]["inputRequests"]
    assert sorted(r["method"] for r in asked.values()) == ["roots/list", "sampling/createMessage"]


def test_call_without_the_capability_fails_with_the_reason(sdk_url: str) -> None:
    done = call(sdk_url, "--tool", "sdk_delete", "--args", '{"path": "/a"}', "--caps", "sampling", "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["code"] == -32021
    assert done.stderr.startswith("mrtr-studio call: error -32021 ")
    assert done.stderr.count("\n") == 1
