"""The blank spin boxes: empty until touched, the first step shows `start`, typing un-blanks them.

Both number types share one mixin (mrtr_studio/ui/forms/blank_editors.py); each is exercised here so that
its overrides are proven to be the ones Qt calls.
"""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QValidator

from mrtr_studio.ui.forms.blank_editors import BlankDoubleSpinBox, BlankSpinBox


@pytest.mark.parametrize(("kind", "start", "shown"), [(BlankSpinBox, 18, "18"), (BlankDoubleSpinBox, 2.5, "2.50")])
def test_blank_until_stepped_then_start(qtbot, kind, start, shown) -> None:
    box = kind(start)
    qtbot.addWidget(box)
    box.setMaximum(100)
    box.set_blank(True)
    assert box.lineEdit().text() == ""
    assert box.text() == ""  # Qt's own text comes from our textFromValue override
    assert box.validate("", 0)[0] == QValidator.State.Intermediate
    touched: list[object] = []
    box.valueChanged.connect(touched.append)
    box.stepBy(1)  # the first step shows start, not start + 1
    assert not box.blank
    assert box.value() == start
    assert box.lineEdit().text() == shown
    assert touched
    box.stepBy(1)
    assert box.value() == start + 1


@pytest.mark.parametrize("kind", [BlankSpinBox, BlankDoubleSpinBox])
def test_typing_unblanks(qtbot, kind) -> None:
    box = kind(0)
    qtbot.addWidget(box)
    box.set_blank(True)
    box.show()
    qtbot.keyClicks(box.lineEdit(), "7")
    assert not box.blank
    assert box.value() == 7
    box.set_blank(False)
    assert box.lineEdit().text() != ""


def test_keyboard_arrow_from_blank(qtbot) -> None:
    box = BlankSpinBox(5)
    qtbot.addWidget(box)
    box.set_blank(True)
    box.show()
    qtbot.keyClick(box, Qt.Key.Key_Up)  # Qt calls stepBy: our override
    assert box.value() == 5 and box.lineEdit().text() == "5"
