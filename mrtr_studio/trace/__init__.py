"""The flow model and its store: operations -> rounds -> messages, recorded once, rendered by many views."""

from .model import Finding, Operation, TraceMessage
from .store import StoreEvent, TraceStore

__all__ = ["Finding", "Operation", "StoreEvent", "TraceMessage", "TraceStore"]
