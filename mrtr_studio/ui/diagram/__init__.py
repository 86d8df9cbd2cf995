"""The sequence diagram of one operation: lanes User, Client, Server; one arrow per message."""

from .items import ArrowItem
from .view import DiagramCanvas, SequenceDiagramView

__all__ = ["ArrowItem", "DiagramCanvas", "SequenceDiagramView"]
