"""roots/list is a question the person sees: the round's dialog shows the roots page and sends
nothing until it is confirmed; answering roots automatically is an explicit setting, off by default."""

import asyncio
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from mrtr_studio.protocol.models import Root
from mrtr_studio.studio.controller import Studio
from mrtr_studio.ui.forms.input_round_dialog import InputRoundDialog
from mrtr_studio.ui.main_window import MainWindow

ROOTS = [Root(uri="file:///home/user/project", name="Project")]


def test_a_roots_request_is_shown_and_sent_only_when_confirmed(qtbot: Any) -> None:
    dialog = InputRoundDialog({"workspace": {"method": "roots/list"}}, "Demo", roots=ROOTS)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    received: list[dict[str, Any]] = []
    dialog.submitted.connect(received.append)
    qtbot.wait(50)  # an automatic answer would have been submitted by now
    assert received == [] and dialog.pending() == ["workspace"]
    page = dialog.page("workspace")
    assert dialog.stack.currentWidget() is page and page.isVisible()
    qtbot.mouseClick(page.send_button, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    assert received == [{"workspace": {"roots": [{"uri": "file:///home/user/project", "name": "Project"}]}}]


def test_the_window_asks_for_roots_unless_told_to_answer_them(qtbot: Any, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(Studio(), settings)
    qtbot.addWidget(win)
    assert not win.auto_roots_action.isChecked()  # off by default

    async def one_round(confirm: bool) -> dict[str, Any]:
        answerer = win.studio.answerer
        assert answerer is not None
        task = asyncio.ensure_future(answerer({"r": {"method": "roots/list"}}, 1))
        for _ in range(200):
            await asyncio.sleep(0.01)
            QApplication.processEvents()  # the dialog's own timers (an automatic answer submits on one)
            dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, InputRoundDialog) and w.isVisible()]
            if task.done() or dialogs:
                break
        if confirm:
            assert not task.done() and dialogs, "answered without asking"
            assert dialogs[-1].pending() == ["r"]  # the person sees the question
            qtbot.mouseClick(dialogs[-1].page("r").send_button, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
        for _ in range(200):
            if task.done():
                break
            await asyncio.sleep(0.01)
            QApplication.processEvents()
        return task.result()

    asked = asyncio.run(one_round(confirm=True))
    assert asked == {"r": {"roots": []}}
    assert not any(isinstance(w, InputRoundDialog) and w.isVisible() for w in QApplication.topLevelWidgets())
    win.auto_roots_action.trigger()  # Run ▸ Answer roots/list automatically
    assert settings.value("answers/auto_roots") in (True, "true")
    answered = asyncio.run(one_round(confirm=False))  # nobody clicks: answered all the same
    assert answered == {"r": {"roots": []}}
    win.studio.stop()
