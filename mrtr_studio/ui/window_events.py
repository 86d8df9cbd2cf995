"""How the window follows the studio and the trace: the studio's typed events shown (status bar,
Problems, the step editor brought forward), and the store's changes followed (a started operation
selected with the settings it ran with, an opened file's last flow shown).
"""

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer

from ..protocol.errors import INVALID_PARAMS
from ..studio.controller import StudioEvent, describe_error
from ..studio.operations import RunSettings
from ..trace import StoreEvent
from .window_settings import select_saved_target

if TYPE_CHECKING:
    from .main_window import MainWindow


def on_studio(self: "MainWindow", event: StudioEvent) -> None:
    """What the studio says, shown: the state, errors and notes in Problems, a finished run focused."""
    if event.kind == "state":
        self.state_label.setText(event.state or "")
        self._update_controls()
        if event.state == "paused":
            self.show_inspector(self.step_editor)
    elif event.kind == "error":
        self.show_error(event.text)
    elif event.kind in ("tampered", "clock", "settings", "info"):
        self.show_info(event.text)
    elif event.kind == "catalog" and event.catalog is not None:
        self.show_status(f"Connected to {event.catalog.server} ({event.catalog.era})", "success", 5000)
        for problem in event.catalog.problems:  # failed listings, tool definitions left out
            self.errors.add(f"{event.catalog.server}: {problem}", kind="info")
        select_saved_target(self)
    elif event.kind == "run_finished" and event.result is not None:
        drive = event.result.final  # a task's end, when the call became one
        text = {"complete": "complete", "error": describe_error(drive.error)}.get(drive.outcome, drive.outcome)
        rounds = f"{event.result.operation.rounds} round(s)" + (" as a task" if drive.task else "")
        self.show_status(f"{event.result.operation.target}: {text} after {rounds}",
                         "success" if drive.outcome == "complete" else "error", 10000)
        focus_result(self, event.result.operation.id, drive.error)

def focus_result(self: "MainWindow", operation_id: str, error: dict[str, Any] | None) -> None:
    """Select the message that explains the end: the rejected retry for -32602, else the last one."""
    messages = self.studio.store.messages_of(operation_id)
    if error is not None and error.get("code") == INVALID_PARAMS:
        retries = [m for m in messages if m.kind == "request"]
        if retries:
            self.selection.select(retries[-1])
            self.show_inspector(self.state_inspector)  # it highlights the failed check
            return
    if messages:
        self.selection.select(messages[-1])
        self.show_inspector(self.inspector)

def on_store(self: "MainWindow", event: StoreEvent) -> None:
    """A new operation is selected as it starts (with the settings it ran with); an opened file shows its last."""
    if event.kind == "loaded" and self.studio.store.operations:  # a file or journal opened: its last flow
        self._last_loaded = self.studio.store.operations[-1].id
        QTimer.singleShot(0, self, lambda: show_last_loaded(self))
        return
    if event.kind == "operation_added" and event.operation is not None:
        op = event.operation
        if not event.loaded and self.studio.busy and self.studio.current_operation_id == op.id:
            self.operations.model.index_.note_settings(op.id, RunSettings(
                op.method, op.target, dict(op.arguments), self.studio.identity_shown(),
                self.client_panel.to_json(), self.studio.entry))
        if not event.loaded:
            self.selection.select_operation(op.id)
        elif self._last_loaded is None:  # a file or journal opening: show its last flow, once, at the end
            self._last_loaded = op.id
            QTimer.singleShot(0, self, lambda: show_last_loaded(self))
        else:
            self._last_loaded = op.id

def scroll_to_picked_operation(self: "MainWindow") -> None:
    self.operations.table.scrollTo(self.operations.table.currentIndex())

def show_last_loaded(self: "MainWindow") -> None:
    operation_id, self._last_loaded = self._last_loaded, None
    if operation_id is not None and operation_id in {op.id for op in self.studio.store.operations[-1:]}:
        self.selection.select_operation(operation_id)
