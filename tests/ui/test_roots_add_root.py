"""Add root on the roots page opens the new row's URI for editing: what the person types goes into
it, and Return commits the edit instead of pressing "Add root" a second time."""

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit

from mrtr_studio.ui.forms.input_round_dialog import InputRoundDialog


def test_typing_after_add_root_fills_the_new_row_and_return_sends_it(qtbot: Any) -> None:
    dialog = InputRoundDialog({"workspace": {"method": "roots/list"}}, "Demo", roots=[])
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    received: list[dict[str, Any]] = []
    dialog.submitted.connect(received.append)
    page = dialog.page("workspace")
    editor = page.editor  # type: ignore[attr-defined]
    qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)
    QApplication.processEvents()
    focused = QApplication.focusWidget()
    assert isinstance(focused, QLineEdit) and editor.table.isAncestorOf(focused)  # the URI cell, editing
    qtbot.keyClicks(focused, "file:///tmp/work")
    qtbot.keyClick(focused, Qt.Key.Key_Return)
    QApplication.processEvents()
    assert editor.entries() == [("file:///tmp/work", "")] and editor.table.rowCount() == 1
    qtbot.mouseClick(page.send_button, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    assert received == [{"workspace": {"roots": [{"uri": "file:///tmp/work"}]}}]
