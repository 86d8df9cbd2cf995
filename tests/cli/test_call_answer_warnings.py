"""`call --answers`: an answer that breaks its question's requestedSchema is still sent, with one
warning line on stderr naming the key, the field and the schema's type."""

import json
from pathlib import Path

import pytest

from mrtr_studio.client.answer_check import answer_warnings
from tests.cli.test_call import call


def test_a_string_for_a_boolean_is_sent_with_a_warning(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"confirm": {"action": "accept", "content": {"confirm": "yes"}}}))
    code, out, err = call(capsys, "memory:", "--tool", "delete_file", "--args", '{"path": "/a"}',
                          "--answers", str(path), "--json")
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0] == ('mrtr-studio call: warning: answers file: "confirm": "confirm" is "yes" (string), '
                        'but the schema\'s type is "boolean" (sent as given)')
    document = json.loads(out)
    sent = document["rounds"][1]["request"]["params"]["inputResponses"]
    assert sent == {"confirm": {"action": "accept", "content": {"confirm": "yes"}}}  # sent as written
    assert code in (0, 1)  # whatever the server made of it, the call ran


def test_a_fitting_answer_warns_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"confirm": {"action": "accept", "content": {"confirm": True}}}))
    code, _, err = call(capsys, "memory:", "--tool", "delete_file", "--args", '{"path": "/a"}',
                        "--answers", str(path))
    assert (code, err) == (0, "")


def test_the_checks_themselves() -> None:
    request = {"method": "elicitation/create", "params": {"message": "m", "requestedSchema": {
        "type": "object", "properties": {"age": {"type": "integer", "minimum": 18},
                                         "na\u001bme": {"type": "string"}}, "required": ["age"]}}}
    assert answer_warnings("k", request, {"action": "decline"}) == []
    assert answer_warnings("k", request, {"action": "accept", "content": {"age": 20}}) == []
    [low] = answer_warnings("k", request, {"action": "accept", "content": {"age": 3}})
    assert '"age"' in low and "18" in low
    [typed] = answer_warnings("k", request, {"action": "accept", "content": {"age": 20, "na\u001bme": 5}})
    assert "\u001b" not in typed and "\\u001b" in typed and '"string"' in typed  # escaped for the terminal
    [missing] = answer_warnings("k", request, {"action": "accept", "content": {}})
    assert '"age"' in missing
    assert answer_warnings("k", {"method": "sampling/createMessage"}, {"whatever": 1}) == []


def test_a_pattern_from_the_server_is_escaped_before_the_terminal() -> None:
    from mrtr_studio.cli.call import answer_warning

    request = {"method": "elicitation/create", "params": {"message": "m", "requestedSchema": {
        "type": "object", "properties": {"code": {"type": "string", "pattern": "^x\u001b[2Jz$"}}}}}
    [line] = answer_warnings("k", request, {"action": "accept", "content": {"code": "y"}})
    shown = answer_warning(line)
    assert "\u001b" not in shown and "[2J" in shown and shown.startswith("mrtr-studio call: warning: ")
