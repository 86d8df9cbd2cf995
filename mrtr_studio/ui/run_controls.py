"""Run / Step / Continue / Stop (debugger shortcuts: F5, F10, F8, Shift+F5) and the tamper actions."""

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QToolBar, QWidget

from ..studio.controller import StudioState
from ..studio.tampering import TAMPERS

TAMPER_LABELS = {
    "signature": "Corrupt the state's &signature",
    "payload": "Flip a byte of the state's &payload",
    "malformed": "&Truncate the state (no longer a token)",
    "drop": "&Drop the state, keep the answers",
    "invent": "&Invent a state (signed by another key)",
    "arguments": "Change the &arguments",
    "expire": "Wait past &expiry",
    "identity:bob": "Retry as &bob",
    "identity:alice": "Retry as a&lice",
}


class RunControls(QObject):
    tamperRequested = Signal(str)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.run = self._action(parent, "&Run", "F5", "Run the selected tool, prompt or resource through every round")
        self.step = self._action(parent, "&Step", "F10", "Step mode: send the held message, hold the next")
        self.continue_ = self._action(parent, "&Continue", "F8", "Send the held message and run to the end")
        self.stop = self._action(parent, "S&top", "Shift+F5", "Stop the run (the held message is not sent)")
        self.tampers: dict[str, QAction] = {}
        for kind, label in TAMPER_LABELS.items():
            action = QAction(label, parent)
            action.setToolTip(TAMPERS[kind.split(":")[0]] + " (now when held at a retry, else before the next retry)")
            action.triggered.connect(lambda _=False, k=kind: self.tamperRequested.emit(k))
            self.tampers[kind] = action
        self.set_state("idle")

    @staticmethod
    def _action(parent: QWidget, text: str, shortcut: str, tip: str) -> QAction:
        action = QAction(text, parent)
        action.setShortcut(QKeySequence(shortcut))
        action.setToolTip(f"{tip} ({shortcut})")
        action.setStatusTip(tip)
        parent.addAction(action)  # shortcuts work whichever panel has the focus
        return action

    def actions(self) -> list[QAction]:
        return [self.run, self.step, self.continue_, self.stop]

    def toolbar(self, parent: QWidget, *extra: QWidget) -> QToolBar:
        """The run actions, then `extra` widgets (the armed-tamper indicator)."""
        bar = QToolBar("Run", parent)
        bar.setObjectName("runToolbar")
        for action in self.actions():
            bar.addAction(action)
        for widget in extra:
            bar.addWidget(widget)
        return bar

    def set_state(self, state: StudioState, step_valid: bool = True) -> None:
        idle = state == "idle"
        self.run.setEnabled(idle)
        self.step.setEnabled(idle or (state in ("running", "paused") and step_valid))
        self.continue_.setEnabled(state == "running" or (state == "paused" and step_valid))
        self.stop.setEnabled(state in ("running", "paused"))
