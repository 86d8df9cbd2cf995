"""The autosave journal: replay equals the store; a process killed mid-flow keeps every completed round."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mrtr_studio.trace import TraceStore, autosave, files
from mrtr_studio.trace.reopen import with_source
from tools.synthetic_trace import synthetic_trace

from .flows import run, session

pytestmark = pytest.mark.anyio


async def test_recover_equals_the_store_after_normal_runs(tmp_path: Path) -> None:
    client = session()
    journal = autosave.Autosave(client.store, tmp_path / "journal.jsonl")
    await run(client, "delete_file", {"path": "/a"})
    await run(client, "deploy_wizard")
    journal.close()
    recovery = autosave.recover(tmp_path / "journal.jsonl")
    assert recovery.damage is None
    assert files.to_document(recovery.operations, recovery.messages) == files.to_document(client.store.operations,
                                                                                          client.store.messages)


def test_torn_last_line_and_several_runs_in_one_journal(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    op = {"id": "a", "method": "tools/call", "target": "t", "arguments": {}, "era": "modern", "server": "s",
          "started": 0.0}
    msg = {"seq": 0, "operation_id": "a", "round": 1, "direction": "client->server", "kind": "request",
           "message": {}, "timestamp": 0.0}
    lines = [{"type": "operation", "data": op}, {"type": "message", "data": msg},
             {"type": "operation", "data": {**op, "id": "b"}},
             {"type": "message", "data": {**msg, "operation_id": "b"}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"type": "mess')
    recovery = autosave.recover(path)
    assert recovery.damage is None  # a torn last line is what a crash leaves: not damage
    operations, messages = recovery.operations, recovery.messages
    assert [(op.id, op.outcome, op.problem) for op in operations] == [
        ("a", "aborted", "interrupted: recovered from the autosave"),
        ("b", "aborted", "interrupted: recovered from the autosave")]
    assert [(m.operation_id, m.seq) for m in messages] == [("a", 0), ("b", 1)]


OPERATION = {"id": "a", "method": "tools/call", "target": "t", "arguments": {}, "era": "modern", "server": "s",
             "started": 0.0, "outcome": "complete"}
MESSAGE = {"seq": 0, "operation_id": "a", "round": 1, "direction": "client->server", "kind": "request",
           "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}, "timestamp": 0.0}
DAMAGE = {
    "a number": ("5", "line 3: "),
    "a record without data": ('{"type": "message"}', "line 3: data: Field required"),
    "a record with a field too many": (json.dumps({"type": "message", "data": MESSAGE, "when": 1}),
                                       "line 3: when: Extra inputs are not permitted"),
    "a string seq": (json.dumps({"type": "message", "data": {**MESSAGE, "seq": "3"}}),
                     "line 3: data.seq: Input should be a valid integer (got '3')"),
    "an unknown type": ('{"type": "colour", "data": {}}', "line 3: "),
    "a message of an operation never started": (
        json.dumps({"type": "message", "data": {**MESSAGE, "operation_id": "z"}}),
        "line 3: data.operation_id: no operation 'z' before it"),
    "a torn line in the middle": ('{"type": "operation", "da', "line 3: Invalid JSON"),
    "not UTF-8": ('{"type": "cleared"}\udcff', "line 3: "),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_a_damaged_line_ends_the_replay_there_and_says_where(tmp_path: Path, case: str) -> None:
    bad, expected = DAMAGE[case]
    later = json.dumps({"type": "operation", "data": {**OPERATION, "id": "b"}})
    path = tmp_path / "j.jsonl"
    good = [json.dumps({"type": "operation", "data": OPERATION}), json.dumps({"type": "message", "data": MESSAGE})]
    text = "\n".join([*good, bad, later]) + "\n"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    recovery = autosave.recover(path)
    assert recovery.damage is not None and recovery.damage.startswith(expected), recovery.damage
    assert [op.id for op in recovery.operations] == ["a"]  # the valid prefix, nothing after the damage
    assert [m.message for m in recovery.messages] == [MESSAGE["message"]]


CRASHING_CLIENT = """
import asyncio, os, signal, sys
sys.path.insert(0, {root!r})
from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.trace.autosave import Autosave
from mrtr_studio.transport.memory import MemoryTransport

async def answer(key, request, round_number):
    if round_number == 3:  # round 3 has completed: its input_required is in
        os.kill(os.getpid(), signal.SIGKILL)  # the person's answer never comes: the process dies mid-flow
    return {{"action": "accept", "content": {{"environment": "production", "version": "9"}}}}

async def main():
    client = ClientSession(MemoryTransport(build_demo_server()), ClientSettings(), R.compose(elicitation=answer))
    Autosave(client.store, sys.argv[1])
    await client.run("tools/call", "delete_file", {{"path": "/x"}})
    await client.run("tools/call", "deploy_wizard", {{}})

asyncio.run(main())
"""


@pytest.mark.slow
def test_killed_mid_flow_restores_every_completed_round(tmp_path: Path) -> None:
    script = tmp_path / "crash.py"
    root = str(Path(__file__).resolve().parents[2])
    script.write_text(textwrap.dedent(CRASHING_CLIENT.format(root=root)))
    journal = tmp_path / "journal.jsonl"
    proc = subprocess.run([sys.executable, str(script), str(journal)], timeout=60, capture_output=True)
    assert proc.returncode == -9, proc.stderr.decode()
    recovery = autosave.recover(journal)
    operations, messages = recovery.operations, recovery.messages
    assert recovery.damage is None
    assert [(op.target, op.outcome) for op in operations] == [("delete_file", "complete"),
                                                             ("deploy_wizard", "aborted")]
    wizard = operations[1]
    assert wizard.problem == "interrupted: recovered from the autosave"
    flow = [(m.round, m.kind) for m in messages if m.operation_id == wizard.id]
    assert flow == [(1, "request"), (1, "input_required"), (2, "request"), (2, "input_required"),
                    (3, "request"), (3, "input_required")]
    asked = [m.message["result"]["inputRequests"] for m in messages
             if m.operation_id == wizard.id and m.kind == "input_required"]
    assert [list(a) for a in asked] == [["environment"], ["version"], ["confirm"]]
    assert os.path.getsize(journal) > 0


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs Linux's /dev/full")
def test_a_full_disk_stops_the_journal_not_the_recording(tmp_path: Path) -> None:
    store = TraceStore()
    problems: list[str] = []
    journal = autosave.Autosave(store, tmp_path / "j.jsonl", on_problem=problems.append)
    assert journal._file is not None
    journal._file.close()
    journal._file = open("/dev/full", "ab")  # noqa: SIM115 - a full disk: every flush fails with ENOSPC
    op = store.begin_operation("tools/call", "t", {}, "modern", "embedded")
    store.record(op.id, 1, "client->server", {"jsonrpc": "2.0", "id": 1, "method": "tools/call"})
    assert len(store.messages) == 1  # recorded all the same
    assert problems and "The autosave stopped" in problems[0]
    journal.close()


def test_the_journal_holds_one_trace_however_often_one_is_opened(tmp_path: Path) -> None:
    trace = files.save(tmp_path / "t.mrtr.json", synthetic_trace(50))
    store = TraceStore()
    journal = autosave.Autosave(store, tmp_path / "j.jsonl")
    files.load_into(store, trace)
    assert journal._file is not None
    journal._file.flush()
    once = journal.path.stat().st_size
    for _ in range(5):
        files.load_into(store, trace)
    journal.close()
    assert journal.path.stat().st_size == once
    recovery = autosave.recover(journal.path)
    assert recovery.source is not None and recovery.source.path == str(trace.resolve())
    assert (recovery.operations, recovery.messages) == ([], [])  # the file is referenced, not copied
    reopened = with_source(recovery.source, recovery.operations, recovery.messages)
    assert files.to_document(reopened.operations, reopened.messages) == files.to_document(store.operations,
                                                                                          store.messages)
