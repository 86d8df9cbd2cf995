"""The studio's controller: everything the window does, without Qt.

It holds the embedded demo engine (rejections explained, clock shiftable), the trace store, the
current connection and client settings; it runs operations as asyncio tasks with Step / Continue /
Stop, tampers with the retry, and reports what happens through `subscribe()` events. The window,
the `--auto` screenshot run, tests and guided lessons all drive the same object.
"""

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..client.auto_answers import auto_respond
from ..client.driver import DriveResult, Respond
from ..client.session import ClientSession, RunResult
from ..client.settings import ALL_CAPABILITIES, CAPABILITY_FLAGS, ClientSettings, EraChoice
from ..engine import Binding, McpServer, MrtrOptions, ServerOptions
from ..engine.state_inspect import Inspection, inspect_token
from ..scenarios import build_demo_server
from ..trace import Operation, TraceMessage, TraceStore, files, lint
from ..trace.autosave import Autosave, merged, recover, set_aside
from ..trace.origin import FileRef
from ..trace.reopen import with_source
from ..transport.base import ClientTransport, Tap, WireEvent, on_listener_failure
from .auth_log import AuthLog
from .connection import TransportFactory, connect_error, default_transport_factory, listing_failure
from .identities import IDENTITY_PRESETS, Identity
from .served_engine import ServedTraffic
from .server_entries import EMBEDDED, ServerEntry
from .step_gate import Message, PendingSend, StepGate
from .tampering import TAMPERS, carries_state, tamper_message
from .watching import Watching

if TYPE_CHECKING:  # uvicorn and starlette load when the engine is first served, not at launch
    from ..transport.http_host import Serving

StudioState = Literal["idle", "connecting", "running", "paused"]
EventKind = Literal["state", "paused", "pending_changed", "resumed", "run_finished", "error", "catalog",
                    "settings", "clock", "tampered", "info"]


@dataclass
class StudioEvent:
    kind: EventKind
    state: StudioState | None = None
    pending: PendingSend | None = None
    result: RunResult | None = None
    catalog: "Catalog | None" = None
    text: str = ""


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


class AnswerCancelled(Exception):
    """Raised by an answer strategy when the person cancels: the run ends aborted, not failed."""


def describe_error(error: dict[str, Any] | None) -> str:
    if not error:
        return ""
    data = error.get("data")
    reason = f" ({data['reason']})" if isinstance(data, dict) and data.get("reason") else ""
    return f"{error.get('code')} {error.get('message')}{reason}"


def last_session_path(journal: Path) -> Path:
    return journal.with_name(journal.stem + ".last" + journal.suffix)


def recovered_path(journal: Path) -> Path:
    """Where operations recovered after a crash are kept until discarded: a trace file next to the journal."""
    return journal.with_name(journal.name.partition(".")[0] + ".recovered" + files.SUFFIX)


class Studio:
    def __init__(self, store: TraceStore | None = None, answerer: Respond | None = None,
                 transport_factory: TransportFactory | None = None, engine: McpServer | None = None) -> None:
        self.engine_secret = secrets.token_urlsafe(32)
        self.engine = engine or build_demo_server(
            ServerOptions(mrtr=MrtrOptions(secret=self.engine_secret, explain_rejections=True)))
        self.clock_offset = 0.0
        self.engine.codec.clock = self.engine_now
        self.store = store if store is not None else TraceStore()
        #: How input requests get answered: the GUI's form dialog, or schema defaults (`--auto`).
        self.answerer: Respond = answerer or auto_respond
        self.transport_factory = transport_factory or default_transport_factory
        self.era: EraChoice = "modern"
        self.capabilities: frozenset[str] = ALL_CAPABILITIES
        self.identity: Identity = IDENTITY_PRESETS["anonymous"]
        self.entry: ServerEntry = EMBEDDED
        #: Secrets used to check signatures of an external server's states in the inspector.
        self.external_secrets: list[str] = []
        self.catalog: Catalog | None = None
        self.state: StudioState = "idle"
        self.last_result: RunResult | None = None
        self.last_error: str | None = None
        self.current_operation_id: str | None = None
        self.gate = StepGate(on_hold=self._on_hold, on_release=self._on_release)
        self.gate.operation_id = lambda: self.current_operation_id
        self._session: ClientSession | None = None
        self._stale = False
        self._task: asyncio.Task[RunResult | None] | None = None
        self._stopping = False
        self._listeners: list[Callable[[StudioEvent], None]] = []
        self.store.subscribe(self._on_store, live=True)
        lint.attach(self.store)
        self.autosave: Autosave | None = None
        #: What starting the autosave found that the person should know: (level, text), for the window to show.
        self.autosave_notices: list[tuple[Literal["info", "error"], str]] = []
        #: Operations recovered after a crash and kept until `discard_recovered`.
        self.recovered_ids: set[str] = set()
        self._recovered_file: Path | None = None
        self._crashed_source: FileRef | None = None
        self._serving: Serving | None = None
        #: Recording proxies and wrapped stdio sessions (the Proxy panel).
        self.watching = Watching(self.store, lambda text: self._emit(StudioEvent("info", text=text)))
        #: OAuth flows per server and the log of their exchanges (tokens never leave the flows).
        self.auth = AuthLog()
        on_listener_failure(self._listener_failed)

    # --- events ------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[StudioEvent], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, event: StudioEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    def _set_state(self, state: StudioState) -> None:
        if state != self.state:
            self.state = state
            self._emit(StudioEvent("state", state=state))

    def _error(self, text: str) -> None:
        self.last_error = text
        self._emit(StudioEvent("error", text=text))

    def _listener_failed(self, exc: BaseException, event: WireEvent) -> None:
        method = event.message.get("method") if isinstance(event.message, dict) else None
        self._error(f"a {event.direction} message{f' ({method})' if method else ''} may be missing from the "
                    f"trace: recording it failed with {type(exc).__name__}: {exc}")

    def report_error(self, text: str) -> None:
        """Show a problem found outside the studio (a bad address, an unreadable file) like any other."""
        self._error(text)

    def _on_store(self, event: Any) -> None:
        if event.kind == "operation_added" and self._task is not None and event.operation is not None:
            self.current_operation_id = event.operation.id

    # --- client settings ---------------------------------------------------------------------

    def client_settings(self) -> ClientSettings:
        return ClientSettings(era=self.era, capabilities=self.capabilities, bearer_token=self.identity.bearer,
                              user=self.identity.user)

    def set_era(self, era: EraChoice) -> None:
        if era not in ("modern", "legacy", "auto"):
            raise ValueError(f"unknown era {era!r}")
        self.era = era
        self._settings_changed(f"era: {era}")

    def set_capabilities(self, flags: set[str] | frozenset[str]) -> None:
        unknown = set(flags) - set(CAPABILITY_FLAGS)
        if unknown:
            raise ValueError(f"unknown capabilities: {', '.join(sorted(unknown))}")
        self.capabilities = frozenset(flags)
        self._settings_changed("capabilities: " + (", ".join(sorted(flags)) or "none"))

    def set_identity(self, identity: Identity | str) -> None:
        self.identity = IDENTITY_PRESETS[identity] if isinstance(identity, str) else identity
        self._settings_changed(f"identity: {self.identity.name}")

    def identity_shown(self) -> str:
        """Who the requests speak for, as the operations list says it: "OAuth" when no static token is set
        and the server's authorization flow holds one."""
        entry = self.entry
        if entry.kind == "http" and not self.identity.bearer and self.auth.authorized(entry.url):
            return "OAuth"
        return self.identity.name

    def _settings_changed(self, text: str) -> None:
        self._stale = True  # the next run builds a fresh client (a running one keeps its settings)
        self._emit(StudioEvent("settings", text=text))

    # --- connection --------------------------------------------------------------------------

    async def _client(self) -> ClientSession:
        if self._session is not None and self._stale:
            await self._drop_session()
        if self._session is None:
            transport: ClientTransport = await self.transport_factory(self.entry, self.identity, self)
            label = "embedded" if self.entry.kind == "embedded" else self.entry.label
            self._session = ClientSession(transport, self.client_settings(), self._respond, self.store,
                                          server_label=label)
            self._stale = False
        return self._session

    async def _drop_session(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            with contextlib.suppress(Exception):
                await session.close()

    async def _respond(self, requests: dict[str, Any], round_number: int) -> dict[str, Any]:
        return await self.answerer(requests, round_number)

    async def connect(self, entry: ServerEntry | None = None) -> Catalog | None:
        """Connect (or reconnect) and list what the server offers; errors become an `error` event."""
        if self.busy:
            self._error("stop the running operation before connecting elsewhere")
            return None
        if entry is not None:
            if entry.problem:
                self._error(f"{entry.label}: {entry.problem}")
                return None
            self.entry = entry
        await self._drop_session()
        self._set_state("connecting")
        try:
            session = await self._client()
            era = await session.ensure_era()
            catalog = Catalog(self.entry.label, era.value, server_info=dict(session.server_info))
            failures: list[tuple[str, str, str]] = []
            for attr, method, lister in (("tools", "tools/list", session.list_tools),
                                         ("prompts", "prompts/list", session.list_prompts),
                                         ("resources", "resources/list", session.list_resources),
                                         ("templates", "resources/templates/list", session.list_resource_templates)):
                try:
                    setattr(catalog, attr, await lister())
                except RuntimeError as exc:  # a JSON-RPC error: this server just lacks that listing
                    catalog.problems.append(f"{attr}: {exc}")
                    failures.append((attr, method, str(exc)))
            if len(failures) == 4:
                raise ConnectionError(listing_failure(failures))
            rejected = getattr(session.transport, "rejected_tools", {})
            catalog.problems += [f"tool {name!r} left out: its x-mcp-header annotations are invalid ({why})"
                                 for name, why in rejected.items()]
        except Exception as exc:
            await self._drop_session()
            self.catalog = None
            self._error(connect_error(self.entry.label, exc))
            return None
        finally:
            self._set_state("idle")
        self.catalog = catalog
        self._emit(StudioEvent("catalog", catalog=catalog))
        return catalog

    async def disconnect(self) -> None:
        await self.stop_and_wait()
        await self._drop_session()

    # --- running -----------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self, method: str, target: str, arguments: dict[str, Any] | None = None, *, step: bool = False,
              label: str = "") -> "asyncio.Task[RunResult | None]":
        """Run one operation as a task on the running loop (what the Run and Step buttons call)."""
        if self.busy:
            raise RuntimeError("an operation is already running")
        self._stopping = False
        self.gate.stepping = step
        self._task = asyncio.get_running_loop().create_task(self._run(method, target, arguments, label))
        return self._task

    async def run(self, method: str, target: str, arguments: dict[str, Any] | None = None, *, step: bool = False,
                  label: str = "") -> RunResult | None:
        """`start` and wait: the RunResult, or None when it was stopped or could not run."""
        return await self.start(method, target, arguments, step=step, label=label)

    async def _run(self, method: str, target: str, arguments: dict[str, Any] | None, label: str) -> RunResult | None:
        self.current_operation_id = None
        self._set_state("running")
        result: RunResult | None = None
        try:
            session = await self._client()
            result = await session.run(method, target, arguments, step=self.gate, label=label)
        except asyncio.CancelledError:
            self._abandon("stopped while running")
            if not self._stopping:
                raise
        except AnswerCancelled as exc:
            self._abandon(str(exc) or "the answer was cancelled")
        except Exception as exc:
            self._abandon(f"{type(exc).__name__}: {exc}", "transport_error")
            self._error(f"{method} {target}: {type(exc).__name__}: {exc}")
        finally:
            self.gate.transforms.clear()
            self._set_state("idle")
        self._finished(result)
        return result

    def _finished(self, result: RunResult | None) -> None:
        self.last_result = result
        if result is not None:
            drive = result.final  # a task's end, when the call became one
            target = result.operation.target
            if drive.outcome == "error":
                self._error(f"{target}: {describe_error(drive.error)}")
            elif drive.outcome != "complete":
                self._error(f"{target}: {drive.outcome}: {drive.problem or ''}".rstrip(": "))
        self._emit(StudioEvent("run_finished", result=result))

    def resume(self, operation_id: str) -> "asyncio.Task[RunResult | None]":
        """Go on polling the task an operation (of a reopened trace) became; Stop cancels it as usual."""
        if self.busy:
            raise RuntimeError("an operation is already running")
        self._stopping = False
        self._task = asyncio.get_running_loop().create_task(self._resume(operation_id))
        return self._task

    async def _resume(self, operation_id: str) -> RunResult | None:
        self.current_operation_id = operation_id
        self._set_state("running")
        result: RunResult | None = None
        try:
            session = await self._client()
            run = await session.resume_task(operation_id)
            result = RunResult(self.store.operation(operation_id), DriveResult("task"), run)
        except asyncio.CancelledError:
            if not self._stopping:
                raise
        except Exception as exc:
            self._error(f"resume: {type(exc).__name__}: {exc}")
        finally:
            self._set_state("idle")
        self._finished(result)
        return result

    def _abandon(self, problem: str, outcome: Literal["aborted", "transport_error"] = "aborted") -> None:
        op_id = self.current_operation_id
        if op_id is not None and self.store.operation(op_id).outcome == "running":
            self.store.finish_operation(op_id, outcome, problem)

    async def wait(self) -> RunResult | None:
        """Wait for the current run (if any) to end."""
        task = self._task
        if task is None:
            return None
        with contextlib.suppress(asyncio.CancelledError):
            return await task
        return None

    # --- step / continue / stop --------------------------------------------------------------

    @property
    def pending(self) -> PendingSend | None:
        return self.gate.pending

    def step(self) -> None:
        """Send the held message and hold the next one (or, while running freely, hold the next send)."""
        self.gate.stepping = True
        if self.gate.holding:
            self.gate.release()

    def continue_(self) -> None:
        """Send the held message and run to the end without holding again."""
        self.gate.stepping = False
        if self.gate.holding:
            self.gate.release()

    def stop(self) -> None:
        """Drop the held message (the run ends aborted), or cancel a run that is not holding."""
        self._stopping = True
        self.gate.stepping = False
        if self.gate.holding:
            self.gate.release(send=False)
        elif self.busy and self._task is not None:
            self._task.cancel()

    async def stop_and_wait(self) -> None:
        if self.busy:
            self.stop()
            await self.wait()

    def edit_pending(self, message: Message) -> None:
        """Replace the held message with an edited one (the step editor calls this before Continue)."""
        self.gate.edit(message)
        self._emit(StudioEvent("pending_changed", pending=self.gate.pending))

    def _on_hold(self, pending: PendingSend) -> None:
        self._set_state("paused")
        self._emit(StudioEvent("paused", pending=pending))

    def _on_release(self, pending: PendingSend, sent: Message | None) -> None:
        self._set_state("running")
        self._emit(StudioEvent("resumed", pending=pending))

    # --- tampering and time ------------------------------------------------------------------

    def tamper(self, kind: str) -> str:
        """Break the retry: a TAMPERS name (`signature`, `malformed`, `arguments`, `expire`, ...) or `identity:NAME`.

        While a retry carrying a requestState is held, it is changed at once; otherwise the tamper is
        armed and applies to the next retry that carries one. Returns what was (or will be) done.
        """
        name = kind.split(":", 1)[0]
        if name not in TAMPERS:
            raise ValueError(f"unknown tamper {kind!r} (known: {', '.join(TAMPERS)})")
        pending = self.gate.pending
        if pending is not None and carries_state(pending.message):
            pending.message, text = self._apply_tamper(kind, pending.message)
            self._emit(StudioEvent("pending_changed", pending=pending))
        else:
            def once(message: Message, round_number: int) -> Message:
                if not carries_state(message):
                    return message
                self.gate.transforms.remove(once)
                message, done = self._apply_tamper(kind, message)
                self._emit(StudioEvent("tampered", text=done))
                return message

            self.gate.transforms.append(once)
            text = f"armed: {TAMPERS[name]}, before the next retry"
        self._emit(StudioEvent("tampered", text=text))
        return text

    def _apply_tamper(self, kind: str, message: Message) -> tuple[Message, str]:
        name, _, arg = kind.partition(":")
        if name == "expire":
            self.advance_clock(self.engine.codec.ttl + 1)
            return message, f"the engine's clock moved {self.engine.codec.ttl + 1} s ahead: the state has expired"
        if name == "identity":
            who = IDENTITY_PRESETS.get(arg or "bob") or Identity(arg, arg, arg)
            self._switch_live_identity(who)
            return message, f"the retry goes out as {who.name}"
        tampered = tamper_message(name, message)
        return tampered.message, tampered.description

    def _switch_live_identity(self, identity: Identity) -> None:
        transport: Any = self._session.transport if self._session else None
        if transport is not None and hasattr(transport, "user"):
            transport.user = identity.user
        if transport is not None and hasattr(transport, "bearer_token"):
            transport.bearer_token = identity.bearer  # HTTP: the next request carries the other token
        self._stale = True  # the next run goes back to the identity picked in the client panel

    def engine_now(self) -> float:
        return time.time() + self.clock_offset

    def advance_clock(self, seconds: float) -> None:
        """Move the embedded engine's clock (requestState iat/exp) ahead, to show expiry without waiting."""
        self.clock_offset += seconds
        self._emit(StudioEvent("clock", text=f"engine clock {self.clock_offset:+.0f} s"))

    def reset_clock(self) -> None:
        self.clock_offset = 0.0
        self._emit(StudioEvent("clock", text="engine clock reset"))

    # --- inspecting ----------------------------------------------------------------------------

    def inspect_state(self, token: Any, request: Message | None = None, principal: str | None = None) -> Inspection:
        """Every check of a requestState, against the request it came back on (when given)."""
        embedded = self.entry.kind == "embedded"
        keys = [self.engine_secret] if embedded else list(self.external_secrets)
        binding = None
        if isinstance(request, dict) and isinstance(request.get("params"), dict):
            params = request["params"]
            name = params.get("uri") if request.get("method") == "resources/read" else params.get("name")
            binding = Binding(str(request.get("method")), str(name), params.get("arguments") or {},
                              self.identity.user if principal is None else principal)
        return inspect_token(token, secrets=keys or None, binding=binding,
                             now=self.engine_now() if embedded else None,
                             ttl=self.engine.codec.ttl if embedded else None,
                             audiences=list(self.engine.codec.audiences) if embedded else None)

    # --- serving the embedded engine to outside clients ---------------------------------------

    @property
    def serving_url(self) -> str | None:
        return self._serving.url if self._serving is not None else None

    async def start_serving(self, port: int = 0) -> str:
        """Serve the embedded engine on Streamable HTTP at 127.0.0.1 and record outside clients' flows."""
        if self._serving is not None:
            return self._serving.url
        from ..transport.http_host import Serving
        from ..transport.http_server import HttpServerConfig

        users = {i.bearer: i.user for i in IDENTITY_PRESETS.values() if i.bearer}
        tap = Tap()
        serving = Serving(self.engine, HttpServerConfig(users=users), tap)
        await serving.start(port)
        tap.listen(ServedTraffic(self.store, f"served at {serving.url}"))
        self._serving = serving
        self._emit(StudioEvent("info", text=f"Serving the embedded engine at {serving.url} "
                                            "(bearer alice-token / bob-token for alice / bob)"))
        return serving.url

    async def stop_serving(self) -> None:
        serving, self._serving = self._serving, None
        if serving is not None:
            await serving.stop()
            self._emit(StudioEvent("info", text=f"Stopped serving at {serving.url}"))

    # --- trace files and the autosave ---------------------------------------------------------

    def save_trace(self, path: str | Path) -> Path:
        """Save the whole trace; the journal then references the saved file instead of holding it."""
        saved = files.save(path, self.store)
        if self.autosave is not None:
            self.autosave.rebase(files.saved_origin(saved, self.store))
        return saved

    def open_trace(self, path: str | Path) -> list[str]:
        """Replace the trace with a saved one, findings as they were recorded. A file that is not a
        readable trace raises ValueError (files.TraceFileError names the JSON path) and changes nothing.
        Returns what the person should be told about the file (written by a newer studio, ...)."""
        self._check_idle("opening a trace")
        opened = files.read_trace(path)
        self.store.load(opened.operations, opened.messages, opened.origin())  # the linter skips loads
        return opened.notes(str(path))

    def _check_idle(self, doing: str) -> None:
        """Replacing the trace under a running operation would pull its record from under it."""
        if self.busy:
            raise ValueError(f"stop the running operation before {doing}")

    async def open_trace_in_background(self, path: str | Path) -> list[str]:
        """`open_trace` without holding up the event loop (the window stays responsive on a 100k-message
        trace): the file is read and checked in a worker thread, then loaded into the store here, on
        the loop's thread, where the views listen. Errors as for `open_trace`."""
        self._check_idle("opening a trace")
        opened = await asyncio.to_thread(files.read_trace, path)
        self._check_idle("opening a trace")  # a run may have started while the file was read
        self.store.load(opened.operations, opened.messages, opened.origin())
        return opened.notes(str(path))

    def _notice(self, level: Literal["info", "error"], text: str) -> None:
        self.autosave_notices.append((level, text))
        if level == "error":
            self._error(text)
        else:
            self._emit(StudioEvent("info", text=text))

    def start_autosave(self, path: str | Path) -> int:
        """Journal this run to `path`; returns how many recovered operations are in the trace.

        A journal left at `path` means the last run did not close cleanly: its operations are
        recovered into the trace and kept in `recovered_path(path)` until `discard_recovered`, so
        they survive clean quits ("Reopen the last session" has them) and later starts. A damaged
        journal is set aside (renamed, kept) with what came before the damage recovered. What the
        person should know lands in `autosave_notices`; nothing here stops the studio starting."""
        path = Path(path)
        self.autosave_notices = []
        kept_file = self._recovered_file = recovered_path(path)
        kept: tuple[list[Operation], list[TraceMessage]] = ([], [])
        if kept_file.exists():
            try:
                kept = files.open_trace(kept_file)
            except ValueError as exc:
                aside = self._set_aside(kept_file)
                self._notice("error", f"The recovered operations could not be read ({exc}); "
                                      f"the file is kept as {aside}.")
        crashed = self._recover_journal(path)
        if crashed is not None and crashed[0]:
            kept = merged(kept, crashed)
        # The file the crashed session had open, reopened under its work (kept alone if gone or changed).
        reopened = with_source(self._crashed_source, *kept)
        if crashed is not None and crashed[0]:
            try:  # the file's unknown fields on its changed operations need its version
                files.save(kept_file, kept, reopened.origin.newer if reopened.origin else None)
            except OSError as exc:
                self._notice("error", f"Cannot keep the recovered operations in {kept_file}: {exc.strerror or exc}")
        try:
            self.autosave = Autosave(self.store, path, on_problem=self._error)
        except OSError as exc:
            self._notice("error", f"The autosave is off: cannot write {path}: {exc.strerror or exc}")
        if reopened.problem:
            self._notice("error", reopened.problem)
        for note in reopened.notes:
            self._notice("info", note)
        if reopened.operations:
            # After the journal opened: the new journal (and last session) has them too, the file by reference.
            self.store.load(reopened.operations, reopened.messages, reopened.origin)
        if kept[0]:
            self.recovered_ids = {op.id for op in kept[0]}
            fresh = len(crashed[0]) if crashed is not None else 0
            self._notice("info", (f"Recovered {fresh} operation(s) from the autosave of a run that did not close "
                                  "cleanly. " if fresh else "")
                         + f"{len(kept[0])} recovered operation(s) are kept (in {kept_file}) until you discard them.")
        return len(kept[0])

    def _recover_journal(self, path: Path) -> tuple[list[Operation], list[TraceMessage]] | None:
        """A crashed run's journal: recovered, then moved to the last-session file (or set aside if damaged).
        The trace file it referenced is left in `_crashed_source` for the caller to reopen."""
        self._crashed_source = None
        try:
            if not path.exists() or not path.stat().st_size:
                return None
            recovery = recover(path)
        except OSError as exc:
            aside = self._set_aside(path)
            self._notice("error", f"The autosave journal {path} cannot be read ({exc.strerror or exc}); "
                                  f"it is kept as {aside}.")
            return None
        if recovery.damage:
            aside = self._set_aside(path)
            before = (f"the {len(recovery.operations)} operation(s) before the damage are recovered"
                      if recovery.operations else "nothing before the damage could be recovered")
            self._notice("error", f"The autosave journal was damaged at {recovery.damage}; it is kept as {aside} "
                                  f"and {before}.")
        else:
            try:
                path.replace(last_session_path(path))
            except OSError as exc:
                self._notice("error", f"Cannot move the crashed run's journal {path}: {exc.strerror or exc}")
        self._crashed_source = recovery.source
        return recovery.operations, recovery.messages

    def _set_aside(self, path: Path) -> Path | str:
        try:
            return set_aside(path)
        except OSError as exc:
            return f"{path} (it could not be renamed: {exc.strerror or exc})"

    def discard_recovered(self) -> int:
        """Forget the operations recovered after a crash: out of the trace (and so the journal), and
        their kept file deleted. Returns how many were discarded."""
        ids, self.recovered_ids = self.recovered_ids, set()
        if self._recovered_file is not None:
            self._recovered_file.unlink(missing_ok=True)
        if any(op.id in ids for op in self.store.operations):
            self.store.load([op for op in self.store.operations if op.id not in ids],
                            [m for m in self.store.messages if m.operation_id not in ids], self.store.origin)
        return len(ids)

    def reopen_last_session(self, path: str | Path) -> int:
        """Load the last cleanly closed session's journal; a damage is reported and what came before it loaded."""
        previous = last_session_path(Path(path))
        if self.busy:
            self._error("stop the running operation before reopening the last session")
            return 0
        if not previous.exists():
            return 0
        try:
            recovery = recover(previous)
        except OSError as exc:
            self._error(f"Cannot read the last session {previous}: {exc.strerror or exc}")
            return 0
        if recovery.damage:
            self._error(f"The last session's journal {previous} is damaged at {recovery.damage}; "
                        "what came before the damage is shown.")
        reopened = with_source(recovery.source, recovery.operations, recovery.messages)
        if reopened.problem:
            self._error(reopened.problem)
        for note in reopened.notes:
            self._emit(StudioEvent("info", text=note))
        self.store.load(reopened.operations, reopened.messages, reopened.origin)
        return len(recovery.operations)

    async def close(self) -> None:
        await self.stop_and_wait()
        await self._drop_session()
        await self.stop_serving()
        await self.watching.close()
        await self.auth.aclose()
        if self.autosave is not None:
            self.autosave.close()
            with contextlib.suppress(OSError):  # nobody is left to tell; the journal stays for the next start
                self.autosave.path.replace(last_session_path(self.autosave.path))  # a clean exit
            self.autosave = None
