"""Every control a screen reader can land on has a name: walking each visible widget of the window,
in every mode, the interactive ones (buttons, fields, lists, tables, boxes) have an accessible name or
a visible text of their own."""

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, QSettings
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)

from mrtr_studio.studio.controller import Studio
from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.modes import MODES
from tests.ui.test_teaching_loop import qt_loop

INTERACTIVE = (QAbstractButton, QLineEdit, QComboBox, QAbstractItemView, QAbstractSpinBox, QPlainTextEdit,
               QTextEdit, QTabBar)


@pytest.fixture
def loop(qapp: Any) -> Iterator[asyncio.AbstractEventLoop]:
    with qt_loop(qapp) as running:
        yield running


def unnamed(window: QWidget) -> list[str]:
    """The visible interactive widgets with neither an accessible name nor a text of their own."""
    missing = []
    for widget in window.findChildren(QWidget):
        if not isinstance(widget, INTERACTIVE) or not widget.isVisible():
            continue
        if type(widget).__name__ in ("QLineEdit",) and isinstance(widget.parent(), QComboBox | QAbstractSpinBox):
            continue  # an editable box's own line edit: the box carries the name
        if isinstance(widget, QHeaderView):
            continue  # a table's header: the table carries the name, each section its title
        if widget.objectName().startswith("qt_"):
            continue  # Qt's own parts (scroll area corners, tab scroll buttons): named by Qt's accessibility
        text = widget.text() if isinstance(widget, QAbstractButton) else ""
        if not (widget.accessibleName().strip() or text.replace("&", "").strip()):
            missing.append(f"{type(widget).__name__} {widget.objectName()!r} in "
                           f"{type(widget.parentWidget()).__name__ if widget.parentWidget() else None}")
    return missing


def test_every_visible_control_has_a_name_in_every_mode(qtbot: Any, loop: asyncio.AbstractEventLoop,
                                                        tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "studio.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Studio(store=TraceStore()), settings, interactive_answers=False,
                        available=QRect(0, 0, 1366, 768))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.teaching  # noqa: B018  (the tabs, built)
    missing: set[str] = set()
    for mode in MODES:
        window.modes.switch(mode.key)
        for _ in range(3):
            QApplication.processEvents()
        for index in range(window.workbench.inspectors.count()):
            window.workbench.inspectors.setCurrentIndex(index)
            QApplication.processEvents()
            missing.update(unnamed(window))
    assert sorted(missing) == [], "\n".join(sorted(missing))
    window.close()
