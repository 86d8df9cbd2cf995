"""What the studio tells the window, one typed event per kind.

Each event carries exactly its own fields (a state change its state, a finished run its result), so
a listener never reads a field another kind left empty. `kind` names the event for listeners that
dispatch on it (`if event.kind == "error"`); `Events` is the one emitter every service shares.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:
    from ..client.session import RunResult
    from .step_gate import PendingSend

StudioState = Literal["idle", "connecting", "running", "paused"]


@dataclass
class Catalog:
    """What the connected server offers, as its list results give it."""

    server: str
    era: str
    tools: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    templates: list[dict[str, Any]] = field(default_factory=list)
    server_info: dict[str, Any] = field(default_factory=dict)
    #: Listings that failed (a server without prompts, say), as readable lines.
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class StateChanged:
    kind: ClassVar[str] = "state"
    state: StudioState


@dataclass(frozen=True)
class HeldSend:
    """The step mode's held send: `paused` (a send is held, the window shows it, editable),
    `pending_changed` (the held message was edited or tampered with) or `resumed` (it went on)."""

    kind: Literal["paused", "pending_changed", "resumed"]
    pending: "PendingSend | None"


@dataclass(frozen=True)
class RunFinished:
    """A run ended; `result` is None when it was stopped or could not run."""

    kind: ClassVar[str] = "run_finished"
    result: "RunResult | None"


@dataclass(frozen=True)
class CatalogChanged:
    kind: ClassVar[str] = "catalog"
    catalog: Catalog


@dataclass(frozen=True)
class Notice:
    """Something to tell the person in one line: an error (Problems), a settings change, the engine's
    clock, a tamper, or plain information."""

    kind: Literal["error", "settings", "clock", "tampered", "info"]
    text: str


StudioEvent = StateChanged | HeldSend | RunFinished | CatalogChanged | Notice
Listener = Callable[[StudioEvent], None]


class Events:
    """The studio's one emitter: services emit, the window (and tests) subscribe."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        #: The last error said, for the `--auto` run and tests.
        self.last_error: str | None = None

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, event: StudioEvent) -> None:
        if isinstance(event, Notice) and event.kind == "error":
            self.last_error = event.text
        for listener in list(self._listeners):
            listener(event)

    def error(self, text: str) -> None:
        self.emit(Notice("error", text))

    def info(self, text: str) -> None:
        self.emit(Notice("info", text))
