"""Running operations for the window: one asyncio task at a time, with Step / Continue / Stop, the
held send edited or tampered with, and tasks of a reopened trace resumed.

The rounds themselves are the client session's (through the one round-trip machine); the runner owns
what is the window's: which operation is current, whether a send is held, what a tamper does next.
"""

import asyncio
import contextlib
from typing import Any, Literal

from ..client.driver import DriveResult
from ..client.session import RunResult
from ..trace import TraceStore
from .connection import Connection
from .embedded import EmbeddedEngine
from .events import Events, HeldSend, Notice, RunFinished, StateChanged, StudioState
from .identities import IDENTITY_PRESETS, Identity
from .step_gate import Message, PendingSend, StepGate
from .tampering import TAMPERS, carries_state, tamper_message


class AnswerCancelled(Exception):
    """Raised by an answer strategy when the person cancels: the run ends aborted, not failed."""


def describe_error(error: dict[str, Any] | None) -> str:
    if not error:
        return ""
    data = error.get("data")
    reason = f" ({data['reason']})" if isinstance(data, dict) and data.get("reason") else ""
    return f"{error.get('code')} {error.get('message')}{reason}"


class Runner:
    def __init__(self, connection: Connection, embedded: EmbeddedEngine, store: TraceStore, events: Events) -> None:
        self.connection = connection
        self.embedded = embedded
        self.store = store
        self.events = events
        self.state: StudioState = "idle"
        self.last_result: RunResult | None = None
        self.current_operation_id: str | None = None
        self.gate = StepGate(on_hold=self._on_hold, on_release=self._on_release)
        self.gate.operation_id = lambda: self.current_operation_id
        self.task: asyncio.Task[RunResult | None] | None = None
        self._stopping = False
        store.subscribe(self._on_store, live=True)

    def _on_store(self, event: Any) -> None:
        if event.kind == "operation_added" and self.task is not None and event.operation is not None:
            self.current_operation_id = event.operation.id

    def set_state(self, state: StudioState) -> None:
        if state != self.state:
            self.state = state
            self.events.emit(StateChanged(state))

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    # --- running ---------------------------------------------------------------------------------

    def start(self, method: str, target: str, arguments: dict[str, Any] | None = None, *, step: bool = False,
              label: str = "") -> "asyncio.Task[RunResult | None]":
        """Run one operation as a task on the running loop (what the Run and Step buttons call)."""
        if self.busy:
            raise RuntimeError("an operation is already running")
        self._stopping = False
        self.gate.stepping = step
        self.task = asyncio.get_running_loop().create_task(self._run(method, target, arguments, label))
        return self.task

    async def run(self, method: str, target: str, arguments: dict[str, Any] | None = None, *, step: bool = False,
                  label: str = "") -> RunResult | None:
        """`start` and wait: the RunResult, or None when it was stopped or could not run."""
        return await self.start(method, target, arguments, step=step, label=label)

    async def _run(self, method: str, target: str, arguments: dict[str, Any] | None, label: str) -> RunResult | None:
        self.current_operation_id = None
        self.set_state("running")
        result: RunResult | None = None
        try:
            session = await self.connection.client()
            result = await session.run(method, target, arguments, step=self.gate, label=label)
        except asyncio.CancelledError:
            self._abandon("stopped while running")
            if not self._stopping:
                raise
        except AnswerCancelled as exc:
            self._abandon(str(exc) or "the answer was cancelled")
        except Exception as exc:
            self._abandon(f"{type(exc).__name__}: {exc}", "transport_error")
            self.events.error(f"{method} {target}: {type(exc).__name__}: {exc}")
        finally:
            self.gate.transforms.clear()
            self.set_state("idle")
        self._finished(result)
        return result

    def _finished(self, result: RunResult | None) -> None:
        self.last_result = result
        if result is not None:
            drive = result.final  # a task's end, when the call became one
            target = result.operation.target
            if drive.outcome == "error":
                self.events.error(f"{target}: {describe_error(drive.error)}")
            elif drive.outcome != "complete":
                self.events.error(f"{target}: {drive.outcome}: {drive.problem or ''}".rstrip(": "))
        self.events.emit(RunFinished(result))

    def resume(self, operation_id: str) -> "asyncio.Task[RunResult | None]":
        """Go on polling the task an operation (of a reopened trace) became; Stop cancels it as usual."""
        if self.busy:
            raise RuntimeError("an operation is already running")
        self._stopping = False
        self.task = asyncio.get_running_loop().create_task(self._resume(operation_id))
        return self.task

    async def _resume(self, operation_id: str) -> RunResult | None:
        self.current_operation_id = operation_id
        self.set_state("running")
        result: RunResult | None = None
        try:
            session = await self.connection.client()
            run = await session.resume_task(operation_id)
            result = RunResult(self.store.operation(operation_id), DriveResult("task"), run)
        except asyncio.CancelledError:
            if not self._stopping:
                raise
        except Exception as exc:
            self.events.error(f"resume: {type(exc).__name__}: {exc}")
        finally:
            self.set_state("idle")
        self._finished(result)
        return result

    def _abandon(self, problem: str, outcome: Literal["aborted", "transport_error"] = "aborted") -> None:
        op_id = self.current_operation_id
        if op_id is not None and self.store.operation(op_id).outcome == "running":
            self.store.finish_operation(op_id, outcome, problem)

    async def wait(self) -> RunResult | None:
        """Wait for the current run (if any) to end."""
        task = self.task
        if task is None:
            return None
        with contextlib.suppress(asyncio.CancelledError):
            return await task
        return None

    # --- step / continue / stop ------------------------------------------------------------------

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
        elif self.busy and self.task is not None:
            self.task.cancel()

    async def stop_and_wait(self) -> None:
        if self.busy:
            self.stop()
            await self.wait()

    def edit_pending(self, message: Message) -> None:
        """Replace the held message with an edited one (the step editor calls this before Continue)."""
        self.gate.edit(message)
        self.events.emit(HeldSend("pending_changed", self.gate.pending))

    def _on_hold(self, pending: PendingSend) -> None:
        self.set_state("paused")
        self.events.emit(HeldSend("paused", pending))

    def _on_release(self, pending: PendingSend, sent: Message | None) -> None:
        self.set_state("running")
        if sent is not None and pending.round == 1 and pending.operation_id and sent != pending.original:
            params = sent.get("params")
            params = params if isinstance(params, dict) else {}
            target = params.get("name", params.get("uri"))
            arguments = params.get("arguments")
            self.store.update_request(pending.operation_id, target if isinstance(target, str) else None,
                                      arguments if isinstance(arguments, dict) else None)
        self.events.emit(HeldSend("resumed", pending))

    # --- tampering -------------------------------------------------------------------------------

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
            self.events.emit(HeldSend("pending_changed", pending))
        else:
            def once(message: Message, round_number: int) -> Message:
                if not carries_state(message):
                    return message
                self.gate.transforms.remove(once)
                message, done = self._apply_tamper(kind, message)
                self.events.emit(Notice("tampered", done))
                return message

            self.gate.transforms.append(once)
            text = f"armed: {TAMPERS[name]}, before the next retry"
        self.events.emit(Notice("tampered", text))
        return text

    def _apply_tamper(self, kind: str, message: Message) -> tuple[Message, str]:
        name, _, arg = kind.partition(":")
        codec = self.embedded.engine.codec
        if name == "expire":
            self.embedded.advance_clock(codec.ttl + 1)
            return message, f"the engine's clock moved {codec.ttl + 1} s ahead: the state has expired"
        if name == "identity":
            who = IDENTITY_PRESETS.get(arg or "bob") or Identity(arg, arg, arg)
            self.connection.switch_live_identity(who)
            return message, f"the retry goes out as {who.name}"
        tampered = tamper_message(name, message)
        return tampered.message, tampered.description
