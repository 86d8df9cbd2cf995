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

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMenu, QMenuBar, QWidget

from ..trace.copy_as import STYLES, Style
from .diagram import SequenceDiagramView
from .diagram.items import ArrowItem, LaneHeaderItem
from .log import MessageLogView

if TYPE_CHECKING:
    from .main_window import MainWindow

LABELS: dict[Style, str] = {"curl": "Copy as &curl", "httpie": "Copy as &HTTPie", "httpx": "Copy as Python h&ttpx",
                            "fetch": "Copy as TypeScript &fetch", "call": "Copy as mrtr-studio c&all"}
Report = Callable[[str, bool], None]  # (text, is_error)
#: What a Copy-as entry does with (seq, style): in the window, the redaction preview.
Copier = Callable[[int, Style], object]


def fill_menu(menu: QMenu, seq: Callable[[], int], copy: Copier) -> QMenu:
    """One entry per style, each copying the message `seq()` names when triggered (through `copy`)."""
    for style in STYLES:
        action = menu.addAction(LABELS[style])
        action.setObjectName(f"copyAs_{style}")
        action.triggered.connect(lambda _=False, s=style: copy(seq(), s))
    return menu


def _popup(parent: QWidget, seq: int, where: QPoint, copy: Copier) -> QMenu:
    menu = fill_menu(QMenu(parent), lambda: seq, copy)
    menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    menu.popup(where)
    return menu


def install_on_log(log: MessageLogView, copy: Copier) -> None:
    """Right-click on a row of the message log: that message's Copy-as menu."""
    table = log.table
    table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def requested(pos: QPoint) -> None:
        index = table.indexAt(pos)
        if index.isValid():
            entry = log.model.message_at(log.proxy.mapToSource(index).row())
            log.last_menu = _popup(table, entry.seq, table.viewport().mapToGlobal(pos), copy)

    table.customContextMenuRequested.connect(requested)


def install_on_diagram(diagram: SequenceDiagramView, copy: Copier) -> None:
    """Right-click on an arrow of the diagram: that message's Copy-as menu."""
    canvas = diagram.canvas
    canvas.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def requested(pos: QPoint) -> None:
        for item in canvas.items(pos):
            if isinstance(item, LaneHeaderItem):
                return  # the sticky header covers the rows under it
            if isinstance(item, ArrowItem) and item.arrow.seq is not None:
                diagram.last_menu = _popup(canvas, item.arrow.seq, canvas.viewport().mapToGlobal(pos), copy)
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
    copy = fill_menu(edit.addMenu("&Copy the selected message as"), lambda: window.selection.message_seq, preview)
    install_on_log(window.log, preview)
    install_on_diagram(window.diagram, preview)
    return copy
