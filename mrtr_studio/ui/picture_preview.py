"""The diagram's PNG and SVG exports through the redaction preview, like every other export: the
chosen profile, what it masks (a count per rule) and, instead of text, the picture itself (scaled to
the dialog), so a credential in an argument or a result never reaches an image unseen.

The profile is applied to a copy of the operation's messages and that copy laid out off the GUI
thread (studio/picture_export.py, the slow part for a big operation); the layout is then drawn
offscreen by the diagram's own items (ui/diagram/published.py, bounded in pixels). Save… writes
exactly the previewed picture, 0600.
"""

from concurrent.futures import Future
from typing import TYPE_CHECKING, Literal

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QLabel, QScrollArea

from ..studio.export_preview import ExportRequest, PreparedExport, PrepareError
from ..studio.picture_export import DiagramShape, LaidOut, lay_out
from ..trace.redaction import MASK
from . import tones
from .builders import named
from .diagram.diagram_view import SequenceDiagramView
from .diagram.published import draw_picture
from .redaction_preview import Done, RedactionPreview, in_background, show_preview

if TYPE_CHECKING:
    from .main_window import MainWindow

PictureKind = Literal["png", "svg"]
FILTERS: dict[PictureKind, str] = {"png": "PNG image (*.png)", "svg": "SVG image (*.svg)"}


class PicturePreview(RedactionPreview):
    """The redaction preview of a picture of `diagram` (the window's, or a lesson's, the Cluster's, a
    comparison's: each over its own store): `picture` shows it where the others show their text."""

    def __init__(self, window: "MainWindow", request: ExportRequest, done: Done, diagram: SequenceDiagramView,
                 save_as: tuple[str, str]) -> None:
        self.diagram = diagram  # before the base dialog, which computes once
        super().__init__(window, request, done, save_as=save_as)

    def compute(self) -> None:
        """Lay the redacted copy out on a worker thread; `_check` draws it once it is there."""
        if not hasattr(self, "picture"):  # the base dialog computes once before this one is complete
            self._add_picture()
        profile = self.profile()
        self.rules.setText("\n".join(profile.rule_lines()))
        self.prepared = None
        self.action.setEnabled(False)
        self.masked.clear()
        self.picture.clear()
        diagram = self.diagram
        shape = DiagramShape(diagram.lane_of, diagram.initial_lanes, diagram.waterfall_action.isChecked())
        store = diagram.store
        operations, messages = list(store.operations), list(store.messages)  # the snapshot the worker reads
        request = self.request
        self.status.setText(f"Laying out the {request.kind.upper()} of the flow under the profile "
                            f"{profile.name!r}…")
        self._laying: Future[LaidOut] | None = in_background(
            lambda: lay_out(operations, messages, request, profile, shape))
        self._poll.start()

    def _add_picture(self) -> None:
        self.picture = named(QLabel(), "picturePreview", "The picture as it will be saved, masks applied")
        self.picture.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
        self.picture_scroll = QScrollArea()
        self.picture_scroll.setWidget(self.picture)
        self.picture_scroll.setWidgetResizable(True)
        self.preview.hide()  # the text preview: a picture has none
        layout = self.layout()
        layout.insertWidget(layout.indexOf(self.preview), self.picture_scroll, 1)

    def _check(self) -> None:
        future = getattr(self, "_laying", None)
        if future is None or not future.done():
            return
        self._poll.stop()
        self._laying = None
        try:
            laid = future.result()
        except (PrepareError, ValueError) as exc:
            self.status.setText(str(exc))
            self.status.setStyleSheet(tones.color_style(tones.ERROR, self))
            return
        if laid.profile.name != self.profile().name:
            return  # another profile was chosen meanwhile: its own layout is on the way
        diagram = self.diagram
        try:
            drawn = draw_picture(laid, diagram.geometry_now.width, diagram.palette())
        except OSError as exc:
            self.status.setText(f"Cannot draw the {laid.request.kind.upper()}: {exc}")
            self.status.setStyleSheet(tones.color_style(tones.ERROR, self))
            return
        self.picture.setPixmap(QPixmap.fromImage(drawn.preview))
        self._show(drawn.prepared)

    def _show(self, prepared: PreparedExport) -> None:
        self.prepared = prepared
        self.status.setStyleSheet("")
        self.masked.clear()
        self.masked.addItems(prepared.tally.lines() or ["nothing to mask"])
        size = len(prepared.payload())
        self.status.setText(f"{size:,} bytes, {prepared.masks} value(s) masked ({MASK}); {prepared.note}. "
                            "The picture as it will be saved:")
        self.action.setEnabled(True)


def preview_picture(window: "MainWindow", kind: PictureKind, diagram: SequenceDiagramView | None = None,
                    ) -> PicturePreview | None:
    """The flow `diagram` shows (the window's by default) as PNG or SVG, shown with its redaction first
    (Save there asks where)."""
    diagram = diagram or window.diagram
    operation_id = diagram.operation_id  # the flow the diagram shows: the selected one, else the newest
    if not operation_id:
        window.show_error("Run or select a flow to export first.")
        return None
    from .focus_order import present

    def saved(prepared: PreparedExport, path: str | None) -> None:
        window.show_info(f"Exported the diagram to {path} (masked: {prepared.tally.summary()}).")
    dialog = PicturePreview(window, ExportRequest(kind, operation_id), saved, diagram,
                            (FILTERS[kind], f"operation-{operation_id}.{kind}"))
    window.redaction_preview = dialog
    present(dialog)
    return dialog


def preview_in_window(diagram: SequenceDiagramView, kind: str) -> bool:
    """A diagram's own toolbar export, when the diagram is in the window (a lesson, the Lab, the Cluster,
    a comparison): its picture, or its Mermaid text from the diagram's own store, previewed like the
    window's. False outside a window (nothing to ask)."""
    from .main_window import MainWindow  # lazily: the window imports this module

    widget = diagram.parentWidget()
    while widget is not None and not isinstance(widget, MainWindow):
        widget = widget.parentWidget()
    if widget is None:
        return False
    if kind == "mmd":
        window = widget
        operation_id = diagram.operation_id
        if not operation_id:
            window.show_error("Run or select a flow to export first.")
            return True

        def saved(prepared: PreparedExport, path: str | None) -> None:
            window.show_info(f"Exported the flow to {path} (masked: {prepared.tally.summary()}).")
        show_preview(window, ExportRequest("mermaid", operation_id), saved,
                     ("Mermaid (*.mmd *.md)", f"operation-{operation_id}.mmd"), store=diagram.store)
        return True
    preview_picture(widget, "png" if kind == "png" else "svg", diagram)
    return True
