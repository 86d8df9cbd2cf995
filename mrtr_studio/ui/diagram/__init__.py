"""The sequence diagram of one operation: lanes User, Client, Server; one arrow per message."""

from .items import ArrowItem
from .view import DiagramCanvas, SequenceDiagramView
from .zoom import TextZoom, ZoomableCanvas

__all__ = ["ArrowItem", "DiagramCanvas", "SequenceDiagramView", "TextZoom", "ZoomableCanvas"]
