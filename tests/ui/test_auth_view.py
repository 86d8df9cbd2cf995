"""The Auth view draws a real OAuth flow: one row per exchange in order, the checks as ✔/✖ children,
the masked request and response of the selected row; live exchanges arrive as rows too."""

import asyncio

import pytest
from PySide6.QtCore import Qt

from mrtr_studio.auth.exchanges import Exchange
from mrtr_studio.auth.flow import OAuthClient
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.studio.auth_log import AuthLog
from mrtr_studio.ui.auth_view import AuthView

from ..auth.as_fixture import AuthServer, list_once
from ..auth.as_fixture import protected as protected_by

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


def real_flow(log: AuthLog, issuer: AuthServer) -> None:
    with protected_by(issuer) as (url, _):
        flow = OAuthClient(url, HeadlessRedirect())
        log.adopt(url, flow)
        list_once(url, flow)


def test_rows_checks_and_details_of_a_real_flow(qtbot) -> None:  # type: ignore[no-untyped-def]
    log = AuthLog()
    with AuthServer() as issuer:
        real_flow(log, issuer)
    view = AuthView(log)
    qtbot.addWidget(view)
    tree = view.tree
    phases = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert phases[:2] == ["protected resource metadata", "authorization server metadata"]
    assert phases[-1] == "token request"
    response = tree.topLevelItem(phases.index("authorization response"))
    checks = [response.child(i).text(0) for i in range(response.childCount())]
    assert checks == ["✔ state matches", "✔ iss matches the issuer (RFC 9207)"]
    assert response.text(2) == "2/2 ✔"
    token = tree.topLevelItem(phases.index("token request"))
    tree.setCurrentItem(token)
    shown = view.detail.toPlainText()
    assert '"access_token": "***"' in shown
    assert not any(secret in shown for secret in issuer.issued)
    assert "check(s) passed" in view.summary.text() and "failed" not in view.summary.text()


def test_a_failed_check_is_marked_and_live_rows_arrive(qtbot) -> None:  # type: ignore[no-untyped-def]
    log = AuthLog()
    view = AuthView(log)
    qtbot.addWidget(view)
    refused = Exchange("authorization response", "REDIRECT", "http://127.0.0.1:1/callback?code=***")
    refused.check("iss matches the issuer (RFC 9207)", False, "iss 'https://evil.example', issuer 'http://as'")
    log.add("http://127.0.0.1:2/mcp", refused)
    qtbot.waitUntil(lambda: view.tree.topLevelItemCount() == 1)
    item = view.tree.topLevelItem(0)
    assert item.text(2) == "✖ 1 failed, 0 passed"
    assert item.child(0).text(0) == "✖ iss matches the issuer (RFC 9207)"
    assert item.child(0).text(1) == "FAIL"
    assert "evil.example" in item.child(0).toolTip(0)
    assert "✖ 1 failed" in view.summary.text()
    assert item.data(0, Qt.ItemDataRole.UserRole) == 0


def test_the_remember_box_picks_the_keyring_for_new_flows(qtbot) -> None:  # type: ignore[no-untyped-def]
    from mrtr_studio.auth.tokens import KeyringStore, MemoryStore

    log = AuthLog()
    view = AuthView(log)
    qtbot.addWidget(view)
    assert not view.remember.isChecked() and isinstance(log.store(), MemoryStore)
    from PySide6.QtCore import QPoint

    qtbot.mouseClick(view.remember, Qt.MouseButton.LeftButton, pos=QPoint(8, view.remember.height() // 2))
    assert view.remember.isChecked() and log.remember
    assert isinstance(log.store(), KeyringStore)


def test_no_token_reaches_the_window_settings(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings

    from mrtr_studio.studio.controller import Studio
    from mrtr_studio.studio.server_entries import http_entry
    from mrtr_studio.ui.main_window import MainWindow

    studio = Studio()
    with AuthServer() as issuer:
        real_flow(studio.auth, issuer)
    server_url = studio.auth.entries[0].server_url
    studio.entry = http_entry(server_url)  # the connection the settings remember
    path = tmp_path / "studio.ini"
    window = MainWindow(studio, QSettings(str(path), QSettings.Format.IniFormat), interactive_answers=False)
    qtbot.addWidget(window)
    window.save()
    window.settings.sync()
    saved = path.read_text()
    assert server_url in saved  # the settings were written, with the server they name
    assert len(issuer.issued) >= 2 and not any(secret in saved for secret in issuer.issued)


def test_a_keyring_that_cannot_be_used_is_said(qtbot) -> None:  # type: ignore[no-untyped-def]
    import keyring
    from keyring.backends.fail import Keyring as NoKeyring

    from mrtr_studio.auth.tokens import Registration

    previous = keyring.get_keyring()
    keyring.set_keyring(NoKeyring())
    log = AuthLog()
    try:
        view = AuthView(log)
        qtbot.addWidget(view)
        log.remember = True
        flow = log.flow_for("http://127.0.0.1:9/mcp")
        flow.store.save("http://127.0.0.1:9/mcp", Registration("http://as", "client-1"), None)
        log.add("http://127.0.0.1:9/mcp", Exchange("token request", "POST", "http://as/token", status=200))
        qtbot.waitUntil(lambda: view.tree.topLevelItemCount() == 1)
        assert "⚠ the system keyring is unavailable" in view.summary.text()
    finally:
        keyring.set_keyring(previous)
        asyncio.run(log.aclose())
