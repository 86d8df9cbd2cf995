"""The studio's controller: everything the window does, without Qt, as one small facade over services.

- `connection` (studio/connection.py): the server, the client's era, capabilities and identity, the
  session over it and the catalog it listed;
- `runner` (studio/runner.py): running operations, Step / Continue / Stop, tampering;
- `embedded` (studio/embedded.py): the in-process demo engine, its clock, serving it on loopback;
- `files` (studio/trace_files.py): save, open, the autosave journal and what it recovers;
- `watching` (recording proxies and wrapped stdio sessions) and `auth` (OAuth flows per server).

The window, the `--auto` screenshot run, tests and guided lessons all drive this same object; the
facade forwards the calls they make to the service that owns them, and every service reports through
one typed emitter (`subscribe`). See docs/architecture.md.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..client.auto_answers import auto_respond
from ..client.driver import Respond
from ..engine import Binding, McpServer
from ..engine.state_inspect import Inspection, inspect_token
from ..trace import TraceStore, lint
from ..transport.base import WireEvent, on_listener_failure
from .auth_log import AuthLog
from .connection import Connection, TransportFactory
from .embedded import EmbeddedEngine
from .events import Catalog, Events, StudioEvent, StudioState
from .replay_serving import ReplayServings
from .runner import AnswerCancelled, Runner, describe_error
from .selection import Selection
from .server_entries import ServerEntry
from .step_gate import Message
from .trace_files import TraceFiles, last_session_path, recovered_path
from .watching import Watching

__all__ = ["AnswerCancelled", "Catalog", "Studio", "StudioEvent", "StudioState", "describe_error",
           "last_session_path", "recovered_path"]


def _forward(service: str, name: str) -> Any:
    """An attribute of the facade that is `self.<service>.<name>` (read and, for data, written)."""
    return property(lambda self: getattr(getattr(self, service), name),
                    lambda self, value: setattr(getattr(self, service), name, value),
                    doc=f"`{service}.{name}`")


class Studio:
    def __init__(self, store: TraceStore | None = None, answerer: Respond | None = None,
                 transport_factory: TransportFactory | None = None, engine: McpServer | None = None) -> None:
        self.store = store if store is not None else TraceStore()
        self.events = Events()
        #: How input requests get answered: the GUI's form dialog, or schema defaults (`--auto`).
        self.answerer: Respond = answerer or auto_respond
        self.embedded = EmbeddedEngine(self.store, self.events, engine)
        self.engine = self.embedded.engine
        #: OAuth flows per server and the log of their exchanges (tokens never leave the flows).
        self.auth = AuthLog()
        self.connection = Connection(self, self.store, self.events, self._respond, transport_factory)
        self.runner = Runner(self.connection, self.embedded, self.store, self.events)
        self.files = TraceFiles(self.store, self.events, lambda: self.runner.busy)
        #: Recording proxies and wrapped stdio sessions (the Proxy panel).
        self.watching = Watching(self.store, self.events.info)
        #: Recorded operations served by replay servers on loopback (the operations list's Serve this recording).
        self.replays = ReplayServings(self.store, self.events)
        #: What the person is looking at (one operation, one message), shared by every view.
        self.selection = Selection()
        #: Secrets used to check signatures of an external server's states in the inspector.
        self.external_secrets: list[str] = []
        lint.attach(self.store)
        on_listener_failure(self._listener_failed)

    async def _respond(self, requests: dict[str, Any], round_number: int) -> dict[str, Any]:
        return await self.answerer(requests, round_number)  # looked up per round: tests swap the answerer

    def subscribe(self, listener: Callable[[StudioEvent], None]) -> Callable[[], None]:
        return self.events.subscribe(listener)

    def report_error(self, text: str) -> None:
        """Show a problem found outside the studio (a bad address, an unreadable file) like any other."""
        self.events.error(text)

    def _listener_failed(self, exc: BaseException, event: WireEvent) -> None:
        method = event.message.get("method") if isinstance(event.message, dict) else None
        self.events.error(f"a {event.direction} message{f' ({method})' if method else ''} may be missing from "
                          f"the trace: recording it failed with {type(exc).__name__}: {exc}")

    last_error = _forward("events", "last_error")

    # --- connection ------------------------------------------------------------------------------
    entry = _forward("connection", "entry")
    era = _forward("connection", "era")
    capabilities = _forward("connection", "capabilities")
    identity = _forward("connection", "identity")
    catalog = _forward("connection", "catalog")
    transport_factory = _forward("connection", "transport_factory")
    client_settings = _forward("connection", "client_settings")
    set_era = _forward("connection", "set_era")
    set_capabilities = _forward("connection", "set_capabilities")
    set_identity = _forward("connection", "set_identity")
    identity_shown = _forward("connection", "identity_shown")

    async def connect(self, entry: Any = None) -> Catalog | None:
        """Connect (or reconnect) and list what the server offers; errors become an `error` event."""
        if self.runner.busy:
            self.events.error("stop the running operation before connecting elsewhere")
            return None
        self.runner.set_state("connecting")
        try:
            return await self.connection.connect(entry)
        finally:
            self.runner.set_state("idle")

    async def disconnect(self) -> None:
        await self.runner.stop_and_wait()
        await self.connection.drop_session()

    # --- running ---------------------------------------------------------------------------------
    state = _forward("runner", "state")
    busy = _forward("runner", "busy")
    pending = _forward("runner", "pending")
    gate = _forward("runner", "gate")
    last_result = _forward("runner", "last_result")
    current_operation_id = _forward("runner", "current_operation_id")
    start = _forward("runner", "start")
    run = _forward("runner", "run")
    resume = _forward("runner", "resume")
    wait = _forward("runner", "wait")
    step = _forward("runner", "step")
    continue_ = _forward("runner", "continue_")
    stop = _forward("runner", "stop")
    stop_and_wait = _forward("runner", "stop_and_wait")
    edit_pending = _forward("runner", "edit_pending")
    tamper = _forward("runner", "tamper")

    # --- the embedded engine -----------------------------------------------------------------------
    engine_secret = _forward("embedded", "secret")
    clock_offset = _forward("embedded", "clock_offset")
    engine_now = _forward("embedded", "now")
    advance_clock = _forward("embedded", "advance_clock")
    reset_clock = _forward("embedded", "reset_clock")
    serving_url = _forward("embedded", "serving_url")
    start_serving = _forward("embedded", "start_serving")
    stop_serving = _forward("embedded", "stop_serving")

    def inspect_state(self, token: Any, request: Message | None = None, principal: str | None = None) -> Inspection:
        """Every check of a requestState, against the request it came back on (when given)."""
        embedded = self.entry.kind == "embedded"
        keys = [self.embedded.secret] if embedded else list(self.external_secrets)
        binding = None
        if isinstance(request, dict) and isinstance(request.get("params"), dict):
            params = request["params"]
            name = params.get("uri") if request.get("method") == "resources/read" else params.get("name")
            binding = Binding(str(request.get("method")), str(name), params.get("arguments") or {},
                              self.identity.user if principal is None else principal)
        codec = self.engine.codec
        return inspect_token(token, secrets=keys or None, binding=binding,
                             now=self.embedded.now() if embedded else None, ttl=codec.ttl if embedded else None,
                             audiences=list(codec.audiences) if embedded else None)

    # --- trace files -------------------------------------------------------------------------------
    autosave = _forward("files", "autosave")
    autosave_notices = _forward("files", "autosave_notices")
    recovered_ids = _forward("files", "recovered_ids")
    save_trace = _forward("files", "save_trace")
    open_trace = _forward("files", "open_trace")
    open_trace_in_background = _forward("files", "open_trace_in_background")
    start_autosave = _forward("files", "start_autosave")
    discard_recovered = _forward("files", "discard_recovered")
    reopen_last_session = _forward("files", "reopen_last_session")
    clear_trace = _forward("files", "clear_trace")
    undo_clear = _forward("files", "undo_clear")

    def export_flow(self, operation_id: str, path: str | Path) -> Path:
        """One flow as an HTML page (or Markdown for a `.md` path), written 0600."""
        from .exports import export_flow  # the exporters load at the first export, not with the window

        return export_flow(self.store, operation_id, path)

    async def connect_and_start(self, entry: ServerEntry, method: str, target: str,
                                arguments: dict[str, Any]) -> None:
        """Run again where an operation ran: connect to its server first, then run it (when connected)."""
        if await self.connect(entry) is not None:
            self.runner.start(method, target, arguments)

    async def close(self) -> None:
        await self.runner.stop_and_wait()
        await self.connection.drop_session()
        await self.embedded.stop_serving()
        await self.replays.close()
        await self.watching.close()
        await self.auth.aclose()
        self.files.close()
