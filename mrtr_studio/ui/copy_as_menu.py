"""Copy as: a recorded request to the clipboard as curl, HTTPie, Python httpx, TypeScript fetch or
`mrtr-studio call`, from a context menu on the message log and on the diagram's arrows, and from the
Edit menu for the selected message.

The snippets are trace/copy_as.py's, credentials masked (a trace never stored them); what cannot be
copied (a server's message, a stdio request as curl) is told with CopyError's reason, never copied
half-made. In the window each copy is shown first with its redaction profile and what it masks
(ui/redaction_preview.py: `install` passes it as `copy`), and Copy there puts it on the clipboard.
Installed from outside the views (their context-menu policy), so the log and the diagram
keep no Copy-as code of their own.
"""

from bisect import bisect_left
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu, QMenuBar, QWidget

from ..trace import TraceStore
from ..trace.copy_as import STYLES, CopyError, Style, copy_as
from ..trace.model import TraceMessage
from .diagram import SequenceDiagramView
from .diagram.items import ArrowItem, LaneHeaderItem
from .log import MessageLogView

if TYPE_CHECKING:
    from .main_window import MainWindow

LABELS: dict[Style, str] = {"curl": "Copy as &curl", "httpie": "Copy as &HTTPie", "httpx": "Copy as Python h&ttpx",
                            "fetch": "Copy as TypeScript &fetch", "call": "Copy as mrtr-studio c&all"}
Report = Callable[[str, bool], None]  # (text, is_error)
#: What a Copy-as entry does with (seq, style): straight to the clipboard unless told otherwise.
Copier = Callable[[int, Style], object]


def message_by_seq(store: TraceStore, seq: int) -> TraceMessage | None:
    """The store keeps messages in seq order (appended, or sorted when loaded): a binary search."""
    messages = store.messages
    index = bisect_left(messages, seq, key=lambda m: m.seq)
    return messages[index] if index < len(messages) and messages[index].seq == seq else None


def copy_message(store: TraceStore, seq: int, style: Style, report: Report) -> str | None:
    """Put the snippet on the clipboard; the reason on `report` when the message is not copyable."""
    entry = message_by_seq(store, seq)
    if entry is None:
        report("Select a request in the log or the diagram to copy it.", True)
        return None
    operation = next((op for op in store.operations if op.id == entry.operation_id), None)
    try:
        text = copy_as(entry, style, operation)
    except CopyError as exc:
        report(f"Cannot copy message {seq} as {style}: {exc}", True)
        return None
    QGuiApplication.clipboard().setText(text)
    report(f"Copied message {seq} as {style} (credentials masked).", False)
    return text


def fill_menu(menu: QMenu, store: TraceStore, seq: Callable[[], int], report: Report,
              copy: Copier | None = None) -> QMenu:
    """One entry per style, each copying the message `seq()` names when triggered (through `copy`)."""
    for style in STYLES:
        action = menu.addAction(LABELS[style])
        action.setObjectName(f"copyAs_{style}")
        if copy is None:
            action.triggered.connect(lambda _=False, s=style: copy_message(store, seq(), s, report))
        else:
            action.triggered.connect(lambda _=False, s=style: copy(seq(), s))
    return menu


def _popup(parent: QWidget, store: TraceStore, seq: int, report: Report, where: QPoint,
           copy: Copier | None = None) -> QMenu:
    menu = fill_menu(QMenu(parent), store, lambda: seq, report, copy)
    menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    menu.popup(where)
    return menu


def install_on_log(log: MessageLogView, report: Report, copy: Copier | None = None) -> None:
    """Right-click on a row of the message log: that message's Copy-as menu."""
    table = log.table
    table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def requested(pos: QPoint) -> None:
        index = table.indexAt(pos)
        if index.isValid():
            entry = log.model.message_at(log.proxy.mapToSource(index).row())
            log.last_menu = _popup(table, log.store, entry.seq, report, table.viewport().mapToGlobal(pos), copy)

    table.customContextMenuRequested.connect(requested)


def install_on_diagram(diagram: SequenceDiagramView, report: Report, copy: Copier | None = None) -> None:
    """Right-click on an arrow of the diagram: that message's Copy-as menu."""
    canvas = diagram.canvas
    canvas.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def requested(pos: QPoint) -> None:
        for item in canvas.items(pos):
            if isinstance(item, LaneHeaderItem):
                return  # the sticky header covers the rows under it
            if isinstance(item, ArrowItem) and item.arrow.seq is not None:
                diagram.last_menu = _popup(canvas, diagram.store, item.arrow.seq, report,
                                           canvas.viewport().mapToGlobal(pos), copy)
                return

    canvas.customContextMenuRequested.connect(requested)


def install(window: "MainWindow", bar: QMenuBar) -> QMenu:
    """The window's Edit menu (Copy the selected message as…) and the log's and diagram's context menus."""

    def report(text: str, error: bool) -> None:
        (window.show_error if error else window.show_info)(text)

    def preview(seq: int, style: Style) -> object:
        from ..studio.export_preview import ExportRequest
        from .redaction_preview import show_preview

        return show_preview(window, ExportRequest(style, seq=seq), lambda prepared, _path: report(
            f"Copied message {seq} as {style} (masked: {prepared.tally.summary()}).", False))

    edit = bar.addMenu("&Edit")
    copy = fill_menu(edit.addMenu("&Copy the selected message as"), window.studio.store,
                     lambda: window.selection.message_seq, report, preview)
    install_on_log(window.log, report, preview)
    install_on_diagram(window.diagram, report, preview)
    return copy
