"""A real HTTP recording (a `serve` process on loopback, `mrtr-studio call` recording it) opened in the
real window: the fixtures of the export, copy-as, filter and replay tests of the window."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings

from mrtr_studio.cli.parser import main
from mrtr_studio.studio.controller import Studio
from mrtr_studio.ui.main_window import MainWindow
from tests.cli.test_serve_command import serve

ANSWERS = {"confirm": {"action": "accept", "content": {"confirm": True}}}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Two operations over HTTP with a bearer token: delete_file (two rounds) and echo."""
    folder = tmp_path_factory.mktemp("recorded")
    answers = folder / "answers.json"
    answers.write_text(json.dumps(ANSWERS))
    trace = folder / "flow.mrtr.json"
    with serve("--user", "alice:alice-token") as (_, url):
        assert main(["call", url, "--tool", "delete_file", "--args", '{"path": "/a"}', "--answers", str(answers),
                     "--bearer", "alice-token", "--trace", str(trace)]) == 0
    yield trace


@pytest.fixture
def opened(qtbot: Any, tmp_path: Path, recorded: Path) -> MainWindow:
    """The window (not connected anywhere) showing the recording, its one operation selected."""
    window = window_on(qtbot, tmp_path, recorded)
    window.selection.select_operation(window.studio.store.operations[0].id)
    return window


def window_on(qtbot: Any, tmp_path: Path, trace: Path) -> MainWindow:
    """A window (not connected anywhere) that opened `trace`, its log filled."""
    window = MainWindow(Studio(), QSettings(str(tmp_path / "studio.ini"), QSettings.Format.IniFormat),
                        interactive_answers=False)
    qtbot.addWidget(window)
    window.show()
    window.open_trace(str(trace))
    qtbot.waitUntil(lambda: window.log.model.rowCount() > 0)
    return window


def accept_preview(qtbot: Any, window: MainWindow) -> Any:
    """The redaction preview an export or a copy opened: wait for its text, then press Save… or Copy."""
    from PySide6.QtCore import Qt

    qtbot.waitUntil(lambda: getattr(window, "redaction_preview", None) is not None)
    dialog = window.redaction_preview
    qtbot.waitUntil(lambda: dialog.prepared is not None)
    qtbot.mouseClick(dialog.action, Qt.MouseButton.LeftButton)
    return dialog
