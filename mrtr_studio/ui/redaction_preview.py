"""Every export and every copy-as is shown before it leaves: the redaction profile chosen (default,
none, or one loaded from a profile file), its rules, what it masks with a count per rule
("Authorization header x12, $.params.arguments.password x2", with the multiplication sign), and the
start of the output with the masks marked; then Save… (or Copy) writes exactly what was previewed, 0600.

The text is studio/export_preview.py's. A trace export is computed off the GUI thread from a
snapshot of the store's lists (the dialog polls the worker, so a 100,000-message trace never freezes
the window), and the preview shows its first `defaults.EXPORT_PREVIEW_CHARS` characters; a copy is
one message, computed at once, and a message that cannot be copied is refused with the reason
without opening the dialog.
"""

import json
import re
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QListWidget,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from ..studio.export_preview import LABELS, ExportRequest, PreparedExport, PrepareError, prepare, save
from ..trace.redaction import MASK
from ..trace.redaction_profiles import (
    ProfileError,
    RedactionProfile,
    default_profile,
    load_profile,
    none_profile,
    profile_from_json,
    profile_to_json,
)
from . import file_dialogs, tones
from .builders import named, push_button, text_label

if TYPE_CHECKING:
    from ..trace.store import TraceStore
    from .main_window import MainWindow

PROFILES_KEY = "redaction/profiles"
LAST_KEY = "redaction/last"
Done = Callable[[PreparedExport, str | None], None]  # (what was saved or copied, the path or None)
T = TypeVar("T")


def in_background(work: Callable[[], T]) -> "Future[T]":
    """`work` on a daemon thread: quitting the window never waits for a preview nobody will see."""
    future: Future[T] = Future()

    def run() -> None:
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(work())
            except Exception as exc:  # handed to the GUI thread, which shows it
                future.set_exception(exc)
    threading.Thread(target=run, name="export-preview", daemon=True).start()
    return future


class MaskHighlighter(QSyntaxHighlighter):
    """The masks marked in the preview: bold, in the palette's selection colours (readable in both themes)."""

    def __init__(self, document: QTextDocument, widget: QWidget) -> None:
        super().__init__(document)
        palette = widget.palette()
        self.mask_format = QTextCharFormat()
        self.mask_format.setFontWeight(QFont.Weight.Bold)
        self.mask_format.setBackground(palette.highlight().color())
        self.mask_format.setForeground(palette.highlightedText().color())
        self._pattern = re.compile(re.escape(MASK))

    def highlightBlock(self, text: str) -> None:
        for found in self._pattern.finditer(text):
            self.setFormat(found.start(), found.end() - found.start(), self.mask_format)


def saved_profiles(window: "MainWindow") -> list[RedactionProfile]:
    """The built-in profiles, then those loaded before (kept in the window's settings)."""
    found = [default_profile(), none_profile()]
    raw = window.settings.value(PROFILES_KEY)
    try:
        documents = json.loads(str(raw)) if raw else []
    except ValueError:
        documents = []
    for document in documents if isinstance(documents, list) else []:
        try:
            profile = profile_from_json(document)
        except ProfileError:
            continue
        if all(p.name != profile.name for p in found):
            found.append(profile)
    return found


class RedactionPreview(QDialog):
    def __init__(self, window: "MainWindow", request: ExportRequest, done: Done,
                 prepared: PreparedExport | None = None, save_as: tuple[str, str] = ("All files (*)", "export"),
                 store: "TraceStore | None" = None) -> None:
        super().__init__(window)
        self.window_ = window
        #: The trace exported: the window's, or a lesson's, the Lab's, a comparison's own store.
        self.store = store if store is not None else window.studio.store
        self.save_as = save_as  # (file-dialog filter, default file name)
        self.request = request
        self.done_ = done
        self.prepared: PreparedExport | None = None
        self._future: Future[PreparedExport] | None = None
        self.setObjectName("redactionPreview")
        self.setWindowTitle(("Copy as " if request.is_copy else "Export as ") + LABELS[request.kind])
        self.resize(820, 620)
        self.profiles = saved_profiles(window)
        self.profile_box = named(QComboBox(), "redactionProfile", "Redaction profile")
        for profile in self.profiles:
            self.profile_box.addItem(profile.name)
        last = str(window.settings.value(LAST_KEY, "default"))
        self.profile_box.setCurrentIndex(max(0, self.profile_box.findText(last)))
        self.load_button = push_button("loadRedactionProfile", "Load a profile…", self.load_profile_file,
                                       tooltip="A JSON profile file: headers, JSON paths "
                                               "($.params.arguments.password), patterns")
        self.rules = text_label("redactionRules")
        self.masked = named(QListWidget(), "maskedList", "What the profile masks")
        self.masked.setMaximumHeight(130)
        self.status = text_label("previewStatus")
        self.preview = named(QPlainTextEdit(), "exportPreview", "The start of the output, masks marked")
        self.preview.setReadOnly(True)
        self.preview.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.highlighter = MaskHighlighter(self.preview.document(), self)
        self.box = QDialogButtonBox()
        self.action = self.box.addButton("Copy" if request.is_copy else "Save…",
                                         QDialogButtonBox.ButtonRole.AcceptRole)
        self.action.setObjectName("previewCopy" if request.is_copy else "previewSave")
        self.action.setDefault(True)
        self.box.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.box.accepted.connect(self.finish)
        self.box.rejected.connect(self.reject)
        chooser = QHBoxLayout()
        chooser.addWidget(self.profile_box, 1)
        chooser.addWidget(self.load_button)
        form = QFormLayout()
        form.addRow("Redaction profile", chooser)
        form.addRow("Its rules", self.rules)
        form.addRow("What it masks", self.masked)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(self.preview, 1)
        layout.addWidget(self.box)
        self._poll = QTimer(self)
        self._poll.setInterval(30)
        self._poll.timeout.connect(self._check)
        self.profile_box.currentIndexChanged.connect(lambda _i: self.compute())
        if prepared is not None and prepared.profile.name == self.profile().name:
            self._show(prepared)
        else:
            self.compute()

    def profile(self) -> RedactionProfile:
        return self.profiles[max(0, self.profile_box.currentIndex())]

    def choose(self, name: str) -> None:
        self.profile_box.setCurrentIndex(self.profile_box.findText(name))

    # --- computing -----------------------------------------------------------------------------

    def compute(self) -> None:
        """The export under the chosen profile: a copy at once, a trace on the worker thread."""
        profile = self.profile()
        self.rules.setText("\n".join(profile.rule_lines()))
        self.prepared = None
        self.action.setEnabled(False)
        self.masked.clear()
        store = self.store
        operations, messages = list(store.operations), list(store.messages)  # the snapshot the worker reads
        if self.request.is_copy:
            self._finished(lambda: prepare(operations, messages, self.request, profile))
            return
        self.status.setText(f"Computing the {LABELS[self.request.kind]} of {len(messages):,} message(s)…")
        self.preview.setPlainText("")
        request = self.request
        self._future = in_background(lambda: prepare(operations, messages, request, profile))
        self._poll.start()

    def _check(self) -> None:
        future = self._future
        if future is None or not future.done():
            return
        self._poll.stop()
        self._future = None
        self._finished(future.result)  # the worker's answer, or its PrepareError

    def _finished(self, result: Callable[[], PreparedExport]) -> None:
        try:
            prepared = result()
        except (PrepareError, ValueError) as exc:
            self.status.setText(str(exc))
            self.status.setStyleSheet(tones.color_style(tones.ERROR, self))
            return
        self._show(prepared)

    def _show(self, prepared: PreparedExport) -> None:
        self.prepared = prepared
        self.status.setStyleSheet("")
        lines = prepared.tally.lines()
        self.masked.clear()
        self.masked.addItems(lines or ["nothing to mask"])
        size = len(prepared.text.encode())
        self.status.setText(f"{size:,} bytes, {prepared.masks} mask(s) ({MASK})"
                            + (f"; {prepared.note}" if prepared.note else "") + ". The start of it:")
        self.preview.setPlainText(prepared.preview())
        self.action.setEnabled(True)

    # --- profiles ------------------------------------------------------------------------------

    def load_profile_file(self, path: str | None = None) -> bool:
        path = path or file_dialogs.ask_open(self, "Load a redaction profile", "Redaction profiles (*.json)",
                                             "redaction")
        if not path:
            return False
        try:
            profile = load_profile(path)
        except ProfileError as exc:
            self.status.setText(f"Cannot use {path}: {exc}")
            self.status.setStyleSheet(tones.color_style(tones.ERROR, self))
            return False
        self.profiles = [p for p in self.profiles if p.name != profile.name] + [profile]
        kept = [profile_to_json(p) for p in self.profiles if p.name not in ("default", "none")]
        self.window_.settings.setValue(PROFILES_KEY, json.dumps(kept))
        self.profile_box.blockSignals(True)
        self.profile_box.clear()
        self.profile_box.addItems([p.name for p in self.profiles])
        self.profile_box.blockSignals(False)
        self.choose(profile.name)
        self.compute()
        return True

    # --- the choice ----------------------------------------------------------------------------

    def finish(self) -> None:
        """Save… asks where, then writes what was previewed; Copy puts it on the clipboard."""
        if (prepared := self.prepared) is None:
            return
        self.window_.settings.setValue(LAST_KEY, prepared.profile.name)
        if self.request.is_copy:
            QGuiApplication.clipboard().setText(prepared.text)
            self.done_(prepared, None)
            self.accept()
            return
        filters, name = self.save_as
        path = file_dialogs.ask_save(self, f"Export as {LABELS[self.request.kind]}", name, filters, "exports")
        if not path:
            return
        try:
            save(prepared, path)
        except OSError as exc:
            self.status.setText(f"Cannot write {path}: {exc.strerror or exc}")
            self.status.setStyleSheet(tones.color_style(tones.ERROR, self))
            return
        self.done_(prepared, path)
        self.accept()


def show_preview(window: "MainWindow", request: ExportRequest, done: Done,
                 save_as: tuple[str, str] = ("All files (*)", "export"), store: "TraceStore | None" = None,
                 ) -> RedactionPreview | None:
    """Open the preview (kept as `window.redaction_preview`); a copy that cannot be made is refused
    with the reason, and no dialog opens."""
    prepared = None
    if request.is_copy:
        store = store if store is not None else window.studio.store
        profiles = saved_profiles(window)
        last = str(window.settings.value(LAST_KEY, "default"))
        profile = next((p for p in profiles if p.name == last), profiles[0])
        try:
            prepared = prepare(list(store.operations), list(store.messages), request, profile)
        except PrepareError as exc:
            window.show_error(str(exc))
            return None
    from .focus_order import present

    dialog = RedactionPreview(window, request, done, prepared, save_as, store)
    window.redaction_preview = dialog
    present(dialog)
    return dialog
