"""The window by keyboard: Tab in reading order (the Arguments header, then its fields), a visible
focus ring on check boxes in light and dark, and a dialog that takes the keys when it opens and
gives them back when it closes, so F8 continues the run after an answered round."""

from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QCheckBox, QLineEdit, QVBoxLayout, QWidget

from mrtr_studio.studio.controller import Studio
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.theme import apply_theme
from tests.ui.test_main_window import Runner, arun, settings, until, window  # noqa: F401  (fixtures)


def test_tab_goes_from_the_arguments_header_to_its_fields(window: MainWindow, qtbot: Any) -> None:  # noqa: F811
    assert window.explorer.select("delete_file", "tool")
    QApplication.processEvents()
    header = window.workbench.sections["arguments"].header
    header.setFocus(Qt.FocusReason.OtherFocusReason)
    assert QApplication.focusWidget() is header
    qtbot.keyClick(header, Qt.Key.Key_Tab)
    first = QApplication.focusWidget()
    # what is under the header, in reading order: "Edit as JSON", then delete_file's path field,
    # not the form's scroll area or the inspector tabs
    assert isinstance(first, QCheckBox) and window.arguments.isAncestorOf(first), first
    qtbot.keyClick(first, Qt.Key.Key_Tab)
    field = QApplication.focusWidget()
    assert isinstance(field, QLineEdit) and window.arguments.isAncestorOf(field), field
    qtbot.keyClick(field, Qt.Key.Key_Backtab)
    focused = QApplication.focusWidget()
    assert focused is first
    qtbot.keyClick(focused, Qt.Key.Key_Backtab)
    assert QApplication.focusWidget() is header
    seen = []  # on through the window: the side column's controls all come before the centre's
    for _ in range(40):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        seen.append(window.workbench.side.isAncestorOf(QApplication.focusWidget()))
    assert False in seen and True not in seen[seen.index(False):seen.index(False) + 5]


def rendered(widget: QWidget) -> QImage:
    QApplication.processEvents()
    return widget.grab().toImage()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_focused_check_box_shows_a_ring(qtbot: Any, qapp: QApplication, scheme: str) -> None:
    apply_theme(qapp, scheme)  # type: ignore[arg-type]
    try:
        holder = QWidget()
        box = QVBoxLayout(holder)
        first, second = QCheckBox("elicitation"), QCheckBox("sampling")
        box.addWidget(first)
        box.addWidget(second)
        qtbot.addWidget(holder)
        holder.show()
        qtbot.waitExposed(holder)
        holder.activateWindow()
        second.setFocus()
        unfocused = rendered(first)
        first.setFocus()
        qtbot.waitUntil(first.hasFocus)
        focused = rendered(first)
        assert focused.size() == unfocused.size()  # the ring takes no room of its own
        ring = focused.pixelColor(1, focused.height() // 2)
        highlight = first.palette().highlight().color()
        assert ring.name() == highlight.name() and unfocused.pixelColor(1, unfocused.height() // 2) != ring
    finally:
        apply_theme(qapp, "light")


def test_a_round_dialog_takes_the_keys_and_f8_works_after_it(qtbot: Any, arun: Runner,  # noqa: F811
                                                             settings: QSettings) -> None:  # noqa: F811
    from mrtr_studio.ui.forms.input_round_dialog import InputRoundDialog

    win = MainWindow(Studio(), settings, interactive_answers=True)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)

    def dialogs() -> list[Any]:
        return [w for w in QApplication.topLevelWidgets() if isinstance(w, InputRoundDialog) and w.isVisible()]

    async def body() -> None:
        await win.start()
        assert win.explorer.select("delete_file", "tool")
        win.step_clicked()  # F10: round 1 held
        await until(lambda: win.studio.pending is not None)
        win.step_clicked()  # sent; the server asks; the dialog opens
        await until(lambda: bool(dialogs()))
        dialog = dialogs()[0]
        await until(lambda: QApplication.activeWindow() is dialog)
        dialog.answer_rest_automatically()
        await until(lambda: win.studio.pending is not None and win.studio.pending.round == 2)
        await until(lambda: QApplication.activeWindow() is win)
        target = QApplication.focusWidget() or win
        qtbot.keyClick(target, Qt.Key.Key_F8)  # Continue, by its shortcut
        await until(lambda: win.studio.state == "idle")

    arun(body())
    result = win.studio.last_result
    assert result is not None and result.drive.outcome == "complete"
    arun(win.studio.close())
