"""The message log: a Qt table model translating store events, a filter proxy and the dock widget."""

from .model import COLUMNS, MessageRole, TraceMessageModel
from .proxy import TraceFilterProxy
from .view import MessageLogView

__all__ = ["COLUMNS", "MessageLogView", "MessageRole", "TraceFilterProxy", "TraceMessageModel"]
