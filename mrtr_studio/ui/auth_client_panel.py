"""The client the studio presents to the current server's authorization server, and its sign-in state.

Many real servers accept no dynamic registration: they need a pre-registered client id (and secret),
or a machine client. Here the person gives them for the server the studio is connected to; they apply
from the next authorization on. "Sign out" forgets the tokens, so the next request runs the flow again.
Adapts `AuthLog` (Qt-free); the secret lives in memory only (the keyring when "remember" is on), never in
the settings file, and no token is ever shown. A client that authenticates with `private_key_jwt` (RFC 7523)
picks its PEM key file: the key is read when applied (checked, its algorithm taken from it) and held like
the secret; neither the key nor its path is saved in settings.
"""

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..studio.auth_log import AuthLog
from .builders import button_row, line_edit, wide_row

if TYPE_CHECKING:
    from ..auth.flow import Grant

GRANTS: list[tuple[str, "Grant"]] = [("Browser sign-in (authorization code)", "authorization_code"),
                                   ("Machine client (client credentials)", "client_credentials")]


class AuthClientPanel(QWidget):
    def __init__(self, log: AuthLog, current_url: Callable[[], str | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.log = log
        self.current_url = current_url
        self.status = QLabel()
        self.status.setObjectName("authStatus")
        self.status.setWordWrap(True)
        self.client_id = line_edit(
            "authClientId", "OAuth client ID", "none: registered on demand",
            "A pre-registered client id. Empty: the studio presents a Client ID Metadata Document or registers "
            "itself (dynamic client registration) where offered.")
        self.secret = line_edit("authClientSecret", "OAuth client secret", "none: a public client",
                                "Kept in memory only (in the keyring with 'remember'); never saved in settings.")
        self.secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_path = line_edit(
            "authClientKey", "Client private key file", "none: the secret above (or a public client)",
            "A PEM private key (RSA, EC or Ed25519) for private_key_jwt client authentication; read when "
            "applied, kept in memory only, never saved in settings.")
        self.key_button = QPushButton("Choose…")
        self.key_button.setObjectName("authChooseKey")
        self.key_button.clicked.connect(self.choose_key)
        self.scope = line_edit("authScope", "OAuth scope", "the server's challenge")
        self.grant = QComboBox()
        self.grant.setObjectName("authGrant")
        self.grant.setAccessibleName("OAuth grant")
        for label, grant in GRANTS:
            self.grant.addItem(label, grant)
        self.apply_button = QPushButton("Use for the next sign-in")
        self.apply_button.setObjectName("authApply")
        self.apply_button.clicked.connect(self.apply)
        self.sign_out_button = QPushButton("Sign out")
        self.sign_out_button.setObjectName("authSignOut")
        self.sign_out_button.setToolTip("Forget the tokens held for this server: the next request authorizes again.")
        self.sign_out_button.clicked.connect(self.sign_out)
        self.notice = QLabel()
        self.notice.setObjectName("authNotice")
        self.notice.setWordWrap(True)
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Client ID", self.client_id)
        form.addRow("Secret", self.secret)
        form.addRow("Private key", wide_row(self.key_path, self.key_button))
        form.addRow("Scopes", self.scope)
        form.addRow("Grant", self.grant)
        buttons = button_row(self.apply_button, self.sign_out_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.status)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.notice)
        self._shown_for: str | None = None
        #: Server URL -> the key file applied for it (shown again when the panel returns to that server).
        self._key_files: dict[str, str] = {}
        self._signed_out_of: str | None = None
        self.refresh()

    def refresh(self) -> None:
        """Show the current server's state; a server other than the one the fields were filled for gets its
        own settings in the fields."""
        url = self.current_url()
        editable = url is not None
        for widget in (self.client_id, self.secret, self.key_path, self.key_button, self.scope, self.grant,
                       self.apply_button, self.sign_out_button):
            widget.setEnabled(editable)
        if url is None:
            self.status.setText("OAuth applies to HTTP servers; the embedded engine and stdio servers use the "
                                "Client panel's identity.")
            self._shown_for = None
            return
        self.status.setText(self.log.status(url))
        if self._signed_out_of == url and self.log.authorized(url):  # authorized again since
            self._signed_out_of = None
            self.notice.clear()
        if url != self._shown_for:
            self._shown_for = url
            settings = self.log.settings_for(url)
            self.client_id.setText(settings.client_id or "")
            self.secret.setText(settings.client_secret or "")
            self.key_path.setText(self._key_files.get(url, "") if settings.private_key_pem else "")
            self.scope.setText(" ".join(settings.scope or []))
            index = self.grant.findData(settings.grant)
            self.grant.setCurrentIndex(max(index, 0))
            self.notice.clear()

    def apply(self) -> None:
        url = self.current_url()
        if url is None:
            return
        client_id = self.client_id.text().strip() or None
        grant = self.grant.currentData()
        if grant == "client_credentials" and client_id is None:
            self.notice.setText("✖ A machine client needs its pre-registered Client ID.")
            return
        key_file = self.key_path.text().strip()
        key_pem, key_alg = None, "RS256"
        if key_file:
            from ..auth.client_auth import read_client_key

            if client_id is None:
                self.notice.setText("✖ A private key belongs to a pre-registered client: give its Client ID.")
                return
            try:
                key_pem, key_alg = read_client_key(key_file, "Private key")
            except ValueError as exc:
                self.notice.setText(f"✖ {exc}")
                return
            self._key_files[url] = key_file
        self.log.configure(url, replace(self.log.settings_for(url), client_id=client_id,
                                        client_secret=self.secret.text() or None, grant=grant,
                                        scope=self.scope.text().split() or None, private_key_pem=key_pem,
                                        signing_alg=key_alg))
        self.notice.setText("✔ Used from the next sign-in with this server.")
        self.refresh()

    def choose_key(self) -> None:
        """Pick the PEM key file (only its path is shown; the key is read when applied)."""
        path, _ = QFileDialog.getOpenFileName(self, "Client private key (PEM)", self.key_path.text(),
                                              "PEM keys (*.pem *.key);;All files (*)")
        if path:
            self.key_path.setText(path)

    def sign_out(self) -> None:
        url = self.current_url()
        if url is None:
            return
        held = self.log.sign_out(url)
        self._signed_out_of = url if held else None  # the notice holds until the next sign-in
        self.notice.setText("✔ Signed out: the next request authorizes again." if held
                            else "No tokens were held for this server.")
        self.refresh()
