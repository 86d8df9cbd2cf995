"""The File > Export menu: one flow as HTML, Markdown, Mermaid, PNG or SVG, the whole trace as HAR or
OTLP, every entry named the same way ("Export as X…") and every file written 0600.

The writing is Qt-free (studio/exports.py, studio/export_preview.py, the diagram's export.py); every
entry is shown first with its redaction profile and what it masks (ui/redaction_preview.py; PNG and
SVG, whose labels carry arguments and results, draw the redacted copy: the diagram's own actions
open ui/picture_preview.py), and Save there asks where. This module says what was written.
"""

from typing import TYPE_CHECKING, Literal

from PySide6.QtWidgets import QMenu

if TYPE_CHECKING:  # the previews are imported at the first export, not with the window (issue #23's launch)
    from ..studio.export_preview import PreparedExport
    from ..studio.exports import FlowFormat, TraceFormat
    from .main_window import MainWindow
    from .redaction_preview import RedactionPreview

#: (label, kind, file-dialog filter); the trace's add a default file name. Mermaid, PNG and SVG are the
#: diagram's own actions (its toolbar shares them), renamed to the same scheme.
FLOW_ENTRIES: "tuple[tuple[str, FlowFormat, str], ...]" = (("Export as &HTML…", "html", "HTML pages (*.html)"),
                                                        ("Export as &Markdown…", "md", "Markdown (*.md)"))
TRACE_ENTRIES: "tuple[tuple[str, TraceFormat, str, str], ...]" = (
    ("Export the trace as H&AR…", "har", "HTTP Archive (*.har)", "trace.har"),
    ("Export the trace as &OTLP…", "otlp", "OTLP/JSON (*.json)", "trace.otlp.json"))


def build_export_menu(window: "MainWindow", file_menu: QMenu) -> QMenu:
    """The Export submenu of File: the selected flow's formats, then the whole trace's."""
    menu = file_menu.addMenu("&Export")
    for label, kind, filters in FLOW_ENTRIES:
        action = menu.addAction(label)
        action.triggered.connect(lambda _=False, k=kind, f=filters: preview_flow(window, k, f))
    diagram = window.diagram
    for action, name in ((diagram.mermaid_action, "Export as M&ermaid…"), (diagram.png_action, "Export as &PNG…"),
                         (diagram.svg_action, "Export as &SVG…")):
        action.setText(name)
        menu.addAction(action)
    diagram.mermaid_action.triggered.disconnect()  # Mermaid is text: shown with its redaction first, here too
    diagram.mermaid_action.triggered.connect(lambda _=False: preview_flow(window, "mermaid", "Mermaid (*.mmd *.md)"))
    menu.addSeparator()
    for label, trace_kind, filters, name in TRACE_ENTRIES:
        action = menu.addAction(label)
        action.triggered.connect(lambda _=False, k=trace_kind, f=filters, n=name: ask_trace_export(window, k, f, n))
    return menu


def preview_flow(window: "MainWindow", kind: 'FlowFormat | Literal["mermaid"]', filters: str,
                 ) -> "RedactionPreview | None":
    """The selected flow as HTML, Markdown or Mermaid, shown with its redaction first."""
    from ..studio.export_preview import ExportRequest
    from .redaction_preview import show_preview

    operation_id = window.selection.operation_id or window.studio.current_operation_id
    if not operation_id:
        window.show_error("Run or select a flow to export first.")
        return None

    def saved(prepared: "PreparedExport", path: str | None) -> None:
        window.show_info(f"Exported the flow to {path} (masked: {prepared.tally.summary()}).")
    name = "flow.mmd" if kind == "mermaid" else f"flow.{kind}"
    return show_preview(window, ExportRequest(kind, operation_id), saved, (filters, name))


def ask_trace_export(window: "MainWindow", kind: "TraceFormat", filters: str, name: str,
                     ) -> "RedactionPreview | None":
    """The whole trace as HAR or OTLP, shown with its redaction first; Save there asks where."""
    from ..studio.export_preview import ExportRequest
    from .redaction_preview import show_preview

    if not window.studio.store.operations:
        window.show_error("The trace is empty: run or open a flow before exporting it.")
        return None

    def saved(prepared: "PreparedExport", path: str | None) -> None:
        window.show_info(f"Exported the trace as {kind.upper()} to {path} ({prepared.note}; "
                         f"masked: {prepared.tally.summary()}).")
    return show_preview(window, ExportRequest(kind), saved, (filters, name))
