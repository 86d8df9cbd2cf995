"""A picture of the diagram as it may be published: the redacted copy studio/picture_export.py laid
out, drawn offscreen by the diagram's own items (a SequenceDiagramView nobody sees, over no store),
nothing selected, then written as PNG or SVG by export.py. The window's diagram is never touched: what
it shows is the person's, unmasked; the picture is what leaves.

Drawing is on the GUI thread (scene items are), bounded: the PNG's pixels by
`defaults.PICTURE_MAX_PIXELS`, the preview's width by `defaults.PICTURE_PREVIEW_WIDTH`.
"""

from dataclasses import dataclass

from PySide6.QtGui import QImage, QPalette

from ... import defaults
from ...studio.picture_export import LaidOut, PreparedPicture
from ...trace import TraceStore
from ..selection import Selection
from . import export
from .diagram_view import SequenceDiagramView


@dataclass(frozen=True)
class DrawnPicture:
    prepared: PreparedPicture
    preview: QImage  # the same scene, scaled to the preview's width


def draw_picture(laid: LaidOut, width: float, palette: QPalette | None = None) -> DrawnPicture:
    """`laid` drawn `width` wide in `palette`'s colours (the window diagram's, so light or dark matches)."""
    view = SequenceDiagramView(TraceStore(), Selection(), lanes=tuple(laid.layout.lanes))
    try:
        if palette is not None:
            view.setPalette(palette)
        view.colours.update_from(view.palette())
        view.show_laid_out(laid.operation, laid.layout, laid.waterfall, width)
        background = view.colours.background
        if laid.request.kind == "png":
            data = export.png_bytes(view.scene, background=background)
        else:
            data = export.svg_bytes(view.scene, title=view.title_text(), background=background)
        scene_width = max(view.scene.sceneRect().width(), 1.0)
        preview = export.render_image(view.scene, min(1.0, defaults.PICTURE_PREVIEW_WIDTH / scene_width),
                                      background)
    finally:
        view.deleteLater()
    prepared = PreparedPicture(laid.request, laid.profile, "", laid.tally,
                               f"{laid.request.kind.upper()} image, {len(laid.messages):,} message(s)", data)
    return DrawnPicture(prepared, preview)
