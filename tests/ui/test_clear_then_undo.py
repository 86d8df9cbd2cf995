"""File ▸ Clear the trace, then Ctrl+Z as the status line says: the operations come back, even when
the focus was in a text field whose own Ctrl+Z would have undone the typing; and with the list
empty, Run again is off."""

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit

from mrtr_studio.ui.main_window import MainWindow
from tests.ui.test_main_window import Runner, arun, run_tool, settings, window  # noqa: F401  (fixtures)


def menu_action(win: MainWindow, menu_text: str, text: str) -> Any:
    menu = next(a.menu() for a in win.menuBar().actions() if a.text() == menu_text)
    return next(a for a in menu.actions() if a.text() == text)


def test_ctrl_z_after_clear_restores_the_operations_not_the_typing(window: MainWindow, arun: Runner,  # noqa: F811
                                                                   qtbot: Any) -> None:
    arun(run_tool(window, "delete_file", {"path": "/tmp/a.txt"}))
    assert len(window.studio.store.operations) == 1
    window.operations.select_ids([window.studio.store.operations[0].id])
    QApplication.processEvents()
    assert window.operations.run_again.isEnabled()
    field = next(f for f in window.arguments.editor.findChildren(QLineEdit) if f.isVisible())
    field.setFocus()
    field.clear()
    qtbot.keyClicks(field, "/tmp/typed.txt")  # the field has typing to undo
    assert field.isUndoAvailable()
    menu_action(window, "&File", "C&lear the trace").trigger()
    QApplication.processEvents()
    assert window.studio.store.operations == []
    assert not window.operations.run_again.isEnabled()  # nothing left to run again
    focus = QApplication.focusWidget()
    assert focus is window.operations.table
    qtbot.keyClick(focus, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    QApplication.processEvents()
    assert len(window.studio.store.operations) == 1  # the clearing undone
    assert field.text() == "/tmp/typed.txt"  # and the typing kept
