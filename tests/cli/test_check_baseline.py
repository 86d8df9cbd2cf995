"""`check --write-baseline` / `--baseline`: the interface drift gate, on the embedded engine and a real
`serve` process, with SARIF carrying the drift."""

import json
import os
import stat
from pathlib import Path

import pytest

from mrtr_studio.cli.parser import main
from tests.cli.test_serve_command import serve


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_a_baseline_written_from_one_server_gates_another(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = tmp_path / "baseline.json"
    code, _, _ = check(capsys, "memory:", "--write-baseline", str(baseline))
    assert code == 0 and stat.S_IMODE(os.stat(baseline).st_mode) == 0o600
    document = json.loads(baseline.read_text())
    assert "delete_file" in {tool["name"] for tool in document["tools"]}
    with serve() as (_, url):
        code, out, _ = check(capsys, url, "--baseline", str(baseline))
        assert code == 0 and "PASS    interface-drift" in out
        document["tools"] = [tool for tool in document["tools"] if tool["name"] != "greet"]
        document["prompts"][0]["description"] = "changed"
        baseline.write_text(json.dumps(document))
        sarif = tmp_path / "drift.sarif"
        code, out, _ = check(capsys, url, "--baseline", str(baseline), "--sarif", str(sarif))
    assert code == 1
    assert "tools: greet: only in" in out and "prompts: code_review: description changed: 'changed' ->" in out
    (result,) = json.loads(sarif.read_text())["runs"][0]["results"]
    assert result["ruleId"] == "interface-drift" and result["level"] == "error"


def test_a_bad_baseline_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = check(capsys, "memory:", "--baseline", str(tmp_path / "none.json"))
    assert code == 2 and err.startswith("mrtr-studio check: --baseline: cannot read")
    other = tmp_path / "other.json"
    other.write_text('{"format": "mrtr-studio-trace"}')
    code, _, err = check(capsys, "memory:", "--baseline", str(other))
    assert code == 2 and "is not a `mrtr-studio list --json` document" in err
    assert check(capsys, "memory:")[0] == 2  # still: no --tool and no baseline is a usage error
