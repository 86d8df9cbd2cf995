"""Opening a trace costs the journal a reference, not a copy; a crash reopens the file under the session's work."""

import json
import os
import stat
from pathlib import Path

import pytest

from mrtr_studio.studio.controller import Studio
from mrtr_studio.trace import TraceStore, autosave, files
from tools.synthetic_trace import synthetic_trace

from .test_studio_files import run_delete

pytestmark = pytest.mark.anyio


def folder_size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


async def test_opening_a_large_trace_leaves_the_journal_folder_unchanged_but_for_new_work(tmp_path: Path) -> None:
    trace = files.save(tmp_path / "big.mrtr.json", synthetic_trace(1_000))  # 4,000 messages
    journal_dir = tmp_path / "journal"
    journal = journal_dir / "autosave.mrtr.jsonl"
    studio = Studio()
    studio.start_autosave(journal)
    before = folder_size(journal_dir)
    studio.open_trace(trace)
    assert len(studio.store.messages) == 4_000
    opened = folder_size(journal_dir)
    assert opened - before < 512, opened - before  # a `cleared` and a `source` line: the file is not copied
    assert trace.stat().st_size > 500_000
    await run_delete(studio)
    work = folder_size(journal_dir) - opened
    assert 0 < work < 20_000  # one delete_file flow, four messages
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [r["type"] for r in records[:2]] == ["cleared", "source"]
    assert {r["data"]["operation_id"] for r in records if r["type"] == "message"} == {studio.store.operations[-1].id}
    expected = [m.to_json() for m in studio.store.messages]
    # The process dies here; the next start reopens the file under the session's own work.
    restarted = Studio()
    assert restarted.start_autosave(journal) == 1  # the session's one operation is the recovered work
    assert [m.to_json() for m in restarted.store.messages] == expected
    assert any(f"Reopened {trace}" in text for level, text in restarted.autosave_notices if level == "info")
    new_journal = [json.loads(line) for line in journal.read_text().splitlines()]
    assert sum(r["type"] == "message" for r in new_journal) == 4  # again by reference: only the own work
    await restarted.close()
    again = Studio()
    assert again.start_autosave(journal) == 1
    assert again.reopen_last_session(journal) == 1
    assert [m.to_json() for m in again.store.messages] == expected  # the last session reopens the file too
    await again.close()


@pytest.mark.parametrize("change", ["gone", "changed"])
async def test_a_referenced_file_gone_or_changed_is_said_and_the_own_work_kept(tmp_path: Path, change: str) -> None:
    trace = files.save(tmp_path / "t.mrtr.json", synthetic_trace(20))
    journal = tmp_path / "autosave.mrtr.jsonl"
    studio = Studio()
    studio.start_autosave(journal)
    studio.open_trace(trace)
    await run_delete(studio)  # then the process dies
    if change == "gone":
        trace.unlink()
    else:
        files.save(trace, synthetic_trace(3))
    restarted = Studio()
    assert restarted.start_autosave(journal) == 1
    assert [op.target for op in restarted.store.operations] == ["delete_file"]
    assert len(restarted.store.messages) == 4
    errors = [text for level, text in restarted.autosave_notices if level == "error"]
    said = "is gone" if change == "gone" else "has changed since"
    assert len(errors) == 1 and str(trace.resolve()) in errors[0] and said in errors[0], errors
    assert "not reopened" in errors[0]
    await restarted.close()


async def test_a_task_resumed_on_an_opened_operation_is_journaled_as_own_work(tmp_path: Path) -> None:
    trace = files.save(tmp_path / "t.mrtr.json", synthetic_trace(5))
    journal = tmp_path / "autosave.mrtr.jsonl"
    studio = Studio()
    studio.start_autosave(journal)
    studio.open_trace(trace)
    first = studio.store.operations[0]
    studio.store.note_task(first.id, "task-1", "working", 1)  # a change to the file's operation
    studio.store.record(first.id, 3, "client->server", {"jsonrpc": "2.0", "id": 99, "method": "tasks/get"})
    expected_ops = [op.to_json() for op in studio.store.operations]
    expected = [m.to_json() for m in studio.store.messages]
    restarted = Studio()
    restarted.start_autosave(journal)
    assert [op.to_json() for op in restarted.store.operations] == expected_ops
    assert [m.to_json() for m in restarted.store.messages] == expected
    await restarted.close()


def test_the_journal_is_private_from_its_first_byte(tmp_path: Path) -> None:
    old = os.umask(0)  # even a permissive umask must not make it readable by others
    try:
        journal = autosave.Autosave(TraceStore(), tmp_path / "j.jsonl")
        assert journal.path.stat().st_size == 0
        assert stat.S_IMODE(journal.path.stat().st_mode) == 0o600
        journal.close()
        loose = tmp_path / "loose.jsonl"
        loose.write_text("")
        loose.chmod(0o644)
        again = autosave.Autosave(TraceStore(), loose)
        assert stat.S_IMODE(loose.stat().st_mode) == 0o600  # an existing journal is made private too
        again.close()
    finally:
        os.umask(old)


async def test_saving_the_trace_makes_the_journal_reference_the_saved_file(tmp_path: Path) -> None:
    journal = tmp_path / "autosave.mrtr.jsonl"
    studio = Studio()
    studio.start_autosave(journal)
    for _ in range(3):
        await run_delete(studio)
    grown = journal.stat().st_size
    saved = studio.save_trace(tmp_path / "work.mrtr.json")
    assert journal.stat().st_size < 400 < grown  # the three flows are in the saved file now, referenced
    await studio.run("tools/call", "deploy_wizard", {})  # more work after the save; then the process dies
    expected = [m.to_json() for m in studio.store.messages]
    restarted = Studio()
    assert restarted.start_autosave(journal) == 1  # the wizard: the session's own work since the save
    assert [op.target for op in restarted.store.operations] == ["delete_file"] * 3 + ["deploy_wizard"]
    assert [m.to_json() for m in restarted.store.messages] == expected
    assert any(f"Reopened {saved.resolve()}" in text for _, text in restarted.autosave_notices)
    await restarted.close()


async def test_a_newer_files_fields_survive_a_crash_on_a_changed_operation(tmp_path: Path) -> None:
    from ..trace.test_newer_format import newer_document, write

    trace = write(tmp_path / "newer.mrtr.json", newer_document("1.3"), "lines")
    journal = tmp_path / "autosave.mrtr.jsonl"
    studio = Studio()
    studio.start_autosave(journal)
    studio.open_trace(trace)
    first = studio.store.operations[0]
    studio.store.note_task(first.id, "task-9", "working", 1)  # journaled, with its unknown `tags`
    restarted = Studio()
    restarted.start_autosave(journal)
    again = restarted.store.operation(first.id)
    assert again.task_id == "task-9" and again.extra == {"tags": ["release", "<b>"]}
    saved = restarted.save_trace(tmp_path / "saved.mrtr.json")
    document = json.loads(saved.read_text())
    assert document["version"] == "1.3" and document["producer"] == {"name": "mrtr-studio", "build": "2027.1"}
    assert document["operations"][0]["tags"] == ["release", "<b>"]
    kept = files.read_trace(tmp_path / "autosave.recovered.mrtr.json")  # the kept work, readable, its fields too
    assert kept.newer is not None and kept.operations[0].extra == {"tags": ["release", "<b>"]}
    await restarted.close()
