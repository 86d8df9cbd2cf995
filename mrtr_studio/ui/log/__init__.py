"""The message log: a Qt table model translating store events, a filter proxy and the dock widget."""

from .filter_proxy import TraceFilterProxy
from .message_log import MessageLogView
from .message_model import COLUMNS, MessageRole, TraceMessageModel

__all__ = ["COLUMNS", "MessageLogView", "MessageRole", "TraceFilterProxy", "TraceMessageModel"]
