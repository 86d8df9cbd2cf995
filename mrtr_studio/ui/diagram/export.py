"""Diagram export: PNG and SVG render the scene as drawn; Mermaid is the trace package's export.

QSvgGenerator ships in PySide6-Essentials (QtSvg), so SVG is the scene painted through Qt's SVG
paint device rather than a second hand-written renderer. Mermaid text is not duplicated here: it is
mrtr_studio.trace.mermaid's. Every export holds traffic: written 0600 (trace.private_files).
"""

import contextlib
import math
from collections.abc import Iterator

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsScene

from ... import defaults
from ...trace import TraceStore
from ...trace.mermaid import to_mermaid as to_mermaid_text
from ...trace.private_files import write_private


@contextlib.contextmanager
def _as_published(scene: QGraphicsScene) -> Iterator[None]:
    """The scene without the person's selection: an exported picture shows the flow, not what was clicked."""
    lit = [item for item in scene.items() if getattr(item, "highlighted", False) and hasattr(item, "set_highlighted")]
    for item in lit:
        item.set_highlighted(False)
    try:
        yield
    finally:
        for item in lit:
            item.set_highlighted(True)


def fitting_scale(rect: QRectF, scale: float, max_pixels: int = defaults.PICTURE_MAX_PIXELS) -> float:
    """`scale`, or less when the picture would hold more than `max_pixels` (or a side over Qt's 32,767)."""
    area = max(rect.width() * rect.height(), 1.0)
    longest = max(rect.width(), rect.height(), 1.0)
    return min(scale, math.sqrt(max_pixels / area), 32_000 / longest)


def render_image(scene: QGraphicsScene, scale: float = 2.0, background: QColor | None = None) -> QImage:
    """The scene as drawn, without the selection, `scale` times its size (bounded by `fitting_scale`)."""
    rect = scene.sceneRect()
    scale = fitting_scale(rect, scale)
    image = QImage(QSize(max(1, int(rect.width() * scale)), max(1, int(rect.height() * scale))),
                   QImage.Format.Format_ARGB32)
    image.fill(background or QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    with _as_published(scene):
        scene.render(painter, QRectF(image.rect()), rect, Qt.AspectRatioMode.KeepAspectRatio)
    painter.end()
    return image


def png_bytes(scene: QGraphicsScene, scale: float = 2.0, background: QColor | None = None) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image = render_image(scene, scale, background)
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]  # the stubs say bytes; PySide6 wants str
        raise OSError("could not encode the PNG")
    buffer.close()
    return bytes(data.data())


def svg_bytes(scene: QGraphicsScene, title: str = "", background: QColor | None = None) -> bytes:
    rect = scene.sceneRect()
    generator = QSvgGenerator()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(int(rect.width()), int(rect.height())))
    generator.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
    generator.setTitle(title or "MRTR sequence diagram")
    generator.setDescription("Exported by MRTR Studio")
    painter = QPainter(generator)
    painter.fillRect(QRectF(0, 0, rect.width(), rect.height()), background or QColor("white"))
    with _as_published(scene):
        scene.render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
    painter.end()
    buffer.close()
    return bytes(data.data())


def to_png(scene: QGraphicsScene, path: str, scale: float = 2.0, background: QColor | None = None) -> None:
    write_private(path, png_bytes(scene, scale, background))


def to_svg(scene: QGraphicsScene, path: str, title: str = "", background: QColor | None = None) -> None:
    write_private(path, svg_bytes(scene, title, background))


def to_picture(scene: QGraphicsScene, path: str, title: str = "", background: QColor | None = None) -> None:
    """A .png or an .svg, chosen by the file's suffix."""
    if path.endswith(".png"):
        to_png(scene, path, background=background)
    else:
        to_svg(scene, path, title=title, background=background)


def mermaid_text(store: TraceStore, operation_id: str) -> str:
    """The trace package's Mermaid export of one operation, with the person's answering times."""
    return to_mermaid_text(store.operation(operation_id), store.messages_of(operation_id), timings=True)


def to_mermaid(store: TraceStore, operation_id: str, path: str) -> None:
    text = mermaid_text(store, operation_id)
    write_private(path, text if text.endswith("\n") else text + "\n")
