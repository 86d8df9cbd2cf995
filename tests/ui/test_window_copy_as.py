"""Copy as from the window: a right-click on a log row or a diagram arrow, a click on the menu's
entry, Copy in the redaction preview, and the clipboard holds the snippet (credentials masked); the
Edit menu copies the selected message; a server's message is refused with the reason."""

import json
import shlex
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent, QGuiApplication
from PySide6.QtWidgets import QApplication, QMenu

from mrtr_studio.ui.main_window import MainWindow

from .recorded_window import accept_preview, opened, recorded  # noqa: F401 - fixtures


def first_request(window: MainWindow) -> Any:
    return next(m for m in window.studio.store.messages
                if m.kind == "request" and m.direction == "client->server" and m.method_name == "tools/call")


def right_click(qtbot: Any, widget: Any, pos: QPoint) -> QMenu:
    """A right-click: the press, then the context-menu event the platform makes of it (QTest sends
    only the former)."""
    qtbot.mouseClick(widget, Qt.MouseButton.RightButton, pos=pos)
    QApplication.sendEvent(widget, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, widget.mapToGlobal(pos)))
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu))
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu)
    return menu


def click_entry(qtbot: Any, menu: QMenu, name: str) -> None:
    action = next(a for a in menu.actions() if a.objectName() == name)
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())


def test_right_click_on_a_log_row_copies_it_as_curl(qtbot: Any, opened: MainWindow) -> None:  # noqa: F811
    QGuiApplication.clipboard().clear()
    entry = first_request(opened)
    log = opened.log
    row = log.proxy.mapFromSource(log.model.index(log.model.row_of(entry.seq), 0))
    rect = log.table.visualRect(row)
    menu = right_click(qtbot, log.table.viewport(), rect.center())
    assert [a.text().replace("&", "") for a in menu.actions()] == [
        "Copy as curl", "Copy as HTTPie", "Copy as Python httpx", "Copy as TypeScript fetch",
        "Copy as mrtr-studio call"]
    click_entry(qtbot, menu, "copyAs_curl")
    accept_preview(qtbot, opened)
    text = QGuiApplication.clipboard().text()
    words = shlex.split(text)
    assert words[0] == "curl" and any(w.startswith("http://127.0.0.1:") for w in words)
    assert json.loads(words[words.index("--data-binary") + 1])["method"] == "tools/call"
    assert "alice-token" not in text and "Bearer ***" in text


def test_right_click_on_a_diagram_arrow_copies_it_as_httpx(qtbot: Any, opened: MainWindow) -> None:  # noqa: F811
    QGuiApplication.clipboard().clear()
    entry = first_request(opened)
    diagram = opened.diagram
    qtbot.waitUntil(lambda: entry.seq in diagram.arrow_items)
    diagram.canvas.centerOn(diagram.arrow_items[entry.seq])  # the window is small offscreen
    assert diagram.canvas.viewport().rect().contains(diagram.arrow_position(entry.seq).toPoint())
    menu = right_click(qtbot, diagram.canvas.viewport(), diagram.arrow_position(entry.seq).toPoint())
    click_entry(qtbot, menu, "copyAs_httpx")
    accept_preview(qtbot, opened)
    text = QGuiApplication.clipboard().text()
    compile(text, "<clipboard>", "exec")  # a Python program
    assert "import httpx" in text and "alice-token" not in text


def test_edit_menu_copies_the_selected_message_and_refuses_a_response(qtbot: Any, opened: MainWindow) -> None:  # noqa: F811
    entry = first_request(opened)
    opened.selection.select(entry)
    QGuiApplication.clipboard().clear()
    actions = {a.objectName(): a for a in opened.copy_as_menu.actions()}
    actions["copyAs_call"].trigger()
    accept_preview(qtbot, opened)
    assert QGuiApplication.clipboard().text().startswith("mrtr-studio call http://127.0.0.1:")
    reply = next(m for m in opened.studio.store.messages if m.direction == "server->client")
    opened.selection.select(reply)
    QGuiApplication.clipboard().setText("untouched")
    actions["copyAs_fetch"].trigger()
    assert QGuiApplication.clipboard().text() == "untouched"
    assert any("not something the client sent" in t for t in opened.errors.texts())
