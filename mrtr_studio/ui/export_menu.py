"""The File > Export menu: one flow as HTML, Markdown, Mermaid, PNG or SVG, the whole trace as HAR or
OTLP, every entry named the same way ("Export as X…") and every file written 0600.

The writing is Qt-free (studio/exports.py, the diagram's export.py); this module only asks where and
says what was written, so a menu entry and a test end in the same function.
"""

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMenu

from ..studio.exports import TraceFormat, export_trace
from . import file_dialogs

if TYPE_CHECKING:
    from .main_window import MainWindow

#: (label, kind, file-dialog filter); the trace's add a default file name. Mermaid, PNG and SVG are the
#: diagram's own actions (its toolbar shares them), renamed to the same scheme.
FLOW_ENTRIES = (("Export as &HTML…", "html", "HTML pages (*.html)"),
                ("Export as &Markdown…", "md", "Markdown (*.md)"))
TRACE_ENTRIES: tuple[tuple[str, TraceFormat, str, str], ...] = (
    ("Export the trace as H&AR…", "har", "HTTP Archive (*.har)", "trace.har"),
    ("Export the trace as &OTLP…", "otlp", "OTLP/JSON (*.json)", "trace.otlp.json"))


def build_export_menu(window: "MainWindow", file_menu: QMenu) -> QMenu:
    """The Export submenu of File: the selected flow's formats, then the whole trace's."""
    menu = file_menu.addMenu("&Export")
    for label, kind, _ in FLOW_ENTRIES:
        action = menu.addAction(label)
        action.triggered.connect(lambda _=False, k=kind: window._export_flow(k))
    diagram = window.diagram
    for action, name in ((diagram.mermaid_action, "Export as M&ermaid…"), (diagram.png_action, "Export as &PNG…"),
                         (diagram.svg_action, "Export as &SVG…")):
        action.setText(name)
        menu.addAction(action)
    menu.addSeparator()
    for label, trace_kind, filters, name in TRACE_ENTRIES:
        action = menu.addAction(label)
        action.triggered.connect(lambda _=False, k=trace_kind, f=filters, n=name: ask_trace_export(window, k, f, n))
    return menu


def ask_trace_export(window: "MainWindow", kind: TraceFormat, filters: str, name: str) -> None:
    if not window.studio.store.operations:
        window.show_error("The trace is empty: run or open a flow before exporting it.")
        return
    path = file_dialogs.ask_save(window, f"Export the trace as {kind.upper()}", name, filters, "exports")
    if path:
        write_trace_export(window, kind, path)


def write_trace_export(window: "MainWindow", kind: TraceFormat, path: str) -> None:
    try:
        written = export_trace(window.studio.store, kind, path)
    except OSError as exc:
        window.show_error(f"Cannot write {path}: {exc.strerror or exc}")
        return
    window.show_info(f"Exported the trace as {kind.upper()} to {written.path} ({written.note}).")
