"""`trace export|copy --redact FILE` on a trace recorded from a real `serve` over HTTP: the profile's
header names, JSON paths and patterns are masked in the HAR (read back by haralyzer) and in the copied
curl, the counts are printed, and a bad profile is exit 2 with one line naming the rule."""

import json
import shlex
from pathlib import Path

import pytest
from haralyzer import HarParser

from mrtr_studio.trace import files
from mrtr_studio.trace.redaction_profiles import TIMES
from tests.cli.test_trace_commands import recorded, run, server  # noqa: F401 - fixtures

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
PROFILE = {"name": "paths", "base": "default", "headers": ["Mcp-Name"],
           "paths": ["$.params.arguments.path"], "patterns": [{"name": "deleted", "regex": "File deleted"}]}


def test_a_profile_file_masks_headers_paths_and_patterns_in_the_har(
        recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    profile = tmp_path / "paths.json"
    profile.write_text(json.dumps(PROFILE))
    out = tmp_path / "flow.har"
    code, _, err = run(capsys, "trace", "export", str(recorded), "--har", str(out), "--redact", str(profile))
    assert code == 0
    assert f"$.params.arguments.path {TIMES}2" in err and f"Mcp-Name header {TIMES}" in err
    assert f"pattern deleted {TIMES}1" in err and f"Authorization header {TIMES}" in err
    entries = HarParser(json.loads(out.read_text())).pages[0].entries
    calls = [e for e in entries if '"tools/call"' in (e.request.text or "")]
    assert [json.loads(e.request.text)["params"]["arguments"] for e in calls] == [{"path": "***"}] * 2
    sent = {h["name"].lower(): h["value"] for h in calls[0].request.headers}
    assert sent["mcp-name"] == "***" and sent["authorization"] == "Bearer ***" and sent["mcp-method"] == "tools/call"
    assert json.loads(calls[1].response.text)["result"]["content"][0]["text"] == "***"
    _, messages = files.open_trace(recorded)
    assert any('"/a"' in m.message_json().decode() for m in messages)  # the trace itself is untouched


def test_copy_takes_the_profile(recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    profile = tmp_path / "paths.json"
    profile.write_text(json.dumps(PROFILE))
    _, messages = files.open_trace(recorded)
    seq = next(m.seq for m in messages if m.kind == "request" and m.method == "tools/call")
    code, out, _ = run(capsys, "trace", "copy", str(recorded), "--seq", str(seq), "--as", "curl",
                       "--redact", str(profile))
    words = shlex.split(out)
    assert code == 0 and json.loads(words[words.index("--data-binary") + 1])["params"]["arguments"] == {"path": "***"}
    assert "Mcp-Name: ***" in words


@pytest.mark.parametrize(("document", "message"), [
    ({"paths": ["params.path"]}, "paths[0]: JSON path 'params.path': must start with $"),
    ({"patterns": ["(x"]}, "patterns[0]: '(x' is not a regular expression"),
])
def test_a_bad_profile_is_exit_2_naming_the_rule(recorded: Path, tmp_path: Path,  # noqa: F811
                                                 capsys: pytest.CaptureFixture[str], document: object,
                                                 message: str) -> None:
    profile = tmp_path / "bad.json"
    profile.write_text(json.dumps(document))
    code, _, err = run(capsys, "trace", "export", str(recorded), "--har", str(tmp_path / "x.har"),
                       "--redact", str(profile))
    assert code == 2 and f"--redact: {profile}: {message}" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.har").exists()
