"""The Auth tab's client panel against a real OAuth-protected server: the state line says what is held (never
a token), "Sign out" makes the next request authorize again, a pre-registered client typed in is the one
the next sign-in uses, and the secret typed there never reaches the settings file."""

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from mrtr_studio.auth.flow import OAuthClient
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.studio.auth_log import AuthLog
from mrtr_studio.studio.controller import Studio
from mrtr_studio.studio.server_entries import http_entry
from mrtr_studio.ui.auth_view import AuthView
from mrtr_studio.ui.main_window import MainWindow
from tests.ui.test_teaching_loop import qt_loop

from ..auth.as_fixture import AuthServer, tools_listed
from ..auth.as_fixture import protected as protected_by

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


@pytest.fixture
def loop(qapp) -> Iterator[asyncio.AbstractEventLoop]:  # type: ignore[no-untyped-def]
    with qt_loop(qapp) as running:
        yield running


@pytest.fixture
def protected() -> Iterator[tuple[str, AuthServer]]:
    with AuthServer() as issuer, protected_by(issuer) as (url, _):
        yield url, issuer


def list_tools(loop: asyncio.AbstractEventLoop, url: str, flow: OAuthClient) -> list[str]:
    return loop.run_until_complete(asyncio.wait_for(tools_listed(url, flow), 30))


def authorizations(issuer: AuthServer) -> int:
    return len([r for r in issuer.requests if r["path"] == "/authorize"])


def test_state_sign_out_and_a_pre_registered_client(qtbot, loop, protected) -> None:  # type: ignore[no-untyped-def]
    url, issuer = protected
    log = AuthLog()
    flow = OAuthClient(url, HeadlessRedirect())
    log.adopt(url, flow)
    view = AuthView(log, lambda: url)
    qtbot.addWidget(view)
    panel = view.client
    assert panel.status.text().startswith("Not authorized (browser sign-in, a client registered on demand")

    assert list_tools(loop, url, flow)
    qtbot.waitUntil(lambda: panel.status.text().startswith("Authorized by"))
    status = panel.status.text()
    assert f"Authorized by {issuer.issuer}" in status and "refresh token held" in status
    assert not any(secret in status for secret in issuer.issued)

    qtbot.mouseClick(panel.sign_out_button, Qt.MouseButton.LeftButton)
    assert flow.state.tokens is None and panel.notice.text().startswith("✔ Signed out")
    assert panel.status.text().startswith("Not authorized")
    assert list_tools(loop, url, flow)
    assert authorizations(issuer) == 2  # signed out: the next request authorized again
    qtbot.waitUntil(lambda: panel.status.text().startswith("Authorized by"))
    assert panel.notice.text() == ""  # "Signed out" is over once authorized again

    issuer.clients["pre-registered"] = "typed-in-secret-value"
    qtbot.keyClicks(panel.client_id, "pre-registered")
    qtbot.keyClicks(panel.secret, "typed-in-secret-value")
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert log.settings_for(url).client_id == "pre-registered"
    assert flow.state.tokens is None  # another client: what the old one held is dropped
    assert list_tools(loop, url, flow)
    [last] = [r for r in issuer.requests if r["path"] == "/authorize"][-1:]
    assert last["query"]["client_id"] == "pre-registered"
    assert "typed-in-secret-value" not in panel.status.text()
    loop.run_until_complete(flow.aclose())


def test_a_machine_client_needs_its_id_and_stdio_servers_have_no_oauth(qtbot) -> None:  # type: ignore[no-untyped-def]
    log = AuthLog()
    target: list[str | None] = ["http://127.0.0.1:9/mcp"]
    view = AuthView(log, lambda: target[0])
    qtbot.addWidget(view)
    panel = view.client
    panel.grant.setCurrentIndex(panel.grant.findData("client_credentials"))
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert "needs its pre-registered Client ID" in panel.notice.text()
    assert log.settings_for("http://127.0.0.1:9/mcp").grant == "authorization_code"
    target[0] = None
    panel.refresh()
    assert not panel.client_id.isEnabled() and not panel.sign_out_button.isEnabled()
    assert "HTTP servers" in panel.status.text()


def test_a_typed_secret_never_reaches_the_settings_file(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    studio = Studio()
    studio.entry = http_entry("http://127.0.0.1:9/mcp")
    path = tmp_path / "studio.ini"
    window = MainWindow(studio, QSettings(str(path), QSettings.Format.IniFormat), interactive_answers=False)
    qtbot.addWidget(window)
    panel = window.auth_view.client
    panel.refresh()
    qtbot.keyClicks(panel.client_id, "client-7")
    qtbot.keyClicks(panel.secret, "never-in-settings-42")
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert studio.auth.settings_for("http://127.0.0.1:9/mcp").client_secret == "never-in-settings-42"
    window.save()
    window.settings.sync()
    saved = path.read_text()
    assert "http://127.0.0.1:9/mcp" in saved and "never-in-settings-42" not in saved


def test_a_sign_in_waiting_in_the_browser_shows_its_link(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Without a browser the person needs the link: the Auth tab shows it with Copy and Open; it goes when the
    redirect comes back."""
    from PySide6.QtGui import QGuiApplication

    from mrtr_studio.auth.exchanges import Exchange

    opened: list[str] = []
    log = AuthLog(open_url=lambda url: opened.append(url) or False)  # no browser here
    view = AuthView(log, lambda: "http://127.0.0.1:9/mcp")
    qtbot.addWidget(view)
    view.show()
    with qtbot.waitSignal(view.waiting, timeout=2000):
        log.sign_in("http://127.0.0.1:9/mcp", "http://127.0.0.1:8/authorize?client_id=c&state=s")
    assert view.sign_in_box.isVisible()
    assert "No browser could be opened" in view.sign_in.text()
    assert view.sign_in_link.text() == "http://127.0.0.1:8/authorize?client_id=c&state=s"
    qtbot.mouseClick(view.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "http://127.0.0.1:8/authorize?client_id=c&state=s"
    qtbot.mouseClick(view.open_button, Qt.MouseButton.LeftButton)
    assert len(opened) == 2  # tried again on request
    log.add("http://127.0.0.1:9/mcp", Exchange("authorization response", "REDIRECT", "http://127.0.0.1:7/cb"))
    qtbot.waitUntil(lambda: not view.sign_in_box.isVisible())
    assert log.waiting == {}


def test_the_window_brings_the_auth_tab_forward_for_a_sign_in(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    studio = Studio()
    studio.auth.open_url = lambda url: True
    window = MainWindow(studio, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        interactive_answers=False)
    qtbot.addWidget(window)
    window.show()
    window.show_inspector(window.inspector)
    studio.auth.sign_in("http://127.0.0.1:9/mcp", "http://127.0.0.1:8/authorize?x=1")
    qtbot.waitUntil(lambda: window.auth_view.isVisible())
    assert "Sign in to http://127.0.0.1:9/mcp in the browser" in window.statusBar().currentMessage()
