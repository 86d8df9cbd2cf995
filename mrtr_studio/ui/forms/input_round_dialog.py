"""All input requests of one round, one page each, answered together as one retry.

MRTR batches a round's questions into one InputRequiredResult and expects every answer in one
retry, so the person sees them side by side: a list of keys (with status) beside a stack of
pages. roots/list is shown and confirmed like any other request (which folders a server may see is
the person's call); `auto_roots=True`, an explicit setting, answers it from the configured roots
without asking. Nothing here blocks:
the dialog emits `submitted(inputResponses)` or `cancelled()`; `open_input_round` shows it
non-modally and `ask_input_round` awaits it from asyncio (qasync) code.
"""

import asyncio
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from mrtr_studio.client.forms.auto import ELICIT, ROOTS, SAMPLE, auto_response
from mrtr_studio.client.forms.roots import list_roots_result

from ..focus_order import present
from .elicitation_page import ElicitationPage, action_buttons, header_label
from .roots_page import RootsPage
from .sampling_page import SamplingPage
from .schema_form import error_line
from .url_consent import UrlConsentPage

if TYPE_CHECKING:
    from mrtr_studio.protocol.models import Root

SKIPPED: Any = None  # a skipped key is recorded as None and left out of inputResponses


class RawResultPage(QWidget):
    """An input request of a method the studio does not know: type its result as JSON."""

    answered = Signal(dict)
    skipped = Signal()

    def __init__(self, key: str, request: dict[str, Any], server_name: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.addWidget(header_label(server_name, f"{request.get('method')}: answer with a JSON result", self))
        shown = QPlainTextEdit(json.dumps(request.get("params", {}), indent=2), self)
        shown.setReadOnly(True)
        shown.setAccessibleName("Request parameters")
        layout.addWidget(shown)
        self.text = QPlainTextEdit("{}", self)
        self.text.setTabChangesFocus(True)
        self.text.setAccessibleName(f"Result for {key} (JSON object)")
        layout.addWidget(self.text)
        self.error = error_line(self)
        layout.addWidget(self.error)
        row, (send, skip) = action_buttons(self, "&Send result", "S&kip")
        layout.addLayout(row)
        send.clicked.connect(self.send)
        skip.clicked.connect(self.skipped.emit)

    def send(self) -> dict[str, Any] | None:
        try:
            value = json.loads(self.text.toPlainText())
        except json.JSONDecodeError as exc:
            self.error.setText(f"Not valid JSON: {exc.msg}")
            return None
        if not isinstance(value, dict):
            self.error.setText("The result must be a JSON object.")
            return None
        self.error.setText("")
        self.answered.emit(value)
        return value


class InputRoundDialog(QDialog):
    """Emits `submitted(inputResponses dict)` once every request is answered or skipped, or `cancelled()`."""

    submitted = Signal(dict)
    cancelled = Signal()

    def __init__(self, input_requests: dict[str, Any], server_name: str = "",
                 roots: "list[Root] | None" = None, auto_roots: bool = False, auto_submit: bool = True,
                 parent: QWidget | None = None, opener: Callable[[QUrl], bool] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Input requested by {server_name or 'the server'}")
        self.requests = input_requests
        self.roots = list(roots or [])
        self.auto_submit = auto_submit
        self.answers: dict[str, Any] = {}
        self.pages: dict[str, QWidget] = {}
        self._done = False
        self._building = True
        self.keys = QListWidget(self)
        self.keys.setAccessibleName("Input requests of this round")
        # Each row is "key" over "method (state)", wrapped to the list's width: a narrow list
        # (a 1366x768 screen) shows the whole label without a horizontal scroll bar.
        self.keys.setWordWrap(True)
        self.keys.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.keys.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.keys.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.stack = QStackedWidget(self)
        splitter = QSplitter(self)
        splitter.addWidget(self.keys)
        splitter.addWidget(self.stack)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([240, 660])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        # The pages are made before the round's own buttons: Tab visits the fields first.
        for key, request in input_requests.items():
            self._add_page(str(key), request if isinstance(request, dict) else {}, server_name, opener)
        bottom = QHBoxLayout()
        self.status = QLabel(self)
        bottom.addWidget(self.status, 1)
        self.auto_button = QPushButton("Answer the rest a&utomatically", self)
        self.submit_button = QPushButton("Su&bmit retry", self)
        self.cancel_button = QPushButton("Cancel &round", self)
        for button in (self.auto_button, self.submit_button, self.cancel_button):
            bottom.addWidget(button)
        layout.addLayout(bottom)
        self.keys.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.auto_button.clicked.connect(self.answer_rest_automatically)
        self.submit_button.clicked.connect(self.submit)
        self.cancel_button.clicked.connect(self.cancel)
        self.rejected.connect(self._on_rejected)
        self._fit_screen()
        if auto_roots:
            for key, request in input_requests.items():
                if isinstance(request, dict) and request.get("method") == ROOTS:
                    self.record(str(key), list_roots_result(self.roots), advance=False)
        self._building = False
        self._refresh()
        self.show_next_pending()
        if self.is_complete() and auto_submit:
            QTimer.singleShot(0, self.submit)  # after the caller has connected its slots

    def _fit_screen(self) -> None:
        """Room for a form of several fields, never larger than the screen it opens on."""
        screen = (self.parent().screen() if isinstance(self.parent(), QWidget) else None) or self.screen()
        available = screen.availableGeometry() if screen is not None else None
        width, height = 960, 680
        if available is not None:
            width, height = min(width, int(available.width() * 0.9)), min(height, int(available.height() * 0.9))
        self.resize(width, height)

    def _add_page(self, key: str, request: dict[str, Any], server: str,
                  opener: Callable[[QUrl], bool] | None) -> None:
        method, params = request.get("method"), request.get("params") or {}
        page: QWidget
        if method == ELICIT and params.get("mode") == "url":
            page = UrlConsentPage(params, server, self, opener=opener)
        elif method == ELICIT:
            page = ElicitationPage(params, server, self)
        elif method == SAMPLE:
            page = SamplingPage(params, server, self)
        elif method == ROOTS:
            page = RootsPage(self.roots, server, self)
        else:
            page = RawResultPage(key, request, server, self)
        page.answered.connect(lambda result, k=key: self.record(k, result))
        if hasattr(page, "skipped"):
            page.skipped.connect(lambda k=key: self.record(k, SKIPPED))
        self.pages[key] = page
        self.stack.addWidget(page)
        QListWidgetItem(key, self.keys)

    def page(self, key: str) -> QWidget:
        return self.pages[key]

    def record(self, key: str, result: dict[str, Any] | None, advance: bool = True) -> None:
        """Store one answer (None = skipped), update the list, then submit or go to the next page."""
        self.answers[key] = result
        self._refresh()
        if self.is_complete() and self.auto_submit and not self._building:
            self.submit()
        elif advance:
            self.show_next_pending()

    def _refresh(self) -> None:
        for row, key in enumerate(self.pages):
            method = (self.requests.get(key) or {}).get("method", "?")
            if key not in self.answers:
                state = "waiting"
            elif self.answers[key] is SKIPPED:
                state = "skipped"
            else:
                state = str(self.answers[key].get("action", "answered"))
            item = self.keys.item(row)
            label = f"{'✓' if key in self.answers else '•'} {key} — {method} ({state})"
            item.setText(f"{'✓' if key in self.answers else '•'} {key}\n    {method} ({state})")
            item.setToolTip(label)
            item.setData(0x0100, state)
        done = len(self.answers)
        self.status.setText(f"{done} of {len(self.pages)} answered")
        self.submit_button.setEnabled(self.is_complete())

    def is_complete(self) -> bool:
        return all(key in self.answers for key in self.pages)

    def pending(self) -> list[str]:
        return [key for key in self.pages if key not in self.answers]

    def show_next_pending(self) -> None:
        """Show the first unanswered request, with the keyboard in its first field."""
        waiting = self.pending()
        if waiting:
            self.keys.setCurrentRow(list(self.pages).index(waiting[0]))
            first = getattr(self.pages[waiting[0]], "first_field", lambda: None)()
            if isinstance(first, QWidget):
                first.setFocus(Qt.FocusReason.OtherFocusReason)

    def responses(self) -> dict[str, Any]:
        """The inputResponses as answered so far (skipped keys left out)."""
        return {k: v for k, v in self.answers.items() if v is not SKIPPED}

    def answer_rest_automatically(self) -> None:
        for key in self.pending():
            request = self.requests.get(key) or {}
            result = auto_response(str(request.get("method")), request.get("params") or {}, self.roots)
            self.answers[key] = result
        self._refresh()
        if self.auto_submit:
            self.submit()

    def submit(self) -> dict[str, Any] | None:
        if not self.is_complete() or self._done:
            return None
        self._done = True
        responses = self.responses()
        self.submitted.emit(responses)
        self.accept()
        return responses

    def cancel(self) -> None:
        self.reject()

    def _on_rejected(self) -> None:
        if not self._done:
            self._done = True
            self.cancelled.emit()


def open_input_round(input_requests: dict[str, Any], on_submitted: Callable[[dict[str, Any]], Any],
                     on_cancelled: Callable[[], Any] | None = None, **options: Any) -> InputRoundDialog:
    """Show the round's dialog without blocking; the callbacks receive the outcome."""
    dialog = InputRoundDialog(input_requests, **options)
    dialog.submitted.connect(on_submitted)
    if on_cancelled is not None:
        dialog.cancelled.connect(on_cancelled)
    present(dialog)  # with the keyboard focus, even without a window manager
    return dialog


async def ask_input_round(input_requests: dict[str, Any], **options: Any) -> dict[str, Any] | None:
    """Await the person's answers from asyncio code (qasync loop); None when the round is cancelled."""
    future: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()

    def settle(value: dict[str, Any] | None) -> None:
        if not future.done():
            future.set_result(value)

    dialog = open_input_round(input_requests, settle, lambda: settle(None), **options)
    try:
        return await future
    finally:
        dialog.deleteLater()
