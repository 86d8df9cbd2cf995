"""tools/conformance.py plans every listed server scenario at each wire, and says why it leaves any out."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]

LISTING = """Server scenarios (test against a server):
  - server-initialize [2025-06-18,2025-11-25]
  - completion-complete [2025-06-18,2025-11-25,2026-07-28]
  - server-stateless [2026-07-28]
  - ancient-only [2024-11-05]
  - tasks-lifecycle [extension]
  - sep-2640-skills-directory [extension]
  - some-new-extension [extension]

Client scenarios (test against a client):
  - initialize [2025-06-18,2025-11-25]
"""


def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("conformance_tool", ROOT / "tools" / "conformance.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_listing_keeps_server_scenarios_only() -> None:
    listed = tool().parse_listing(LISTING)
    assert [name for name, _ in listed] == ["server-initialize", "completion-complete", "server-stateless",
                                            "ancient-only", "tasks-lifecycle", "sep-2640-skills-directory",
                                            "some-new-extension"]
    assert listed[1][1] == ["2025-06-18", "2025-11-25", "2026-07-28"]


def test_plan_runs_each_wire_and_explains_what_it_leaves_out() -> None:
    conformance = tool()
    runs, skipped = conformance.plan(conformance.parse_listing(LISTING), conformance.WIRES)
    labels = [run.label for run in runs]
    assert labels == ["server-initialize @ 2025-11-25", "completion-complete @ 2025-11-25",
                      "completion-complete @ 2026-07-28", "server-stateless @ 2026-07-28",
                      "tasks-lifecycle @ extension", "sep-2640-skills-directory @ extension",
                      "some-new-extension @ extension"]
    assert set(skipped) == {"ancient-only"}  # the skills scenarios run now that the demo serves skills
    assert "2024-11-05" in skipped["ancient-only"]


def test_every_expected_failure_names_a_wire_that_runs() -> None:
    conformance = tool()
    for scenario, wire in conformance.EXPECTED_FAILURES:
        assert wire in conformance.WIRES and scenario not in conformance.NOT_RUN
        assert conformance.EXPECTED_FAILURES[(scenario, wire)]


def test_a_run_whose_checks_were_all_skipped_counts_as_skipped_not_passed(capsys: pytest.CaptureFixture[str]) -> None:
    conformance = tool()
    skipped = conformance.summarize("tasks-lifecycle @ extension", [
        {"id": "a", "status": "SKIPPED"}, {"id": "b", "status": "SKIPPED"}, {"id": "c", "status": "INFO"}], 0, "")
    passed = conformance.summarize("server-initialize @ 2025-11-25", [
        {"id": "a", "status": "SUCCESS"}, {"id": "b", "status": "SKIPPED"}], 0, "")
    assert skipped.all_skipped and not skipped.passed and not skipped.failed
    assert passed.passed and not passed.all_skipped
    conformance.print_outcome(skipped)
    runs = [conformance.Run("tasks-lifecycle", "extension"), conformance.Run("server-initialize", "2025-11-25")]
    conformance.print_summary([skipped, passed], runs, {})
    out = capsys.readouterr().out
    assert "[skip ] tasks-lifecycle @ extension" in out
    assert "extension     0 passed,  0 failed, 0 expected to fail, 1 skipped" in out
    assert "2025-11-25    1 passed,  0 failed, 0 expected to fail, 0 skipped" in out
