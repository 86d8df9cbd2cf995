"""`mrtr-studio run COLLECTION.json`: saved calls against the embedded engine and a real `serve`
process, every assertion kind passing and failing, reports (JUnit, SARIF) and clear errors."""

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from mrtr_studio.cli.parser import main
from tests.cli.test_serve_command import serve

CONFIRM = {"confirm": {"action": "accept", "content": {"confirm": True}}}
PASSING = [{"path": "$.content[0].text", "equals": "File deleted"},
           {"path": "$.content[0].text", "matches": "^File del"},
           {"schema": {"type": "object", "required": ["content"]}},
           {"schema": {"type": "string"}, "path": "$.content[0].text"},
           {"rounds": 2}, {"rounds": {">=": 2, "<=": 3}}, {"inputsAsked": ["confirm"]},
           {"durationMs": {"<": 60000}}, {"errorCode": None}]


def collection(tmp_path: Path, calls: list[dict[str, Any]], **extra: Any) -> str:
    path = tmp_path / "collection.json"
    path.write_text(json.dumps({"version": 1, "calls": calls, **extra}))
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_assertion_kind_holds_on_the_embedded_engine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = collection(tmp_path, [
        {"name": "delete", "target": "${URL}", "tool": "delete_file", "arguments": {"path": "/a"},
         "answers": CONFIRM, "assert": PASSING},
        {"name": "legacy refused", "target": "${URL}", "tool": "delete_file", "era": "legacy",
         "arguments": {"path": "/a"}, "assert": [{"errorCode": -32603}, {"rounds": 1}]},
        {"name": "prompt", "target": "${URL}", "prompt": "code_review", "arguments": {"code": "x = 1"},
         "answers": {"*": {"action": "accept", "content": {"focus": "security"}}}},
    ], environments={"here": {"URL": "memory:"}})
    junit, sarif = tmp_path / "out.xml", tmp_path / "out.sarif"
    code, out, err = run(capsys, path, "--env", "here", "--junit", str(junit), "--sarif", str(sarif))
    assert (code, err) == (0, ""), out
    assert out.splitlines()[-1] == f"{len(PASSING) + 3} passed, 0 failed (0 MUST), 0 SHOULD not met, 0 skipped"
    suite = ET.parse(junit).getroot()
    assert suite.get("tests") == str(len(PASSING) + 3) and suite.get("failures") == "0"
    assert json.loads(sarif.read_text())["runs"][0]["results"] == []


def test_failed_assertions_exit_1_with_the_rounds_as_evidence(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = collection(tmp_path, [
        {"name": "wrong", "target": "memory:", "tool": "delete_file", "arguments": {"path": "/a"},
         "answers": {"confirm": {"action": "decline"}},
         "assert": [{"path": "$.content[0].text", "equals": "File deleted"}, {"rounds": 1},
                    {"inputsAsked": []}, {"errorCode": -32602}, {"path": "$.nothing", "matches": "x"},
                    {"schema": {"type": "array"}}, {"durationMs": {"<": 0}}]},
        {"name": "unanswered", "target": "memory:", "tool": "deploy_wizard"},
    ])
    junit = tmp_path / "out.xml"
    code, out, _ = run(capsys, path, "--junit", str(junit), "--json")
    assert code == 1
    checks = {c["id"]: c for c in json.loads(out)["checks"]}
    assert [c["verdict"] for c in checks.values()] == ["fail"] * 8
    assert checks['wrong: $.content[0].text equals "File deleted"']["detail"] == 'found "Operation cancelled"'
    assert checks["wrong: rounds = 1"]["detail"] == "2 rounds"
    assert checks["wrong: $.nothing matches /x/"]["detail"] == "nothing at $.nothing"
    assert checks["wrong: error code -32602"]["detail"] == "no JSON-RPC error"
    assert any(line.startswith("round 1 <-") for line in checks["wrong: rounds = 1"]["evidence"])
    assert "no entry for 'environment'" in checks["unanswered: completes"]["detail"]
    assert ET.parse(junit).getroot().get("failures") == "8"


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_a_real_server_with_the_token_from_the_environment(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MRTR_TEST_TOKEN", "alice-token")
    with serve("--user", "alice:alice-token") as (_, url):
        path = collection(tmp_path, [
            {"name": "as alice", "target": url, "tool": "delete_file", "arguments": {"path": "/a"},
             "identity": "${MRTR_TEST_TOKEN}", "answers": CONFIRM, "assert": PASSING}])
        sarif = tmp_path / "out.sarif"
        code, out, _ = run(capsys, path, "--sarif", str(sarif), "--json")
    assert code == 0, out
    assert "alice-token" not in out and "alice-token" not in sarif.read_text()


@pytest.mark.parametrize(("document", "message"), [
    ({"calls": []}, "calls: List should have at least 1 item"),
    ({"calls": [{"name": "x", "target": "memory:"}]}, "exactly one of tool, prompt, resource"),
    ({"calls": [{"name": "x", "target": "memory:", "tool": "t", "assert": [{"bogus": 1}]}]},
     "calls[0].assert[0]: an assertion is one of"),
    ({"calls": [{"name": "x", "target": "memory:", "tool": "t", "assert": [{"path": "content", "equals": 1}]}]},
     "must start with $"),
    ({"calls": [{"name": "x", "target": "memory:", "tool": "t", "extra": 1}]}, "calls[0].extra: Extra inputs"),
    ({"calls": [{"name": "x", "target": "${UNDEFINED_HERE}", "tool": "t"}]}, "${UNDEFINED_HERE} is not defined"),
    ({"calls": [{"name": "x", "target": "ftp://x", "tool": "t"}]}, "unsupported target"),
    ({"version": 2, "calls": [{"name": "x", "target": "memory:", "tool": "t"}]}, "version: Input should be 1"),
])
def test_a_bad_collection_is_exit_2_naming_the_place(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     document: dict[str, Any], message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    code, out, err = run(capsys, str(path))
    assert code == 2 and out == ""
    assert err.startswith("mrtr-studio run: ") and message in err and len(err.splitlines()) == 1


def test_an_unknown_environment_or_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = collection(tmp_path, [{"name": "x", "target": "memory:", "tool": "greet"}], environments={"a": {}})
    code, _, err = run(capsys, path, "--env", "b")
    assert code == 2 and "--env: no environment 'b'" in err and "(it has: a)" in err
    code, _, err = run(capsys, str(tmp_path / "none.json"))
    assert code == 2 and "cannot read" in err
