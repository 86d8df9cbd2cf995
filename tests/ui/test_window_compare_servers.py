"""Compare servers… in the window: the current connection (the embedded engine) against a real
`mrtr-studio serve` on loopback started with a draft tool, and against the official Python SDK's
server over stdio; each removed tool listed as breaking, the report saved as text and as SARIF (valid
against the OASIS schema, 0600); a side that never answers ends at the timeout with an inline error;
this window's trace against a recording whose flow went otherwise shows the flows' differences."""

import json
import stat
import subprocess
import sys
from pathlib import Path

import jsonschema

from mrtr_studio.ui.compare_servers_view import CompareServersView
from mrtr_studio.ui.main_window import MainWindow
from tests.cli.test_serve_command import serve

from .test_main_window import Runner, arun, run_tool, settings, window  # noqa: F401 - fixtures

SDK_SERVER = Path(__file__).resolve().parents[1] / "interop" / "sdk_server.py"
SARIF_SCHEMA = json.loads((Path(__file__).parents[2] / "resources" / "sarif-schema" / "sarif-schema-2.1.0.json")
                          .read_text())


def open_view(win: MainWindow) -> CompareServersView:
    file = next(a.menu() for a in win.menuBar().actions() if a.text() == "&File")
    action = next(a for a in file.actions() if a.objectName() == "compareServersAction")
    action.trigger()
    view = win.compare_servers
    assert isinstance(view, CompareServersView) and view.isVisible()
    return view


def compared(arun: Runner, view: CompareServersView) -> None:  # noqa: F811
    task = view.compare_now()
    assert task is not None, view.error.text()
    arun(task, 60)


def test_a_served_draft_tool_is_removed_in_the_embedded_engine(window: MainWindow, arun: Runner,  # noqa: F811
                                                               tmp_path: Path) -> None:
    view = open_view(window)
    operations = len(window.studio.store.operations)
    with serve("--draft", "sep-2643") as (_, url):
        view.a.set("other", url)
        view.b.set("connection")
        compared(arun, view)
    assert view.error.text() == ""
    rows = view.changes_shown()
    assert ("breaking", "list_folder", f"only in {url}") in rows, rows
    assert not any(subject == "delete_file" for _, subject, _ in rows)  # the same tool on both sides
    assert "breaking" in view.summary.text()
    assert len(window.studio.store.operations) == operations  # listing to compare is not traffic of the trace
    text_report = tmp_path / "diff.txt"
    sarif = tmp_path / "diff.sarif"
    assert view.save_report(str(text_report)) and view.save_report(str(sarif))
    assert f"  list_folder: only in {url}  [breaking]" in text_report.read_text()
    log = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    results = log["runs"][0]["results"]
    removed = next(r for r in results if "list_folder" in r["message"]["text"])
    assert (removed["ruleId"], removed["level"]) == ("interface-breaking", "error")
    assert removed["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "tools/list_folder"
    for path in (text_report, sarif):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_python_sdk_server_over_stdio_lacks_the_studio_tools(window: MainWindow,  # noqa: F811
                                                                 arun: Runner) -> None:  # noqa: F811
    view = open_view(window)
    sdk = f"stdio:{sys.executable} {SDK_SERVER} stdio"
    view.b.set("other", sdk)
    compared(arun, view)
    assert view.error.text() == ""
    rows = view.changes_shown()
    current = "embedded demo engine (current connection)"
    assert ("breaking", "delete_file", f"only in {current}") in rows, rows
    assert ("info", "sdk_delete", f"only in {sdk}") in rows


def test_a_side_that_never_answers_is_an_inline_error(window: MainWindow, arun: Runner,  # noqa: F811
                                                      tmp_path: Path) -> None:
    view = open_view(window)
    view.timeout = 1.0
    silent = f"stdio:{sys.executable} -c 'import sys; sys.stdin.read()'"  # waits for stdin to close, says nothing
    view.b.set("other", silent)
    compared(arun, view)
    assert view.error.text().startswith("B: ") and "no answer within 1 s" in view.error.text()
    assert view.summary.text() == "Not compared." and view.run_button.isEnabled()
    view.a.set("other", f"stdio:{tmp_path / 'no-such-server'}")
    compared(arun, view)
    error = view.error.text()
    assert error.startswith(f"A: cannot connect to stdio:{tmp_path / 'no-such-server'}") and "; B: " in error, error
    view.b.set("other", "nonsense")
    assert view.compare_now() is None
    assert "'nonsense' is not a server or a file" in view.error.text()


def test_this_windows_trace_against_a_recording_whose_flow_failed(window: MainWindow, arun: Runner,  # noqa: F811
                                                                  tmp_path: Path) -> None:
    arun(run_tool(window, "delete_file", {"path": "/a"}))
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"confirm": {"action": "accept", "content": {"confirm": True}}}))
    legacy = tmp_path / "legacy.mrtr.json"
    # A process of its own: the command's asyncio.run must not take the window's event loop away.
    subprocess.run([sys.executable, "-m", "mrtr_studio", "call", "memory:", "--tool", "delete_file", "--args",
                    '{"path": "/a"}', "--answers", str(answers), "--era", "legacy", "--trace", str(legacy)],
                   capture_output=True, timeout=60, check=False)
    assert legacy.is_file()
    view = open_view(window)
    view.a.set("trace")
    view.b.set("other", str(legacy))
    compared(arun, view)
    rows = view.changes_shown()
    assert ("breaking", "tools/call delete_file #1", "outcome: complete -> error (-32603)") in rows, rows
    assert ("info", "tools/call delete_file #1", "rounds: 2 -> 1") in rows
