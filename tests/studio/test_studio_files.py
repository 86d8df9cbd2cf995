"""The studio's trace: linted live, saved and opened unchanged, journaled so a crash loses no round."""

import asyncio
import json
from pathlib import Path

import pytest

from mrtr_studio.studio.controller import Studio, last_session_path
from mrtr_studio.trace import files
from mrtr_studio.trace.file_format import TraceFileError
from tools.synthetic_trace import synthetic_trace

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


JOURNAL_START = [
    {"type": "operation", "data": {"id": "a", "method": "tools/call", "target": "delete_file", "arguments": {},
                                   "era": "modern", "server": "embedded", "started": 0.0, "outcome": "complete"}},
    {"type": "message", "data": {"seq": 0, "operation_id": "a", "round": 1, "direction": "client->server",
                                 "kind": "request", "message": {"jsonrpc": "2.0", "id": 1}, "timestamp": 0.0}},
]
DAMAGED_LINES = {
    "a number": "5",
    "a record without data": '{"type": "message"}',
    "a record with an extra field": json.dumps({**JOURNAL_START[1], "extra": 1}),
}


@pytest.mark.parametrize("case", list(DAMAGED_LINES))
async def test_a_damaged_journal_is_kept_aside_and_the_studio_starts(tmp_path: Path, case: str) -> None:
    journal = tmp_path / "autosave.mrtr.jsonl"
    text = "".join(json.dumps(line) + "\n" for line in JOURNAL_START) + DAMAGED_LINES[case] + "\n"
    journal.write_text(text)
    studio = Studio()
    assert studio.start_autosave(journal) == 1  # what came before the damage
    assert [op.id for op in studio.store.operations] == ["a"]
    [aside] = tmp_path.glob("autosave.damaged-*.mrtr.jsonl")
    assert aside.read_text() == text  # kept byte for byte
    errors = [text for level, text in studio.autosave_notices if level == "error"]
    assert len(errors) == 1 and str(aside) in errors[0] and "line 3" in errors[0]
    await run_delete(studio)  # the new journal works
    await studio.close()
    again = Studio()
    assert again.start_autosave(journal) == 1  # started cleanly; the recovered operation is still kept
    assert again.reopen_last_session(journal) == 2
    await again.close()


async def test_a_journal_that_cannot_be_written_does_not_stop_the_studio(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    studio = Studio()
    assert studio.start_autosave(blocker / "autosave.mrtr.jsonl") == 0
    assert studio.autosave is None
    assert any("autosave is off" in text for _, text in studio.autosave_notices)
    await run_delete(studio)
    await studio.close()


async def test_recovered_operations_survive_clean_quits_until_discarded(tmp_path: Path) -> None:
    journal = tmp_path / "autosave.mrtr.jsonl"
    crashed = Studio()
    crashed.start_autosave(journal)
    await run_delete(crashed)
    await crashed.run("tools/call", "deploy_wizard", {})
    # No close(): the process "dies" with the journal in place.
    after_crash = Studio()
    assert after_crash.start_autosave(journal) == 2
    await run_delete(after_crash)
    await after_crash.close()  # a clean quit
    later = Studio()
    assert later.start_autosave(journal) == 2  # still kept, still shown
    assert any("until you discard them" in text for _, text in later.autosave_notices)
    assert later.reopen_last_session(journal) == 3  # the last session has the recovered work and its own
    assert [op.target for op in later.store.operations] == ["delete_file", "deploy_wizard", "delete_file"]
    assert later.discard_recovered() == 2
    assert [op.target for op in later.store.operations] == ["delete_file"]
    assert later.discard_recovered() == 0
    await later.close()
    last = Studio()
    assert last.start_autosave(journal) == 0  # discarded: gone from the trace, the journal and the kept file
    assert last.reopen_last_session(journal) == 1
    await last.close()


async def test_open_trace_reports_a_bad_file_and_keeps_the_trace(tmp_path: Path) -> None:
    studio = Studio()
    await run_delete(studio)
    saved = studio.save_trace(tmp_path / "t.mrtr.json")
    document = json.loads(saved.read_text())
    document["operations"][0]["answer_seconds"] = []
    saved.write_text(json.dumps(document))
    before = [m.to_json() for m in studio.store.messages]
    with pytest.raises(TraceFileError, match=r"operations\[0\]\.answer_seconds: Input should be an object"):
        studio.open_trace(saved)
    saved.write_text("[" * 100_000)
    with pytest.raises(ValueError, match="recursion limit"):
        studio.open_trace(saved)
    assert [m.to_json() for m in studio.store.messages] == before
    await studio.close()


async def test_a_large_trace_opens_while_the_loop_keeps_running(tmp_path: Path) -> None:
    path = files.save(tmp_path / "big.mrtr.json", synthetic_trace(5_000))
    studio = Studio()
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0)
    started = ticks
    await studio.open_trace_in_background(path)
    ticker.cancel()
    assert len(studio.store.messages) == 20_000
    assert ticks - started > 1  # other tasks ran while the file was being read
    with pytest.raises(ValueError, match="cannot read"):
        await studio.open_trace_in_background(tmp_path / "missing.mrtr.json")
    await studio.close()


async def test_the_trace_is_not_replaced_under_a_running_operation(tmp_path: Path) -> None:
    studio = Studio()
    await studio.connect()
    saved = studio.save_trace(tmp_path / "empty.mrtr.json")
    task = studio.start("tools/call", "delete_file", {"path": "/tmp/a"}, step=True)
    for _ in range(1000):  # held before its first send
        if studio.pending is not None:
            break
        await asyncio.sleep(0.01)
    assert studio.pending is not None
    with pytest.raises(ValueError, match="stop the running operation before opening a trace"):
        studio.open_trace(saved)
    with pytest.raises(ValueError, match="stop the running operation"):
        await studio.open_trace_in_background(saved)
    assert studio.reopen_last_session(tmp_path / "autosave.mrtr.jsonl") == 0
    assert "stop the running operation" in (studio.last_error or "")
    studio.continue_()
    result = await task
    assert result is not None and result.drive.outcome == "complete"  # its record was never pulled away
    studio.open_trace(saved)  # idle again: allowed
    assert studio.store.operations == []
    await studio.close()


async def test_a_second_crash_keeps_both_crashes_work_once(tmp_path: Path) -> None:
    journal = tmp_path / "autosave.mrtr.jsonl"
    first = Studio()
    first.start_autosave(journal)
    await run_delete(first)  # then the process dies
    second = Studio()
    assert second.start_autosave(journal) == 1
    await second.run("tools/call", "deploy_wizard", {})  # and dies again
    third = Studio()
    assert third.start_autosave(journal) == 2  # the first crash's operation once, the second's new one
    assert [op.target for op in third.store.operations] == ["delete_file", "deploy_wizard"]
    assert [m.seq for m in third.store.messages] == list(range(len(third.store.messages)))
    await third.close()
