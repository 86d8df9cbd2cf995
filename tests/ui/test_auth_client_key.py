"""The Auth tab's private key picker (private_key_jwt): the picked PEM is read when applied (its algorithm from
the key), an unusable file is said in the panel and changes nothing, and neither the key nor its path
reaches the settings file."""

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QFileDialog

from mrtr_studio.studio.controller import Studio
from mrtr_studio.studio.server_entries import http_entry
from mrtr_studio.ui.main_window import MainWindow

URL = "http://127.0.0.1:9/mcp"


def test_a_picked_key_is_used_for_the_next_sign_in_and_never_saved(qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    key = tmp_path / "client-key-file.pem"
    key.write_bytes(ec.generate_private_key(ec.SECP384R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    not_a_key = tmp_path / "notes.txt"
    not_a_key.write_text("hello")
    studio = Studio()
    studio.entry = http_entry(URL)
    path = tmp_path / "studio.ini"
    window = MainWindow(studio, QSettings(str(path), QSettings.Format.IniFormat), interactive_answers=False)
    qtbot.addWidget(window)
    panel = window.auth_view.client
    panel.refresh()
    picked = [str(not_a_key)]
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *args, **kw: (picked[0], ""))

    qtbot.keyClicks(panel.client_id, "client-7")
    qtbot.mouseClick(panel.key_button, Qt.MouseButton.LeftButton)
    assert panel.key_path.text() == str(not_a_key)
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert panel.notice.text().startswith("✖ Private key: ") and "does not hold a PEM private key" in \
        panel.notice.text()
    assert studio.auth.settings_for(URL).private_key_pem is None  # nothing applied

    picked[0] = str(key)
    qtbot.mouseClick(panel.key_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    settings = studio.auth.settings_for(URL)
    assert panel.notice.text().startswith("✔")
    assert settings.client_id == "client-7" and settings.signing_alg == "ES384"
    assert settings.private_key_pem == key.read_text()
    assert panel.key_path.text() == str(key)  # still shown after the refresh that follows applying

    window.save()
    window.settings.sync()
    saved = path.read_text()
    assert URL in saved
    assert "client-key-file" not in saved and key.read_text().splitlines()[1] not in saved


def test_a_key_needs_a_client_id(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    studio = Studio()
    studio.entry = http_entry(URL)
    window = MainWindow(studio, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        interactive_answers=False)
    qtbot.addWidget(window)
    panel = window.auth_view.client
    panel.refresh()
    panel.key_path.setText(str(tmp_path / "any.pem"))
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert "give its Client ID" in panel.notice.text()
