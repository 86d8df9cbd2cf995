"""Collections in the window: an operation run against the embedded engine saved from the operations
list's context menu (the file read back with `run`'s loader and run by `mrtr-studio run` itself),
appended to; the collection run from the window, each call an operation in the list, each assertion's
verdict shown; bad files said inline, naming the problem, nothing written or run."""

import asyncio
import contextlib
import json
import stat
import subprocess
import sys
from pathlib import Path

from mrtr_studio.client.collection import load_collection
from mrtr_studio.ui.collections_panel import SaveToCollectionDialog
from mrtr_studio.ui.main_window import MainWindow

from .test_main_window import Runner, arun, run_tool, settings, until, window  # noqa: F401 - fixtures
from .test_window_copy_as import click_entry, right_click


def save_dialog(qtbot: object, win: MainWindow, row: int) -> SaveToCollectionDialog:
    win.operations.model.flush()
    table = win.operations.table
    menu = right_click(qtbot, table.viewport(), table.visualRect(win.operations.model.index(row, 1)).center())
    click_entry(qtbot, menu, "saveToCollection")
    dialog = win.collection_dialog
    assert isinstance(dialog, SaveToCollectionDialog)
    return dialog


def test_save_an_operation_then_run_the_collection(qtbot: object, window: MainWindow, arun: Runner,  # noqa: F811
                                                   tmp_path: Path) -> None:
    studio = window.studio
    window.client_panel.set_era("modern")
    arun(run_tool(window, "delete_file", {"path": "/tmp/a.txt"}))
    op = studio.store.operations[-1]
    assert (op.outcome, op.rounds) == ("complete", 2)
    given = next(m.message["params"]["inputResponses"] for m in studio.store.messages_of(op.id)
                 if m.kind == "request" and "inputResponses" in m.message["params"])
    path = tmp_path / "calls.json"
    dialog = save_dialog(qtbot, window, 0)
    dialog.path.setText(str(path))
    dialog.name.setText("delete confirms")
    dialog.choices["same_inputs"].setChecked(True)
    dialog.choices["same_text"].setChecked(True)
    assert dialog.save(), dialog.error.text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    document = json.loads(path.read_text())
    assert document["environments"] == {"local": {"URL": "memory:"}}
    [call] = load_collection(path, "local")
    assert (call.name, call.target, call.method, call.arguments) == (
        "delete confirms", "memory:", ("tools/call", "delete_file"), {"path": "/tmp/a.txt"})
    assert call.era == "modern" and call.answers == given
    written = document["calls"][0]["assert"]
    assert {"rounds": 2} in written and {"inputsAsked": ["confirm"]} in written
    assert any(a.get("path") == "$.content[0].text" for a in written)
    # the command line runs what the window saved
    ran = subprocess.run([sys.executable, "-m", "mrtr_studio", "run", str(path), "--env", "local"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert ran.returncode == 0, ran.stdout + ran.stderr

    again = save_dialog(qtbot, window, 0)  # appended, under a name of its own, with a failing assertion added
    again.path.setText(str(path))
    again.name.setText("delete confirms")
    assert again.save()
    document = json.loads(path.read_text())
    assert [c["name"] for c in document["calls"]] == ["delete confirms", "delete confirms (2)"]
    document["calls"][1]["assert"].append({"rounds": 5})
    document["calls"].append({"name": "legacy refuses", "target": "${URL}", "tool": "delete_file",
                              "arguments": {"path": "/a"}, "era": "legacy", "assert": [{"errorCode": -32603}]})
    path.write_text(json.dumps(document))

    before = len(studio.store.operations)
    panel = window.collection_panel
    results = arun(panel.run_file(str(path), "local"), 60)
    assert results is not None and panel.error.text() == ""
    assert len(studio.store.operations) == before + 3  # each call an operation in the list
    window.operations.model.flush()
    assert window.operations.model.rowCount() == before + 3
    assert [r.operation_id for r in results] == [o.id for o in studio.store.operations[-3:]]
    assert [o.era for o in studio.store.operations[-3:]] == ["modern", "modern", "legacy"]
    legacy_row = window.operations.model.index_.get(results[2].operation_id)
    assert legacy_row is not None and legacy_row.settings is not None and legacy_row.settings.client["era"] == "legacy"
    shown = panel.verdicts_shown()
    assert ("delete confirms (tools/call delete_file)", "rounds = 2", "pass") in shown
    assert ("delete confirms (tools/call delete_file)", "inputs asked confirm", "pass") in shown
    assert ("delete confirms (2) (tools/call delete_file)", "rounds = 5", "fail") in shown
    assert ("legacy refuses (tools/call delete_file)", "error code -32603", "pass") in shown
    assert "1 failed" in panel.summary.text()
    assert studio.entry.kind == "embedded" and studio.era == "modern"  # the connection given back
    panel.tree.itemClicked.emit(panel.tree.topLevelItem(0), 0)
    assert window.selection.operation_id == results[0].operation_id


def test_bad_collection_files_are_said_inline(qtbot: object, window: MainWindow, arun: Runner,  # noqa: F811
                                              tmp_path: Path) -> None:
    studio = window.studio
    arun(run_tool(window, "greet", {"name": "Ada"}))
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1, "calls": [{"name": "x"}], "colour": "red"}')
    dialog = save_dialog(qtbot, window, 0)
    dialog.path.setText(str(bad))
    assert not dialog.save()
    assert str(bad) in dialog.error.text() and "colour" in dialog.error.text()
    assert json.loads(bad.read_text())["colour"] == "red"  # nothing written
    before = len(studio.store.operations)
    panel = window.collection_panel
    assert arun(panel.run_file(str(bad))) is None
    assert str(bad) in panel.error.text() and "colour" in panel.error.text()
    unsupported = tmp_path / "ftp.json"
    unsupported.write_text(json.dumps({"calls": [{"name": "far", "target": "ftp://x", "tool": "greet"}]}))
    assert arun(panel.run_file(str(unsupported))) is None
    assert "far: unsupported target 'ftp://x'" in panel.error.text()
    assert arun(panel.run_file(str(tmp_path / "missing.json"))) is None
    assert "cannot read" in panel.error.text()
    assert len(studio.store.operations) == before  # nothing ran


def test_a_call_keeps_to_its_round_limit_and_a_run_can_be_stopped(window: MainWindow, arun: Runner,  # noqa: F811
                                                                  tmp_path: Path) -> None:
    studio = window.studio
    panel = window.collection_panel
    confirm = {"confirm": {"action": "accept", "content": {"confirm": True}}}
    limited = tmp_path / "limited.json"
    limited.write_text(json.dumps({"calls": [{"name": "cut short", "target": "memory:", "tool": "delete_file",
                                              "arguments": {"path": "/a"}, "answers": confirm, "maxRounds": 1}]}))
    [result] = arun(panel.run_file(str(limited)), 30)
    assert result.outcome.rounds == 1 and not result.passed
    assert panel.verdicts_shown() == [("cut short (tools/call delete_file)", "completes", "fail")]
    assert studio.connection.max_rounds == 10  # given back
    silent = f"stdio:{sys.executable} -c 'import sys; sys.stdin.read()'"  # never answers; ends when stdin closes
    hanging = tmp_path / "hanging.json"
    hanging.write_text(json.dumps({"calls": [{"name": "never", "target": silent, "tool": "greet"},
                                             {"name": "not reached", "target": "memory:", "tool": "greet"}]}))
    before = len(studio.store.operations)

    async def stop_while_waiting() -> None:
        task = panel.run_file(str(hanging))
        await until(lambda: studio.busy and studio.entry.kind == "stdio")
        assert panel.run_file(str(limited)) is task  # a second run is refused while one runs
        assert panel.error.text() == "A collection is running: Stop it before running another."
        assert panel.stop_button.isEnabled()
        panel.stop_button.click()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        assert task.cancelled()

    arun(stop_while_waiting(), 30)
    assert "stopped after 0 call(s)" in panel.summary.text()
    assert not studio.busy and studio.entry.kind == "embedded"  # the connection given back
    assert len(studio.store.operations) <= before + 1  # "not reached" never ran
    assert all(op.target != "greet" or op.server != "embedded" for op in studio.store.operations[before:])
