"""`mrtr-studio check` as a process: exit 0 against `serve`, exit 1 naming the broken check against
small servers that accept tampered states or forget requiredCapabilities; JUnit XML as CI reads it."""

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.transport.serve_process import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
BAD_SERVER = Path(__file__).with_name("check_bad_server.py")


def check(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mrtr_studio", "check", *argv], capture_output=True, text=True,
                          timeout=100, stdin=subprocess.DEVNULL)


def junit(path: Path) -> tuple[ET.Element, list[ET.Element]]:
    """The JUnit structure CI systems read: testsuites > testsuite > testcase [> failure | skipped]."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert int(suite.get("tests", "-1")) == len(cases) == int(root.get("tests", "-1")) > 0
    failures = [c for c in cases if c.find("failure") is not None]
    assert int(suite.get("failures", "-1")) == len(failures) == int(root.get("failures", "-1"))
    assert int(suite.get("skipped", "-1")) == sum(1 for c in cases if c.find("skipped") is not None)
    assert suite.get("errors") == "0"
    for case in cases:
        assert case.get("name") and case.get("classname") in ("mrtr.MUST", "mrtr.SHOULD")
        assert len([child for child in case if child.tag in ("failure", "skipped")]) <= 1
    for case in failures:
        failure = case.find("failure")
        assert failure is not None and failure.get("message") and failure.get("type") == "MUST" and failure.text
    return suite, failures


def by_id(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in document["checks"]}


def test_check_against_serve_passes_every_must(tmp_path: Path) -> None:
    with serve("--user", "alice:alice-token", "--user", "bob:bob-token") as served:
        done = check(served.url, "--tool", "delete_file", "--args", '{"path": "/a"}', "--tool", "count_roots",
                     "--identity", "alice-token", "--identity", "bob-token", "--json",
                     "--junit", str(tmp_path / "junit.xml"), "--sarif", str(tmp_path / "check.sarif"))
    assert done.returncode == 0, done.stdout + done.stderr
    for written in (done.stdout, (tmp_path / "junit.xml").read_text(), (tmp_path / "check.sarif").read_text()):
        assert "alice-token" not in written and "bob-token" not in written  # identities masked everywhere
    assert json.loads((tmp_path / "check.sarif").read_text())["version"] == "2.1.0"
    document = json.loads(done.stdout)
    assert document["passed"] is True
    checks = by_id(document)
    assert {c["verdict"] for c in checks.values() if c["level"] == "MUST"} == {"pass"}
    for name in ("delete_file: lab flip-signature", "delete_file: capability-error", "header-mirroring",
                 "schema-valid", "response-ids", "delete_file: state-echo", "delete_file: lab other-identity"):
        assert checks[name]["verdict"] == "pass", checks[name]
    assert "requiredCapabilities" in checks["delete_file: capability-error"]["detail"]
    _, failures = junit(tmp_path / "junit.xml")
    assert failures == []


def test_a_server_accepting_tampered_states_fails_naming_the_check(tmp_path: Path) -> None:
    done = check(f"stdio:{sys.executable} {BAD_SERVER} accept-tampered", "--tool", "confirm_tool",
                 "--junit", str(tmp_path / "junit.xml"))
    assert done.returncode == 1, done.stdout + done.stderr
    failed = [line.split()[2:5] for line in done.stdout.splitlines() if line.startswith("MUST   FAIL")]
    assert ["confirm_tool:", "lab", "flip-signature"] in failed and ["confirm_tool:", "lab", "invent"] in failed
    assert '"resultType":"complete"' in done.stdout  # the wire evidence: the tampered retry completed
    _, failures = junit(tmp_path / "junit.xml")
    names = {case.get("name") for case in failures}
    assert "confirm_tool: lab flip-signature" in names and "confirm_tool: capability-error" not in names
    failure = next(c for c in failures if c.get("name") == "confirm_tool: lab truncate").find("failure")
    assert failure is not None and "accepted" in (failure.text or "")


def test_a_server_forgetting_required_capabilities_fails_naming_the_check() -> None:
    done = check(f"stdio:{sys.executable} {BAD_SERVER} forget-caps", "--tool", "confirm_tool", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    document = json.loads(done.stdout)
    failed = [c["id"] for c in document["checks"] if c["verdict"] == "fail"]
    assert failed == ["confirm_tool: capability-error"]
    evidence = by_id(document)["confirm_tool: capability-error"]["evidence"]
    assert evidence[-1].startswith("<- ") and '"code":-32021' in evidence[-1]


def test_usage_errors_exit_2() -> None:
    assert check("memory:").returncode == 2
    done = check("memory:", "--tool", "delete_file", "--args", "[1]")
    assert done.returncode == 2 and "JSON object" in done.stderr


def test_a_state_minted_in_round_two_is_attacked_and_a_forgeable_one_fails() -> None:
    """A server that asks first and mints a plain `step=confirmed` only in round 2: every state attack
    runs on round 2's state, and writing that state by hand into a fresh request deploys: MUST FAIL."""
    done = check(f"stdio:{sys.executable} {BAD_SERVER} late-plain", "--tool", "confirm_tool", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    checks = {c["id"]: c for c in json.loads(done.stdout)["checks"]}
    assert "confirm_tool: lab flip-signature round 2" in checks
    assert "round(s) 2" in checks["confirm_tool: state-echo"]["detail"]
    invent = checks["confirm_tool: lab invent round 2"]
    assert invent["verdict"] == "fail" and "by hand" in invent["title"] + invent["detail"], invent
    assert all(c["verdict"] != "skipped" for i, c in checks.items() if i.startswith("confirm_tool: lab flip"))


def test_a_rejection_with_another_code_passes_the_must_and_warns_on_the_code() -> None:
    done = check(f"stdio:{sys.executable} {BAD_SERVER} late-signed", "--tool", "confirm_tool", "--json")
    checks = {c["id"]: c for c in json.loads(done.stdout)["checks"]}
    for attack in ("flip-signature", "flip-payload", "truncate", "invent"):
        assert checks[f"confirm_tool: lab {attack} round 2"]["verdict"] == "pass", checks
    code = checks["confirm_tool: rejection-code round 2"]
    assert (code["level"], code["verdict"]) == ("SHOULD", "warn") and "-32600" in code["detail"], code
    must_failed = [i for i, c in checks.items() if c["level"] == "MUST" and c["verdict"] == "fail"]
    assert "confirm_tool: lab invent round 2" not in must_failed
