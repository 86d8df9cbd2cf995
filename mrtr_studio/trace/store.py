"""The trace store: the one place messages and operations live, with add/update events.

Views subscribe and translate events (Qt item models in ui/, the autosave, the terminal printer);
the store never knows who listens. Methods are called from one thread (the asyncio loop); a Qt
adapter re-posts events onto the GUI thread itself.
"""

import itertools
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .model import (
    BLOCK_MESSAGES,
    NO_FINDINGS,
    Direction,
    Finding,
    Operation,
    Outcome,
    TraceMessage,
    kind_of,
    pack,
    seal,
)
from .origin import Origin

#: `loaded` goes only to bulk listeners (see `subscribe`): the contents were replaced by `load`; read them.
EventKind = Literal["operation_added", "operation_updated", "message_added", "message_updated", "cleared", "loaded"]


@dataclass
class StoreEvent:
    kind: EventKind
    operation: Operation | None = None
    message: TraceMessage | None = None
    #: The add comes from `load` (a file, a recovered journal): recorded before, not happening now.
    loaded: bool = False


Listener = Callable[[StoreEvent], None]


class ReplyLinker:
    """Pairs each response with its request as messages arrive in order — the one place messages are
    paired (same operation, same id, the other direction): `TraceMessage.reply_to`."""

    def __init__(self) -> None:
        #: Requests waiting for their answer: (operation, the requester's direction, id) -> the request.
        self._awaiting: dict[tuple[str, str, Any], TraceMessage] = {}

    def link(self, entry: TraceMessage) -> None:
        if entry.jsonrpc_id is None or entry.kind in ("auth", "notification", "invalid"):
            return
        if entry.kind in ("request", "server_request"):
            self._awaiting[(entry.operation_id, entry.direction, entry.jsonrpc_id)] = entry
            return
        asker = "server->client" if entry.direction == "client->server" else "client->server"
        entry.reply_to = self._awaiting.pop((entry.operation_id, asker, entry.jsonrpc_id), None)


def link_replies(entries: list[TraceMessage]) -> list[TraceMessage]:
    """Link the responses of messages that never passed through a store (built by hand), in order."""
    linker = ReplyLinker()
    for entry in entries:
        linker.link(entry)
    return entries


class TraceStore:
    def __init__(self) -> None:
        self.operations: list[Operation] = []
        self.messages: list[TraceMessage] = []
        self._by_operation: dict[str, list[TraceMessage]] = {}
        self._operations_by_id: dict[str, Operation] = {}
        self._listeners: list[Listener] = []
        self._bulk: list[Listener] = []
        self._live: list[Listener] = []
        self._loading = False
        self._seq = itertools.count(len(self.messages))
        self._replies = ReplyLinker()
        #: Messages recorded since the last block was sealed (model.seal): sealed every BLOCK_MESSAGES.
        self._unsealed: list[TraceMessage] = []
        #: The file the contents were opened from (None for live work): the autosave references it.
        self.origin: Origin | None = None

    # --- events ------------------------------------------------------------------------------

    def subscribe(self, listener: Listener, *, bulk: bool = False, live: bool = False) -> Callable[[], None]:
        """Call `listener` on every change.

        A `bulk` listener is spared the add per item while `load` replaces the contents (100,000 of
        them for a big file): it gets `cleared`, then one `loaded` event, and reads the store itself.
        A `live` one hears only what happens now: `cleared` and nothing of a load (a linter, say).
        Others get `cleared` and then every add, marked `loaded`."""
        listeners = self._bulk if bulk else self._live if live else self._listeners
        listeners.append(listener)
        return lambda: listeners.remove(listener) if listener in listeners else None

    def _emit(self, event: StoreEvent) -> None:
        for listener in list(self._listeners):
            listener(event)
        if not self._loading:
            for listener in list(self._live):
                listener(event)
            for listener in list(self._bulk):
                listener(event)

    # --- writing -----------------------------------------------------------------------------

    def begin_operation(self, method: str, target: str, arguments: dict[str, Any], era: str,
                        server: str, label: str = "") -> Operation:
        op = Operation(id=uuid.uuid4().hex[:12], method=method, target=target, arguments=arguments, era=era,
                       server=server, started=time.time(), label=label)
        self._add_operation(op)
        return op

    def _add_operation(self, op: Operation, loaded: bool = False) -> None:
        self.operations.append(op)
        self._operations_by_id[op.id] = op
        self._by_operation.setdefault(op.id, [])
        if not loaded or self._listeners:  # a load that nobody hears item by item makes no events
            self._emit(StoreEvent("operation_added", operation=op, loaded=loaded))

    def record(self, operation_id: str, round_number: int, direction: Direction, message: Any,
               method: str | None = None, timestamp: float | None = None, **transport: Any) -> TraceMessage:
        """Record one message. Transport metadata `auth_phase` marks an HTTP exchange of the authorization
        flow (its masked request and response): kind "auth", its phase as the method, no JSON-RPC id."""
        op = self._operations_by_id[operation_id]
        phase = transport.get("auth_phase")
        jsonrpc_id = message.get("id") if isinstance(message, dict) and phase is None else None
        if phase is not None:
            method = str(phase)
        elif method is None and isinstance(message, dict):
            method = message.get("method")
        entry = TraceMessage(
            seq=next(self._seq), operation_id=operation_id, round=round_number, direction=direction,
            kind="auth" if phase is not None else kind_of(message, direction), message=pack(message),
            timestamp=time.time() if timestamp is None else timestamp, method=method,
            jsonrpc_id=jsonrpc_id if isinstance(jsonrpc_id, str | int) else None, transport=dict(transport))
        self._append(entry)
        if round_number > op.rounds:
            op.rounds = round_number
            self._emit(StoreEvent("operation_updated", operation=op))
        return entry

    def _append(self, entry: TraceMessage, loaded: bool = False) -> None:
        self._replies.link(entry)
        self.messages.append(entry)
        self._by_operation.setdefault(entry.operation_id, []).append(entry)
        self._unsealed.append(entry)
        if len(self._unsealed) == BLOCK_MESSAGES:
            seal(self._unsealed)
            self._unsealed = []
        if not loaded or self._listeners:
            self._emit(StoreEvent("message_added", message=entry, loaded=loaded))

    def add_findings(self, entry: TraceMessage, findings: list[Finding]) -> None:
        if not findings:
            return
        if entry.findings is NO_FINDINGS:  # the shared empty list: the message gets a list of its own
            entry.findings = list(findings)
        else:
            entry.findings.extend(findings)
        self._emit(StoreEvent("message_updated", message=entry))

    def update_request(self, operation_id: str, target: str | None, arguments: dict[str, Any] | None) -> None:
        """The operation's target and arguments as its first request actually went out (a step edit
        changed them): a saved trace and Run again then repeat what was sent, not what was typed."""
        op = self._operations_by_id.get(operation_id)
        if op is None:
            return
        before = (op.target, op.arguments)
        if target is not None:
            op.target = target
        if arguments is not None:
            op.arguments = dict(arguments)
        if (op.target, op.arguments) != before:
            self._emit(StoreEvent("operation_updated", operation=op))

    def note_answer_time(self, operation_id: str, round_number: int, seconds: float) -> None:
        op = self._operations_by_id[operation_id]
        op.answer_seconds[round_number] = seconds
        self._emit(StoreEvent("operation_updated", operation=op))

    def note_task(self, operation_id: str, task_id: str | None = None, status: str | None = None,
                  created_in_round: int | None = None) -> None:
        """Remember the task an operation became, and its latest status (emits on change only)."""
        op = self._operations_by_id[operation_id]
        before = (op.task_id, op.task_status, op.task_round)
        op.task_id = task_id or op.task_id
        op.task_status = status or op.task_status
        op.task_round = created_in_round or op.task_round
        if (op.task_id, op.task_status, op.task_round) != before:
            self._emit(StoreEvent("operation_updated", operation=op))

    def finish_operation(self, operation_id: str, outcome: Outcome, problem: str | None = None,
                         error_code: int | None = None) -> Operation:
        op = self._operations_by_id[operation_id]
        op.outcome = outcome
        op.problem = problem
        op.error_code = error_code
        op.ended = time.time()
        self._emit(StoreEvent("operation_updated", operation=op))
        return op

    def clear(self) -> None:
        self.operations.clear()
        self.messages.clear()
        self._by_operation.clear()
        self._operations_by_id.clear()
        self._replies = ReplyLinker()
        self._unsealed = []
        self.origin = None
        self._emit(StoreEvent("cleared"))

    def load(self, operations: list[Operation], messages: list[TraceMessage], origin: Origin | None = None) -> None:
        """Replace the contents at once (opening a file): one `cleared`, then adds (bulk listeners: `loaded`).
        `origin`: the file they came from, which bulk listeners (the autosave) reference instead of copying."""
        self.clear()
        self.origin = origin
        self._loading = True
        try:
            for op in operations:
                self._add_operation(op, loaded=True)
            for entry in sorted(messages, key=lambda m: m.seq):
                self._append(entry, loaded=True)
        finally:
            self._loading = False
        self._seq = itertools.count(max((m.seq for m in self.messages), default=-1) + 1)
        for listener in list(self._bulk):
            listener(StoreEvent("loaded", loaded=True))

    # --- reading -----------------------------------------------------------------------------

    def operation(self, operation_id: str) -> Operation:
        return self._operations_by_id[operation_id]

    @property
    def operations_by_id(self) -> Mapping[str, Operation]:
        """Every operation by its id: the store's own index, kept as operations are added (read it, never
        change it), so a filter bound at a keystroke does not index 250,000 operations again."""
        return self._operations_by_id

    def messages_of(self, operation_id: str) -> list[TraceMessage]:
        return list(self._by_operation.get(operation_id, []))

    def live_messages_of(self, operation_id: str) -> list[TraceMessage]:
        """The operation's own list, not a copy (appended to as messages arrive): read it, never change it."""
        return self._by_operation.get(operation_id, [])

    def rounds_of(self, operation_id: str) -> dict[int, list[TraceMessage]]:
        rounds: dict[int, list[TraceMessage]] = {}
        for entry in self._by_operation.get(operation_id, []):
            rounds.setdefault(entry.round, []).append(entry)
        return rounds
