"""URL-mode elicitation: show the whole URL with its host emphasised, warn, and open only on consent.

Per the spec the client must not pre-fetch the URL, must show it in full before consent and
should highlight the domain and warn about suspicious URLs. Nothing is opened until the person
presses Open, and only http(s) links can be opened at all (`UrlReport.open_problem` says why not);
"Done" answers accept (without content: the data went out of band). The opener returns whether a
browser took the link (QDesktopServices.openUrl's answer); when none did, the page says so and
offers Copy. The opener is injectable so tests (and the headless studio) never launch a browser.
"""

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from mrtr_studio.client.forms.elicit import accept
from mrtr_studio.client.forms.url_safety import OPENABLE_SCHEMES, UrlReport, analyse_url

from ..tones import ERROR, color_style
from .answer_page import ElicitAnswerPage
from .elicitation_page import action_buttons, header_label

HOST_STYLE = "font-weight: bold; font-size: large; background: #fff4d6; color: #000;"
def warning_style() -> str:
    return color_style(ERROR, extra="font-weight: bold;")
NO_BROWSER = "\u26a0 No browser could be opened for this link. Copy it and open it yourself, then press Done."


def url_markup(report: UrlReport) -> str:
    """The URL as rich text with the host emphasised; every piece escaped."""
    if not report.host:
        return f"<code>{html.escape(report.url)}</code>"
    return (f"<code>{html.escape(report.before_host)}<span style='{HOST_STYLE}'>{html.escape(report.host)}"
            f"</span>{html.escape(report.after_host)}</code>")


class UrlConsentPage(ElicitAnswerPage):
    """Emits `answered(ElicitResult dict)`; `opened` records whether the link was opened."""

    def __init__(self, params: dict[str, Any], server_name: str = "", parent: QWidget | None = None,
                 opener: Callable[[QUrl], bool] | None = None) -> None:
        super().__init__(parent)
        self.params = params
        self.url = str(params.get("url", ""))
        self.report = analyse_url(self.url)
        self.opener = opener or QDesktopServices.openUrl
        self.opened = False
        layout = QVBoxLayout(self)
        layout.addWidget(header_label(server_name, str(params.get("message", "")), self))
        layout.addWidget(QLabel("The server asks you to open this link in your browser:", self))
        self.url_label = QLabel(url_markup(self.report), self)
        self.url_label.setTextFormat(Qt.TextFormat.RichText)
        self.url_label.setWordWrap(True)
        self.url_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                               | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.url_label.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.url_label.setAccessibleName(f"Link to {self.report.host_unicode or 'an unknown host'}: {self.url}")
        layout.addWidget(self.url_label)
        host = self.report.host_unicode or "(none)"
        if self.report.host and host != self.report.host:
            host = f"{host}  ({self.report.host})"
        self.host_label = QLabel(f"Host: <b>{html.escape(host)}</b>", self)
        layout.addWidget(self.host_label)
        self.warning_labels: list[QLabel] = []
        for warning in self.report.warnings:
            label = QLabel(f"\u26a0 {warning.message}", self)
            label.setObjectName(f"warning:{warning.code}")
            label.setStyleSheet(warning_style())
            label.setWordWrap(True)
            label.setAccessibleName("Warning: " + warning.message)
            layout.addWidget(label)
            self.warning_labels.append(label)
        self.blocked_label = QLabel(f"\u2716 {self.report.open_problem or ''}", self)
        self.blocked_label.setObjectName("openBlocked")
        self.blocked_label.setStyleSheet(warning_style())
        self.blocked_label.setWordWrap(True)
        self.blocked_label.setVisible(not self.report.can_open)
        layout.addWidget(self.blocked_label)
        layout.addStretch(1)
        self.status = QLabel("", self)
        self.status.setObjectName("openStatus")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        open_text = "&Open anyway" if self.report.risky and self.report.can_open else "&Open link"
        row, buttons = action_buttons(self, open_text, "Co&py link", "Do&ne", "&Decline", "&Cancel")
        self.open_button, self.copy_button, self.done_button, self.decline_button, self.cancel_button = buttons
        self.open_button.setEnabled(self.report.can_open)
        if not self.report.can_open:
            self.open_button.setToolTip(self.report.open_problem or "")
        self.done_button.setToolTip("I finished in the browser: answer accept")
        if self.report.risky or not self.report.can_open:
            # Enter must never open a suspicious link: Decline is the default, and the open button
            # does not become the default on its own (auto-default) until it is clicked or focused.
            self.open_button.setAutoDefault(False)
            self.decline_button.setDefault(True)
        layout.addLayout(row)
        self.open_button.clicked.connect(self.open_url)
        self.copy_button.clicked.connect(self.copy_url)
        self.done_button.clicked.connect(self.done)
        self.decline_button.clicked.connect(self.decline)
        self.cancel_button.clicked.connect(self.cancel)
        QShortcut(QKeySequence("Escape"), self, self.cancel, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)

    @property
    def warning_codes(self) -> list[str]:
        return self.report.codes

    def open_url(self) -> bool:
        """Hand the link to the browser (http/https only); say inline whether one took it."""
        if not self.report.can_open:
            self.status.setText(self.report.open_problem or "")
            return False
        link = QUrl(self.url.strip(), QUrl.ParsingMode.StrictMode)
        if not link.isValid() or link.scheme().lower() not in OPENABLE_SCHEMES:  # Qt must read it as we did
            self.status.setText("This link cannot be opened: it is not a valid http or https URL.")
            return False
        self.opened = bool(self.opener(link))
        if not self.opened:
            self.status.setText(NO_BROWSER)
            self.status.setStyleSheet(warning_style())
            self.copy_button.setDefault(True)
            self.copy_button.setFocus()
            return False
        self.status.setStyleSheet("")
        self.status.setText("Opened in your browser. Press Done when you have finished there.")
        self.done_button.setDefault(True)
        self.done_button.setFocus()
        return True

    def copy_url(self) -> None:
        QGuiApplication.clipboard().setText(self.url)
        self.status.setText("Link copied to the clipboard.")

    def done(self) -> dict[str, Any]:
        return self._answer(accept())
