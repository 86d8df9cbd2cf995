"""The base of the window's panels over its one trace: the inspectors, expert info, the lab.

Each reads the window's `store` and follows (and sets) the window's `selection`, never a copy of
either, so a click in any panel is a click in all of them. Pages that draw their own trace are
`teaching.common.OwnTracePage` instead.
"""

from PySide6.QtWidgets import QWidget

from ..trace import TraceStore
from .selection import Selection


class TracePanel(QWidget):
    def __init__(self, store: TraceStore, selection: Selection, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.selection = selection
