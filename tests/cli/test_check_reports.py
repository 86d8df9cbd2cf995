"""The check reports (check_report, sarif): identities masked in every writer, a peer's control characters
escaped for the terminal, JUnit well-formed whatever the text, SARIF valid against the OASIS schema."""

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema

from mrtr_studio.cli.check_report import (
    CheckResult,
    json_document,
    junit_tree,
    mask_identity,
    print_table,
    terminal_text,
    write_junit,
    xml_text,
)
from mrtr_studio.cli.sarif import sarif_document, write_sarif

SCHEMA = json.loads((Path(__file__).parents[2] / "resources" / "sarif-schema" / "sarif-schema-2.1.0.json")
                    .read_text(encoding="utf-8"))
TOKEN = "alice-token"
HOSTILE = "\x1b[2J\x1b]0;title\x07\x00\x0b\u202e\ud800\ufffe\u2028\x9b1m"  # \x9b: the C1 CSI


def results() -> list[CheckResult]:
    return [
        CheckResult("state-echo", "the retry echoes the requestState", "MUST", "pass"),
        CheckResult("other-identity", f"a state minted for {TOKEN} is refused", "MUST", "fail",
                    f"Bearer {TOKEN} got a result", [f'-> {{"headers":{{"authorization":"Bearer {TOKEN}"}}}}',
                                                    f"key {HOSTILE}"]),
        CheckResult("adapts", "the handler adapts", "SHOULD", "warn", "no -32021", ["<- {}"]),
        CheckResult("tasks", "tasks", "SHOULD", "skipped", "not declared"),
    ]


def test_mask_identity_masks_each_secret_and_its_json_spelling() -> None:
    assert mask_identity("Bearer alice-token and alice-token-2", ["alice-token"]) == "Bearer *** and ***-2"
    assert mask_identity("a long-secret b", ["long", "long-secret"]) == "a *** b"  # the longer one first
    quoted = 'tok"en\\x'
    assert mask_identity(json.dumps({"t": quoted}), [quoted]) == '{"t": "***"}'
    assert mask_identity("nothing here", ["", "absent"]) == "nothing here"


def test_every_writer_masks_the_identities(tmp_path: Path) -> None:
    out = io.StringIO()
    print_table(f"http://h/mcp?t={TOKEN}", results(), out, secrets=[TOKEN])
    document = json.dumps(json_document(f"http://h/mcp?t={TOKEN}", results(), secrets=[TOKEN]))
    write_junit(tmp_path / "j.xml", TOKEN, results(), secrets=[TOKEN])
    write_sarif(tmp_path / "r.sarif", TOKEN, results(), secrets=[TOKEN])
    for text in (out.getvalue(), document, (tmp_path / "j.xml").read_text(encoding="utf-8"),
                 (tmp_path / "r.sarif").read_text(encoding="utf-8")):
        assert TOKEN not in text and "Bearer ***" in text
    unmasked = io.StringIO()
    print_table("t", results(), unmasked)  # no secrets given: nothing to mask
    assert f"Bearer {TOKEN}" in unmasked.getvalue()


def test_the_terminal_table_escapes_control_and_bidi_characters() -> None:
    out = io.StringIO()
    print_table(f"target {HOSTILE}", [CheckResult(f"id{HOSTILE}", f"title{HOSTILE}", "MUST", "fail",
                                                  f"detail{HOSTILE}", [f"evidence{HOSTILE}"])], out, era="legacy")
    text = out.getvalue()
    assert not any(c in text for c in "\x1b\x07\x00\x0b\u202e\ud800\u2028\x9b")
    assert text.count("\\u2028\\x9b1m") == 5
    assert text.count("\\x1b[2J\\x1b]0;title\\x07\\x00\\x0b\\u202e\\ud800") == 5  # target, id, title, detail, evidence
    assert "era judged: legacy (2025-11-25 rules" in text
    assert terminal_text("plain é ✓ text") == "plain é ✓ text"


def test_junit_is_well_formed_whatever_the_peer_sent(tmp_path: Path) -> None:
    write_junit(tmp_path / "j.xml", f"target {HOSTILE}", results())
    root = ET.parse(tmp_path / "j.xml").getroot()  # expat rejects any character XML 1.0 forbids
    failure = root.find(".//testcase[@name='other-identity']/failure")
    assert failure is not None and "key \\x1b[2J\\x1b]0;title\\x07\\x00\\x0b\u202e\\ud800\\ufffe" in failure.text
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("name", "").endswith("\\x1b[2J\\x1b]0;title\\x07\\x00\\x0b\u202e\\ud800\\ufffe\u2028\x9b1m")
    assert xml_text("tab\tnewline\ncr\r ok") == "tab\tnewline\ncr\r ok"  # what XML allows stays
    assert junit_tree("t", results()).getroot().get("failures") == "1"


def test_sarif_is_valid_with_one_rule_per_check_and_results_for_fail_and_warn(tmp_path: Path) -> None:
    checks = [*results(), CheckResult("state-echo", "the retry echoes the requestState", "MUST", "fail", "again")]
    write_sarif(tmp_path / "r.sarif", "http://127.0.0.1:8765/mcp", checks)
    log = json.loads((tmp_path / "r.sarif").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["state-echo", "other-identity", "adapts", "tasks"]
    assert [r["defaultConfiguration"]["level"] for r in rules] == ["error", "error", "warning", "warning"]
    found = [(r["ruleId"], r["level"], r["ruleIndex"]) for r in run["results"]]
    assert found == [("other-identity", "error", 1), ("adapts", "warning", 2), ("state-echo", "error", 0)]
    assert run["invocations"][0]["exitCode"] == 1
    location = run["results"][0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "http://127.0.0.1:8765/mcp"


def test_sarif_of_a_command_target_with_hostile_text_stays_valid() -> None:
    log = sarif_document(f"python client.py {HOSTILE}", results(), tool="mrtr-studio check-client")
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    json.dumps(log).encode("ascii")  # written as ASCII: a lone surrogate cannot break the file
    (run,) = log["runs"]
    assert "physicalLocation" not in run["results"][0]["locations"][0]
    assert run["tool"]["driver"]["name"] == "mrtr-studio check-client"
    assert sarif_document("t", results()[:1])["runs"][0]["results"] == []
