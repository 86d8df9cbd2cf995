"""Serve this recording: a right-click on an operation, the menu's entry clicked, and a replay server
on 127.0.0.1 answers a real HTTP client with the recorded round (its URL on the clipboard); stopped
from the Serve menu, the port no longer answers."""

from typing import Any

import httpx
from PySide6.QtGui import QGuiApplication

from mrtr_studio.replay.server import REPLAY_META
from mrtr_studio.ui.main_window import MainWindow
from tests.cli.test_serve_command import META, MODERN

from .recorded_window import opened, recorded  # noqa: F401 - fixtures
from .test_main_window import Runner, arun, until  # noqa: F401 - fixtures
from .test_window_copy_as import click_entry, right_click


async def first_round(url: str) -> httpx.Response:
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "delete_file"}
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "delete_file", "arguments": {"path": "/a"}, "_meta": META}}
    async with httpx.AsyncClient(timeout=10) as client:
        return await client.post(url, json=body, headers=headers)


async def serve_from_menu(qtbot: Any, window: MainWindow, entry: str) -> str:
    """Right-click the first operation, pick `entry`, and wait for its replay server: its URL."""
    studio = window.studio
    operation = studio.store.operations[0]
    table = window.operations.table
    menu = right_click(qtbot, table.viewport(), table.visualRect(window.operations.model.index(0, 1)).center())
    click_entry(qtbot, menu, entry)
    await until(lambda: operation.id in studio.replays.served)
    return studio.replays.served[operation.id].url


def test_serve_a_recorded_operation_then_stop_it(qtbot: Any, opened: MainWindow, arun: Runner) -> None:  # noqa: F811
    studio = opened.studio
    operation = studio.store.operations[0]
    recorded_state = next(m.message["result"]["requestState"] for m in studio.store.messages
                          if m.kind == "input_required")

    async def body() -> None:
        url = await serve_from_menu(qtbot, opened, "serveRecording")
        assert url.startswith("http://127.0.0.1:") and QGuiApplication.clipboard().text() == url
        reply = (await first_round(url)).json()
        assert reply["id"] == 7 and reply["result"]["resultType"] == "input_required"
        assert reply["result"]["requestState"] == recorded_state  # verbatim, as the original server sent it
        assert reply["result"]["_meta"][REPLAY_META]["requestState"] == "verbatim"
        recordings = opened.served_recordings_menu
        recordings.aboutToShow.emit()
        names = {a.objectName(): a for a in recordings.actions()}
        names[f"copyReplay_{operation.id}"].trigger()
        assert QGuiApplication.clipboard().text() == url
        names[f"stopReplay_{operation.id}"].trigger()
        await until(lambda: not studio.replays.served)
        try:
            await first_round(url)
        except httpx.ConnectError:
            pass
        else:
            raise AssertionError("the replay server still answers after Stop")

    try:
        arun(body())
    finally:
        arun(studio.close())


def test_an_operation_without_rounds_is_refused(qtbot: Any, opened: MainWindow, arun: Runner) -> None:  # noqa: F811
    studio = opened.studio
    op = studio.store.begin_operation("tools/list", "", {}, "modern", "embedded")

    async def body() -> None:
        opened.operations.model.flush()
        from mrtr_studio.ui.replay_menu import serve_recording

        serve_recording(opened, op.id)
        await until(lambda: any("nothing to replay" in t for t in opened.errors.texts()))
        assert not studio.replays.served

    arun(body())


def test_serving_with_states_resigned(qtbot: Any, opened: MainWindow, arun: Runner) -> None:  # noqa: F811
    studio = opened.studio
    recorded_state = next(m.message["result"]["requestState"] for m in studio.store.messages
                          if m.kind == "input_required")

    async def body() -> None:
        reply = (await first_round(await serve_from_menu(qtbot, opened, "serveRecordingResigned"))).json()
        state = reply["result"]["requestState"]
        assert state != recorded_state and reply["result"]["_meta"][REPLAY_META]["requestState"] == "resigned"

    try:
        arun(body())
    finally:
        arun(studio.close())
    assert not studio.replays.served
