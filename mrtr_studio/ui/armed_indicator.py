"""The toolbar's "armed: …" indicator: a tamper chosen while nothing is held waits for the next
retry, and saying so only in the status bar (gone after a few seconds) left people unsure whether
the next run would be tampered. The indicator stays until the tamper has been applied.
"""

from PySide6.QtWidgets import QLabel, QToolBar

from ..studio.controller import Studio, StudioEvent
from ..studio.events import Notice
from .builders import subscribe_while_alive

ARMED = "armed: "


class ArmedIndicator(QLabel):
    """Follows the studio's "tampered" notices: an "armed: …" one adds a waiting tamper, any other
    (the tamper done on a retry) takes the oldest off; empty when none waits. (A tamper applied
    at once to a held retry says the same as an armed one applied: with one armed and another
    applied at once, the indicator clears one early; the status line and Problems still say all.)"""

    def __init__(self, studio: Studio, bar: QToolBar | None = None) -> None:
        """`bar`: the toolbar it ends (the mode bar: the last thing in the row, it moves no button as it grows)."""
        super().__init__()
        if bar is not None:
            bar.addWidget(self)
        self.setObjectName("armedTamper")
        self.setAccessibleName("Armed tampers")
        self.waiting: list[str] = []
        self._show()
        subscribe_while_alive(self, studio, self.on_studio)

    def on_studio(self, event: StudioEvent) -> None:
        if not isinstance(event, Notice) or event.kind != "tampered":
            return
        if event.text.startswith(ARMED):
            self.waiting.append(event.text.removeprefix(ARMED).removesuffix(", before the next retry"))
        elif self.waiting:
            self.waiting.pop(0)
        self._show()

    def _show(self) -> None:
        # empty rather than hidden: a toolbar owns its widgets' visibility (through their actions)
        self.setText(f"  ⚑ armed: {'; '.join(self.waiting)}  " if self.waiting else "")
        self.setToolTip("Applied to the next retry that carries a requestState" if self.waiting else "")
