"""The deprecation lint (SEP-2577 and Dynamic Client Registration): a note, with the spec and what replaces
it, wherever a deprecated feature is used, in either era; nothing for the features that are not; and
`check --fail-on deprecated` turns a use into a failure."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mrtr_studio.trace import lint
from mrtr_studio.trace.deprecation import DEPRECATED_FEATURE, deprecation_findings
from mrtr_studio.trace.model import TraceMessage

from .flows import run, session

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.anyio


def message(kind: str, body: Any, direction: str = "server->client") -> TraceMessage:
    return TraceMessage(1, "op", 1, direction, kind, body, 0.0,  # type: ignore[arg-type]
                        method=body.get("method") if isinstance(body, dict) else None)


def notes(entry: TraceMessage) -> list[str]:
    found = deprecation_findings(entry)
    assert all(f.rule == DEPRECATED_FEATURE and f.severity == "info" for f in found)
    return [f.message for f in found]


def test_each_deprecated_feature_is_named_with_its_spec_and_replacement() -> None:
    asked = message("input_required", {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required", "inputRequests": {
            "r": {"method": "roots/list"}, "s": {"method": "sampling/createMessage", "params": {}},
            "e": {"method": "elicitation/create", "params": {}}}}})
    [roots, sampling] = notes(asked)
    assert "inputRequests['r'] (roots/list): Roots is deprecated in 2026-07-28 (SEP-2577)" in roots
    assert "tool parameters" in roots and roots.endswith("/2026-07-28/client/roots")
    assert "Sampling" in sampling and "LLM provider" in sampling
    legacy = notes(message("server_request", {"jsonrpc": "2.0", "id": 5, "method": "sampling/createMessage"}))
    assert legacy and legacy[0].startswith("the server's request sampling/createMessage: Sampling")
    level = notes(message("request", {"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel"}, "client->server"))
    assert "Logging is deprecated" in level[0] and "OpenTelemetry" in level[0]
    assert "Logging" in notes(message("notification", {"jsonrpc": "2.0", "method": "notifications/message"}))[0]
    dcr = notes(message("auth", {"phase": "client registration", "method": "POST", "url": "https://as/reg"}))
    assert "Dynamic Client Registration is deprecated" in dcr[0] and "Client ID Metadata Documents" in dcr[0]


def test_features_that_are_not_deprecated_get_no_note() -> None:
    assert notes(message("auth", {"phase": "token", "method": "POST", "url": "https://as/token"})) == []
    assert notes(message("request", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                     "params": {"name": "x"}}, "client->server")) == []
    assert notes(message("input_required", {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required", "inputRequests": {"e": {"method": "elicitation/create"}}}})) == []


@pytest.mark.parametrize("era", ["modern", "legacy"])
async def test_a_recorded_sampling_flow_carries_the_note_in_either_era(era: str) -> None:
    client = session(era)
    lint.attach(client.store)
    result = await run(client, "summarize" if era == "modern" else "count_roots", {"text": "t"})
    found = [f for m in client.store.messages_of(result.operation.id) for f in m.findings]
    assert [f.rule for f in found] == [DEPRECATED_FEATURE]
    assert ("Sampling" if era == "modern" else "Roots") in found[0].message


def check(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mrtr_studio", "check", "memory:", "--tool", "summarize",
                           "--args", '{"text": "hi"}', "--json", *flags], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_check_warns_by_default_and_fails_on_deprecated_when_asked() -> None:
    plain, strict = check(), check("--fail-on", "deprecated")
    assert plain.returncode == 0, plain.stderr
    result = next(c for c in json.loads(plain.stdout)["checks"] if c["id"] == DEPRECATED_FEATURE)
    assert result["level"] == "SHOULD" and result["verdict"] == "warn" and "Sampling" in result["evidence"][0]
    assert strict.returncode == 1
    failed = next(c for c in json.loads(strict.stdout)["checks"] if c["id"] == DEPRECATED_FEATURE)
    assert failed["level"] == "MUST" and failed["verdict"] == "fail"
    wrong = check("--fail-on", "roots")
    assert wrong.returncode == 2 and "--fail-on" in wrong.stderr


def test_sarif_reports_a_deprecated_feature_as_a_note(tmp_path: Path) -> None:
    out = tmp_path / "check.sarif"
    assert check("--sarif", str(out)).returncode == 0
    run = json.loads(out.read_text())["runs"][0]
    rule = next(r for r in run["tool"]["driver"]["rules"] if r["id"] == DEPRECATED_FEATURE)
    result = next(r for r in run["results"] if r["ruleId"] == DEPRECATED_FEATURE)
    assert rule["defaultConfiguration"]["level"] == "note" and result["level"] == "note"
    assert "Sampling is deprecated" in result["message"]["text"]
