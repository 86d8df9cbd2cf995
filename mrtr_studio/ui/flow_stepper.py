"""Presentation mode's clicker on the Flow tab: the shown operation's messages, one arrow at a time."""

from ..studio.controller import Studio
from .selection import Selection


class FlowStepper:
    """Step through the selected operation's messages, one arrow at a time (presentation mode)."""

    def __init__(self, studio: Studio, selection: Selection) -> None:
        self.studio, self.selection = studio, selection

    def _move(self, offset: int) -> None:
        operation_id = self.selection.operation_id or self.studio.current_operation_id
        messages = self.studio.store.messages_of(operation_id) if operation_id else []
        if not messages:
            return
        seqs = [m.seq for m in messages]
        here = seqs.index(self.selection.message_seq) if self.selection.message_seq in seqs else -1
        target = min(max(here + offset, 0), len(messages) - 1) if here >= 0 else (0 if offset > 0 else len(seqs) - 1)
        self.selection.select(messages[target])

    def step(self) -> None:
        self._move(1)

    def back(self) -> None:
        self._move(-1)
