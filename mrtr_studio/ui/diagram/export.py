"""Diagram export: PNG and SVG render the scene as drawn; Mermaid is the trace package's export.

QSvgGenerator ships in PySide6-Essentials (QtSvg), so SVG is the scene painted through Qt's SVG
paint device rather than a second hand-written renderer. Mermaid text is not duplicated here: the
action stays disabled until mrtr_studio.trace.mermaid exists.
"""

import importlib
import inspect
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsScene

from ...trace import TraceStore

_MERMAID_NAMES = ("operation_to_mermaid", "to_mermaid", "export_operation", "render_operation", "mermaid")


def to_png(scene: QGraphicsScene, path: str, scale: float = 2.0) -> None:
    rect = scene.sceneRect()
    image = QImage(QSize(int(rect.width() * scale), int(rect.height() * scale)), QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    scene.render(painter, QRectF(image.rect()), rect, Qt.AspectRatioMode.KeepAspectRatio)
    painter.end()
    if not image.save(path):
        raise OSError(f"could not write {path}")


def to_svg(scene: QGraphicsScene, path: str, title: str = "") -> None:
    rect = scene.sceneRect()
    generator = QSvgGenerator()
    generator.setFileName(path)
    generator.setSize(QSize(int(rect.width()), int(rect.height())))
    generator.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
    generator.setTitle(title or "MRTR sequence diagram")
    generator.setDescription("Exported by MRTR Studio")
    painter = QPainter(generator)
    painter.fillRect(QRectF(0, 0, rect.width(), rect.height()), QColor("white"))
    scene.render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
    painter.end()


def _mermaid_function() -> Callable[..., Any] | None:
    try:
        module = importlib.import_module("mrtr_studio.trace.mermaid")
    except ImportError:
        return None
    for name in _MERMAID_NAMES:
        function = getattr(module, name, None)
        if callable(function):
            return function
    return None


def mermaid_available() -> bool:
    return _mermaid_function() is not None


def mermaid_text(store: TraceStore, operation_id: str) -> str:
    """Call the trace package's Mermaid export with whatever shape it takes (store+id or operation+messages)."""
    function = _mermaid_function()
    if function is None:
        raise RuntimeError("Mermaid export is not available (mrtr_studio.trace.mermaid is missing)")
    names = list(inspect.signature(function).parameters)
    operation = store.operation(operation_id)
    messages = store.messages_of(operation_id)
    if names and names[0] == "store":
        return str(function(store, operation_id))
    if len(names) >= 2 and names[1] in ("messages", "entries"):
        return str(function(operation, messages))
    return str(function(store, operation_id))


def to_mermaid(store: TraceStore, operation_id: str, path: str) -> None:
    text = mermaid_text(store, operation_id)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text if text.endswith("\n") else text + "\n")
