"""The Tamper menu has every message tamper (truncate, drop, invent too), and a tamper armed while
idle shows in the toolbar until the retry it waited for has been tampered."""

from typing import Any

from PySide6.QtWidgets import QMenu

from mrtr_studio.ui.main_window import MainWindow
from tests.ui.test_main_window import Runner, arun, run_tool, settings, window  # noqa: F401  (fixtures)


def tamper_menu(win: MainWindow) -> QMenu:
    menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "&Tamper")
    assert isinstance(menu, QMenu)
    return menu


def test_the_tamper_menu_has_truncate_drop_and_invent(window: MainWindow) -> None:  # noqa: F811
    texts = [a.text().replace("&", "") for a in tamper_menu(window).actions()]
    for wanted in ("Truncate the state", "Drop the state, keep the answers", "Invent a state",
                   "Flip a byte of the state's payload"):
        assert any(text.startswith(wanted) for text in texts), (wanted, texts)


def test_an_armed_tamper_shows_in_the_toolbar_until_applied(window: MainWindow, arun: Runner) -> None:  # noqa: F811
    armed = window.armed
    assert armed.text() == ""
    window.controls.tampers["drop"].trigger()  # idle: armed for the next retry
    assert armed.text().strip() == "⚑ armed: remove the requestState from the retry"
    assert armed.isVisible() and armed.parent() is not None
    assert window.studio.state == "idle"
    result: Any = arun(run_tool(window, "delete_file"))
    assert armed.text() == ""  # applied to the retry, so no longer waiting
    sent = [m.message for m in window.studio.store.messages_of(result.operation.id) if m.kind == "request"]
    assert len(sent) >= 2
    assert "requestState" not in sent[1]["params"]  # the first retry went without it
