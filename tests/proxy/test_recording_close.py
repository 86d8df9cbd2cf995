"""How a recording ends: the trace written and the journal dropped, or the journal kept and said why."""

import stat
from pathlib import Path

from mrtr_studio.proxy.recording import Recording
from mrtr_studio.proxy.shutdown import StopRequests
from mrtr_studio.trace import files


def record_one(recording: Recording) -> None:
    recording.tap.emit("client->server", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                          "params": {"name": "t", "arguments": {}}}, exchange=1, transport="test")
    recording.tap.emit("server->client", {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}, exchange=1,
                       transport="test")


def test_a_clean_close_writes_the_trace_and_drops_the_journal(tmp_path: Path) -> None:
    recording = Recording("s", "l", tmp_path / "t.mrtr.json")
    record_one(recording)
    assert stat.S_IMODE(recording.journal_path.stat().st_mode) == 0o600
    assert recording.close(StopRequests()) == tmp_path / "t.mrtr.json"
    assert not recording.journal_path.exists() and recording.kept is None
    assert [op.target for op in files.read_trace(tmp_path / "t.mrtr.json").operations] == ["t"]


def test_stopping_at_once_keeps_the_journal_as_an_openable_trace(tmp_path: Path) -> None:
    recording = Recording("s", "l", tmp_path / "t.mrtr.json")
    record_one(recording)
    stop = StopRequests()
    stop.heard(2)  # SIGINT
    stop.heard(2)  # and again: at once
    assert stop.at_once
    assert recording.close(stop) is None
    assert not (tmp_path / "t.mrtr.json").exists() and list(tmp_path.glob("*.tmp")) == []
    note = recording.kept_note()
    assert note.startswith("stopped at once (Ctrl+C twice)") and "keeps the 1 operation(s) and 2 message(s)" in note
    assert [op.target for op in files.read_trace(recording.journal_path).operations] == ["t"]


def test_more_sigterms_do_not_stop_at_once(tmp_path: Path) -> None:
    stop = StopRequests()
    for _ in range(3):
        stop.heard(15)
    assert not stop.at_once and stop.first_signal == 15
    stop.heard(2)  # a Ctrl+C after them: a person wants it now
    assert stop.at_once


def test_a_trace_that_cannot_be_written_keeps_the_journal_and_says_why(tmp_path: Path) -> None:
    recording = Recording("s", "l", tmp_path / "t.mrtr.json")
    record_one(recording)
    (tmp_path / "t.mrtr.json").mkdir()  # the trace's name is taken by a folder: os.replace fails
    assert recording.close() is None
    assert recording.kept is not None and recording.kept.startswith(f"cannot write {tmp_path / 't.mrtr.json'}")
    assert recording.journal_path.exists() and list(tmp_path.glob("*.tmp")) == []
