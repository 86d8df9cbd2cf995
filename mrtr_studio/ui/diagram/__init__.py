"""The sequence diagram of one operation: lanes User, Client, Server; one arrow per message."""

from .diagram_view import DiagramCanvas, SequenceDiagramView
from .items import ArrowItem
from .zoom import TextZoom, ZoomableCanvas

__all__ = ["ArrowItem", "DiagramCanvas", "SequenceDiagramView", "TextZoom", "ZoomableCanvas"]
