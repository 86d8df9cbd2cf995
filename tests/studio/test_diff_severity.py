"""Severity of interface differences: what narrows an input schema, widens an output, removes or adds
an entry, drops a capability, newly asks for an input; and `diff --sarif` on a real drift."""

import json
import stat
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mrtr_studio.cli.parser import main
from mrtr_studio.studio.server_diff import Side, compare

SARIF_SCHEMA = json.loads((Path(__file__).parents[2] / "resources" / "sarif-schema" / "sarif-schema-2.1.0.json")
                          .read_text())
BASE = {"name": "t", "description": "d", "inputSchema": {
    "type": "object", "properties": {"path": {"type": "string", "maxLength": 100}, "mode": {"enum": ["a", "b"]}},
    "required": ["path"]}}


def tool_change(change: dict[str, Any]) -> list[tuple[str, str]]:
    before = json.loads(json.dumps(BASE))
    after = json.loads(json.dumps(BASE))
    change_in(after, change)
    report = compare(Side("A", {}, {"tools": [before]}), Side("B", {}, {"tools": [after]}))
    return [(c.what.split(" ")[0], c.severity) for c in report.changes if c.area == "tools"]


def change_in(tool: dict[str, Any], change: dict[str, Any]) -> None:
    schema = tool["inputSchema"]
    if "required" in change:
        schema["required"] = change["required"]
    if "path" in change:
        schema["properties"]["path"] = change["path"]
    if "mode" in change:
        schema["properties"]["mode"] = change["mode"]
    if "drop" in change:
        del schema["properties"][change["drop"]]
    if "extra" in change:
        schema["properties"]["extra"] = {"type": "string"}
    if "additionalProperties" in change:
        schema["additionalProperties"] = change["additionalProperties"]
    if "description" in change:
        tool["description"] = change["description"]


@pytest.mark.parametrize(("change", "expected"), [
    ({"required": ["path", "mode"]}, [("inputSchema.required[1]", "breaking")]),
    ({"path": {"type": "integer", "maxLength": 100}}, [("inputSchema.properties.path.type", "breaking")]),
    ({"path": {"type": "string", "maxLength": 10}}, [("inputSchema.properties.path.maxLength", "breaking")]),
    ({"path": {"type": "string", "maxLength": 1000}}, [("inputSchema.properties.path.maxLength", "warning")]),
    ({"path": {"type": "string", "maxLength": 100, "pattern": "^/"}},
     [("inputSchema.properties.path.pattern", "breaking")]),
    ({"mode": {"enum": ["a"]}}, [("inputSchema.properties.mode.enum[1]", "breaking")]),
    ({"mode": {"enum": ["a", "b", "c"]}}, [("inputSchema.properties.mode.enum[2]", "warning")]),
    ({"drop": "mode"}, [("inputSchema.properties.mode", "breaking")]),
    ({"extra": True}, [("inputSchema.properties.extra", "info")]),
    ({"additionalProperties": False}, [("inputSchema.additionalProperties", "breaking")]),
    ({"description": "other"}, [("description", "info")]),
])
def test_input_schema_changes(change: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert tool_change(change) == expected


def test_removed_and_added_entries_and_capabilities() -> None:
    a = Side("A", {"capabilities": {"tools": {}, "prompts": {}}, "supportedVersions": ["2026-07-28"]},
             {"tools": [{"name": "gone"}, {"name": "kept"}]})
    b = Side("B", {"capabilities": {"tools": {}, "logging": {}}, "supportedVersions": ["2026-07-28"]},
             {"tools": [{"name": "kept"}, {"name": "new"}]})
    report = compare(a, b)
    found = {(c.area, c.subject): c.severity for c in report.changes}
    assert found[("tools", "gone")] == "breaking" and found[("tools", "new")] == "info"
    assert found[("server", "capabilities.prompts")] == "breaking"
    assert found[("server", "capabilities.logging")] == "info"
    assert report.counts() == {"breaking": 2, "warning": 0, "info": 2}
    assert report.to_json()["changes"][0]["severity"] in ("breaking", "info")


def test_diff_sarif_on_a_snapshot_that_drifted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "memory:", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    delete = next(tool for tool in document["tools"] if tool["name"] == "delete_file")
    delete["inputSchema"]["required"] = []  # the engine now requires `path`: narrowed since the snapshot
    snapshot = tmp_path / "before.json"
    snapshot.write_text(json.dumps(document))
    sarif = tmp_path / "drift.sarif"
    assert main(["diff", str(snapshot), "memory:", "--exit-code", "--sarif", str(sarif)]) == 1
    out = capsys.readouterr().out
    assert "  delete_file: inputSchema.required[0] added: 'path'  [breaking]" in out
    assert out.splitlines()[-1] == "1 difference (1 breaking)"
    log = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    [result] = log["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("interface-breaking", "error")
    assert stat.S_IMODE(sarif.stat().st_mode) == 0o600
    assert main(["diff", "memory:", "memory:", "--sarif", str(tmp_path / "none" / "x.sarif")]) == 2
    assert capsys.readouterr().err.startswith("mrtr-studio diff: --sarif: cannot write")
