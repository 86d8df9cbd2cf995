"""`mrtr-studio check-client -- COMMAND`: a correct client passes, a broken retry loop fails by name."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
BAD_CLIENT = Path(__file__).with_name("check_bad_client.py")


def check_client(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mrtr_studio", "check-client", "--timeout", "60", "--json", *argv],
                          capture_output=True, text=True, timeout=100, stdin=subprocess.DEVNULL)


def test_a_correct_client_passes(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"*": {"action": "accept", "content": {"confirm": True}}}))
    done = check_client("--", sys.executable, "-m", "mrtr_studio", "call", "{url}", "--tool", "delete_file",
                        "--args", '{"path": "/a"}', "--answers", str(answers))
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(done.stdout[done.stdout.index("{\n"):])
    assert document["passed"] is True
    assert {c["id"]: c["verdict"] for c in document["checks"]}["retry-loop"] == "pass"


def test_a_broken_retry_loop_fails_naming_each_rule(tmp_path: Path) -> None:
    done = check_client("--junit", str(tmp_path / "j.xml"), "--", sys.executable, str(BAD_CLIENT))
    assert done.returncode == 1, done.stdout + done.stderr
    document = json.loads(done.stdout[done.stdout.index("{\n"):])
    verdicts = {c["id"]: c for c in document["checks"]}
    for failed in ("state-echo", "new-id", "answer-schema", "retry-loop"):
        assert verdicts[failed]["verdict"] == "fail", verdicts[failed]
    assert verdicts["no-mrtr-on-first-call"]["verdict"] == "pass"  # the altered retry is still a retry
    assert "byte for byte" in verdicts["state-echo"]["evidence"][0]
    assert "confirm: 'yes' is not of type 'boolean'" in verdicts["answer-schema"]["evidence"][0]
    assert "testcase" in (tmp_path / "j.xml").read_text()
