"""The studio's trace: linted live, saved and opened unchanged, journaled so a crash loses no round."""

from pathlib import Path

import pytest

from mrtr_studio.app.studio import Studio, last_session_path

pytestmark = pytest.mark.anyio


async def run_delete(studio: Studio) -> None:
    await studio.connect()
    result = await studio.run("tools/call", "delete_file", {"path": "/tmp/report.txt"})
    assert result is not None and result.drive.outcome == "complete"


async def test_save_and_open_round_trip(tmp_path: Path) -> None:
    first = Studio()
    await run_delete(first)
    saved = first.save_trace(tmp_path / "flow.mrtr.json")
    second = Studio()
    second.open_trace(saved)
    assert [op.to_json() for op in second.store.operations] == [op.to_json() for op in first.store.operations]
    assert [m.to_json() for m in second.store.messages] == [m.to_json() for m in first.store.messages]
    await first.close()
    await second.close()


async def test_live_lint_flags_an_altered_state() -> None:
    studio = Studio()
    await studio.connect()
    studio.tamper("signature")
    result = await studio.run("tools/call", "delete_file", {"path": "/tmp/report.txt"})
    assert result is not None and result.drive.error is not None and result.drive.error["code"] == -32602
    retry = next(m for m in studio.store.messages if m.kind == "request" and m.round == 2)
    assert "state-altered" in [f.rule for f in retry.findings]
    clean = next(m for m in studio.store.messages if m.kind == "input_required")
    assert clean.findings == []
    await studio.close()


async def test_a_crash_loses_no_completed_round(tmp_path: Path) -> None:
    journal = tmp_path / "autosave.jsonl"
    crashed = Studio()
    assert crashed.start_autosave(journal) == 0
    await run_delete(crashed)
    await crashed.run("tools/call", "deploy_wizard", {})  # a second, three-step flow
    # No close(): the process "dies" here with the journal still in place.
    restarted = Studio()
    assert restarted.start_autosave(journal) == 2
    assert [op.target for op in restarted.store.operations] == ["delete_file", "deploy_wizard"]
    assert [m.to_json() for m in restarted.store.messages] == [m.to_json() for m in crashed.store.messages]
    assert last_session_path(journal).exists()
    await restarted.close()


async def test_clean_exit_keeps_the_session_for_reopening(tmp_path: Path) -> None:
    journal = tmp_path / "autosave.jsonl"
    studio = Studio()
    studio.start_autosave(journal)
    await run_delete(studio)
    await studio.close()
    assert not journal.exists() and last_session_path(journal).exists()
    later = Studio()
    assert later.start_autosave(journal) == 0  # nothing to recover after a clean exit
    assert later.reopen_last_session(journal) == 1
    assert len(later.store.messages) == 4
    await later.close()
