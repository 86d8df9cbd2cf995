"""The real window, offscreen, on a qasync loop: runs, eras, capabilities, tampering and step mode.

Each test body is a coroutine run by the qasync loop with a timeout, so slots that spawn tasks
behave as in the application; QSettings live in a temporary ini file, never the user's config.
"""

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from mrtr_studio.studio.controller import Studio
from mrtr_studio.ui.async_bridge import install_event_loop
from mrtr_studio.ui.main_window import MainWindow

Runner = Callable[[Awaitable[Any]], Any]


@pytest.fixture
def arun(qapp: QApplication) -> Iterator[Runner]:
    loop = install_event_loop(qapp)

    def run(coro: Awaitable[Any], timeout: float = 20.0) -> Any:
        return loop.run_until_complete(asyncio.wait_for(coro, timeout))

    yield run
    leftovers = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in leftovers:
        task.cancel()
    if leftovers:
        with contextlib.suppress(Exception):  # a loop already stopping must not turn teardown into a failure
            loop.run_until_complete(asyncio.wait(leftovers, timeout=5))
    loop.close()
    asyncio.set_event_loop(None)


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "studio.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(qtbot: Any, arun: Runner, settings: QSettings) -> Iterator[MainWindow]:
    win = MainWindow(Studio(), settings, interactive_answers=False)
    qtbot.addWidget(win)
    win.show()
    arun(win.start())
    assert win.explorer.current_target() is not None
    yield win
    arun(win.studio.close())


async def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


async def held_at_round_two(win: MainWindow) -> None:
    """Step delete_file until its round-2 retry is held (the state in it, ready to tamper with)."""
    assert win.explorer.select("delete_file", "tool")
    win.controls.step.trigger()
    await until(lambda: win.studio.pending is not None and win.studio.pending.round == 1)
    win.controls.step.trigger()
    await until(lambda: win.studio.pending is not None and win.studio.pending.round == 2)


async def run_tool(win: MainWindow, name: str, arguments: dict[str, Any] | None = None) -> Any:
    assert win.explorer.select(name, "tool")
    if arguments is not None:
        win.arguments.set_arguments(arguments)
    before = len(win.studio.store.operations)
    win.controls.run.trigger()
    await until(lambda: len(win.studio.store.operations) > before and win.studio.state == "idle")
    await asyncio.sleep(0.05)  # views rebuild on zero-timers
    return win.studio.last_result


def diagram_arrows(win: MainWindow) -> dict[int, Any]:
    arrows: dict[int, Any] = getattr(win.diagram, "arrow_items", {})
    return arrows


def log_rows(win: MainWindow) -> int:
    return int(win.log.model.rowCount())


def test_delete_file_two_rounds_in_log_and_four_arrows(window: MainWindow, arun: Runner) -> None:
    result = arun(run_tool(window, "delete_file", {"path": "/tmp/a.txt"}))
    assert result.drive.outcome == "complete"
    op = result.operation
    assert sorted(window.studio.store.rounds_of(op.id)) == [1, 2]
    assert log_rows(window) == 4
    assert len(diagram_arrows(window)) == 4
    assert "complete" in window.statusBar().currentMessage()


def test_legacy_era_draws_32603(window: MainWindow, arun: Runner) -> None:
    window.client_panel.set_era("legacy")
    assert window.studio.era == "legacy"
    result = arun(run_tool(window, "delete_file", {"path": "/tmp/a.txt"}))
    assert result.drive.error["code"] == -32603
    error = next(m for m in window.studio.store.messages_of(result.operation.id) if m.kind == "error")
    assert error.seq in diagram_arrows(window)
    assert any("-32603" in text for text in window.errors.texts())
    assert "-32603" in window.statusBar().currentMessage()


def test_unticked_elicitation_gets_32021(window: MainWindow, arun: Runner) -> None:
    window.client_panel.set_capability("elicitation", False)
    result = arun(run_tool(window, "delete_file", {"path": "/tmp/a.txt"}))
    assert result.drive.error["code"] == -32021
    assert "-32021" in window.errors.latest.text()


def test_tampered_state_is_rejected_and_the_failed_check_highlighted(window: MainWindow, arun: Runner) -> None:
    async def body() -> None:
        await held_at_round_two(window)
        window.controls.tampers["signature"].trigger()
        assert "signature" in window.step_editor.text() or window.studio.pending is not None
        window.controls.continue_.trigger()
        await until(lambda: window.studio.state == "idle")
        await asyncio.sleep(0.05)

    arun(body())
    result = window.studio.last_result
    assert result is not None and result.drive.error["code"] == -32602
    assert result.drive.error["data"]["reason"] == "signature"
    inspector = window.state_inspector
    if hasattr(inspector, "checklist"):
        highlighted = [name for name, _status, bold in inspector.checklist() if bold]
        assert highlighted == ["signature"]


def test_step_mode_edits_an_answer_before_it_is_sent(window: MainWindow, arun: Runner) -> None:
    async def body() -> None:
        assert window.explorer.select("delete_file", "tool")
        window.controls.step.trigger()
        await until(lambda: window.studio.state == "paused")
        assert json.loads(window.step_editor.text())["params"]["name"] == "delete_file"
        window.controls.step.trigger()
        await until(lambda: window.studio.pending is not None and window.studio.pending.round == 2)
        message = json.loads(window.step_editor.text())
        assert message["params"]["inputResponses"]["confirm"]["action"] == "accept"
        window.step_editor.set_text("{ not json")
        assert not window.controls.continue_.isEnabled()
        assert "Invalid JSON" in window.step_editor.error.text()
        window.continue_clicked()  # blocked: still held
        assert window.studio.state == "paused"
        message["params"]["inputResponses"]["confirm"] = {"action": "decline"}
        window.step_editor.set_text(json.dumps(message))
        assert window.controls.continue_.isEnabled()
        window.controls.continue_.trigger()
        await until(lambda: window.studio.state == "idle")

    arun(body())
    result = window.studio.last_result
    assert result is not None and result.drive.result["content"][0]["text"] == "Operation cancelled"
    sent = [m.message for m in window.studio.store.messages_of(result.operation.id) if m.kind == "request"]
    assert sent[1]["params"]["inputResponses"]["confirm"] == {"action": "decline"}


def test_stop_while_held(window: MainWindow, arun: Runner) -> None:
    async def body() -> None:
        window.controls.step.trigger()
        await until(lambda: window.studio.state == "paused")
        window.controls.stop.trigger()
        await until(lambda: window.studio.state == "idle")

    arun(body())
    assert window.studio.last_result is not None and window.studio.last_result.drive.outcome == "aborted"
    assert window.controls.run.isEnabled() and not window.controls.stop.isEnabled()


def test_connection_refused_shows_in_the_window(window: MainWindow, arun: Runner) -> None:
    explorer = window.explorer
    explorer.kind_box.setCurrentIndex(explorer.kind_box.findData("http"))
    explorer.address.setText("http://127.0.0.1:9/mcp")
    explorer.connect_button.click()
    arun(until(lambda: any("cannot connect" in t for t in window.errors.texts())))
    assert "cannot connect" in explorer.status.text()
    assert "cannot connect" in window.statusBar().currentMessage()


def test_bad_arguments_json_blocks_the_run(window: MainWindow, arun: Runner) -> None:
    assert window.explorer.select("delete_file", "tool")
    window.arguments.editor.as_json.setChecked(True)
    window.arguments.editor.text.setPlainText("[1, 2")
    assert window.arguments.arguments() is None
    assert "Not valid JSON" in window.arguments.problem()
    assert not window.launch(step=False)
    assert "cannot be sent" in window.errors.latest.text()
    window.arguments.editor.text.setPlainText('{"path": 3}')
    assert window.arguments.arguments() == {"path": 3}
    assert "schema" in window.arguments.problem()  # a warning, not a block


def test_prompt_and_resource_targets(window: MainWindow, arun: Runner) -> None:
    async def body() -> Any:
        assert window.explorer.select("config://secrets", "resource")
        window.controls.run.trigger()
        await until(lambda: window.studio.state == "idle" and window.studio.last_result is not None)
        return window.studio.last_result

    result = arun(body())
    assert result.operation.method == "resources/read" and result.drive.outcome == "complete"


def test_mcp_servers_import(window: MainWindow, tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {
        "local": {"url": "http://127.0.0.1:8765/mcp"}, "files": {"command": "python", "args": ["-m", "srv"]}}}))
    entries = window.explorer.import_file(str(path))
    assert [e.name for e in entries] == ["local", "files"]
    assert window.explorer.kind_box.currentData() == "http"
    assert window.explorer.address.text() == "http://127.0.0.1:8765/mcp"
    window.explorer.imported_box.setCurrentIndex(1)
    window.explorer._imported_picked(1)
    assert window.explorer.entry().command_line == "python -m srv"


def test_settings_persist_between_windows(qtbot: Any, arun: Runner, settings: QSettings) -> None:
    first = MainWindow(Studio(), settings, interactive_answers=False)
    qtbot.addWidget(first)
    first.client_panel.set_era("legacy")
    first.client_panel.set_identity("bob")
    first.client_panel.set_capability("sampling", False)
    first.close()
    second = MainWindow(Studio(), settings, interactive_answers=False)
    qtbot.addWidget(second)
    assert second.client_panel.era() == "legacy"
    assert second.studio.identity.name == "bob"
    assert "sampling" not in second.studio.capabilities
    assert json.loads(str(settings.value("connection/last")))["kind"] == "embedded"
    second.close()


def run_auto(*args: str) -> Any:
    """`mrtr-studio ARGS --auto` in a fresh, offscreen interpreter."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "mrtr_studio", *args, "--auto"], env=env, timeout=90,
                          capture_output=True, text=True)


@pytest.mark.slow
def test_auto_scenario_saves_one_png_per_step_and_exits_0(tmp_path: Path) -> None:
    out = tmp_path / "shots"
    done = run_auto("--scenario", "missing_capability", "--screenshot-dir", str(out))
    assert done.returncode == 0, done.stderr
    assert "-32021" in done.stdout
    assert sorted(p.name for p in out.glob("*.png")) == ["01-ready.png", "02-round1-before-send.png",
                                                          "03-error.png"]


@pytest.mark.slow
def test_auto_teaching_scenario_runs_a_lesson_in_the_window(tmp_path: Path) -> None:
    out = tmp_path / "lesson"
    done = run_auto("--scenario", "lesson:wizard", "--screenshot-dir", str(out))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.glob("*.png")) == ["01-ready.png", "02-done.png"]
    unknown = run_auto("--scenario", "lesson:nope")
    assert unknown.returncode == 2 and "lesson:confirm-delete" in unknown.stderr


def test_interactive_answers_use_the_round_dialog(qtbot: Any, arun: Runner, settings: QSettings) -> None:
    from mrtr_studio.ui.forms.input_round_dialog import InputRoundDialog

    win = MainWindow(Studio(), settings, interactive_answers=True)
    qtbot.addWidget(win)
    win.show()

    def dialogs() -> list[Any]:
        return [w for w in QApplication.topLevelWidgets() if isinstance(w, InputRoundDialog) and w.isVisible()]

    async def body() -> None:
        await win.start()
        assert win.explorer.select("delete_file", "tool")
        win.controls.run.trigger()
        await until(lambda: bool(dialogs()))
        dialogs()[0].cancel()  # cancelling ends the run aborted, with the reason shown
        await until(lambda: win.studio.state == "idle")
        op = win.studio.store.operations[-1]
        assert op.outcome == "aborted" and "cancelled" in (op.problem or "")
        assert any("cancelled" in text for text in win.errors.texts())
        win.controls.run.trigger()
        await until(lambda: bool(dialogs()))
        dialogs()[0].answer_rest_automatically()
        await until(lambda: win.studio.state == "idle")

    arun(body())
    result = win.studio.last_result
    assert result is not None and result.drive.outcome == "complete"
    arun(win.studio.close())


def test_trace_save_open_and_flow_export_from_the_window(window: MainWindow, arun: Runner, tmp_path: Path) -> None:
    result = arun(run_tool(window, "delete_file", {"path": "/tmp/a.txt"}))
    op_id = result.operation.id
    window.export_flow(op_id, str(tmp_path / "flow.html"))
    page = (tmp_path / "flow.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 1 and "File deleted" in page
    window.export_flow(op_id, str(tmp_path / "flow.md"))
    assert "```mermaid\nsequenceDiagram" in (tmp_path / "flow.md").read_text(encoding="utf-8")
    window.save_trace(str(tmp_path / "t.mrtr.json"))
    window.studio.store.clear()
    arun(asyncio.sleep(0.05))
    assert log_rows(window) == 0
    window.open_trace(str(tmp_path / "t.mrtr.json"))
    arun(asyncio.sleep(0.05))
    assert log_rows(window) == 4
    window.open_trace(str(tmp_path / "missing.mrtr.json"))
    assert any("Cannot open" in text and "missing.mrtr.json" in text for text in window.errors.texts())


def test_serving_the_engine_records_an_outside_client(window: MainWindow, arun: Runner) -> None:
    from mrtr_studio.client.auto_answers import auto_respond
    from mrtr_studio.client.session import ClientSession
    from mrtr_studio.client.settings import ClientSettings
    from mrtr_studio.transport.http_client import HttpClientTransport

    window.serve_action.trigger()
    arun(until(lambda: window.studio.serving_url is not None))
    assert window.serve_action.isChecked()
    url = window.studio.serving_url
    assert url is not None
    before = log_rows(window)

    async def outside() -> Any:
        session = ClientSession(HttpClientTransport(url), ClientSettings(era="modern"), auto_respond)
        try:
            return await session.call_tool("delete_file", {"path": "/tmp/outside.txt"})
        finally:
            await session.close()

    assert arun(outside()).drive.outcome == "complete"
    arun(asyncio.sleep(0.1))
    assert log_rows(window) == before + 4
    window.serve_action.trigger()
    arun(until(lambda: window.studio.serving_url is None))
    assert not window.serve_action.isChecked()


def test_explorer_says_when_client_settings_changed(window: MainWindow, arun: Runner) -> None:
    assert "(modern)" in window.explorer.status.text()
    window.studio.set_era("legacy")
    assert "next run uses the new client settings (legacy era)" in window.explorer.status.text()
    result = arun(run_tool(window, "count_roots", {}))
    assert result.operation.era == "legacy"
    assert "(legacy)" in window.explorer.status.text()
