"""Replay against… from the window: the recorded client's flows (one operation, or the whole trace)
played against another server by the same replay `mrtr-studio replay --against` runs
(replay/playing.py over replay/against.py), each replayed flow recorded into the store as an
operation of its own, so it is inspected, diagrammed and compared like any other.

The server is named as on the command line (`http(s)://…`, `stdio:COMMAND`) or `embedded` (the
studio's own engine), and reached through the studio's connection (its transport factory and
identity: a static token is sent, an HTTP server that asks for OAuth gets the studio's sign-in).
Each round is bounded by `timeout`; a round that takes longer ends that flow as a transport error,
listed as its difference. A legacy flow's `initialize` handshake is housekeeping of the replay, not
of any flow, and is not recorded; the server-initiated requests of a round are, in that round.
"""

import asyncio
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, get_args

from .. import defaults
from ..replay.against import FlowReport, Message, Sender
from ..replay.playing import play
from ..replay.recording import RecordedFlow, flows_of
from ..trace import TraceStore
from ..trace.model import Outcome
from ..trace.recorder import Recorder
from ..transport.base import ClientTransport, WireEvent
from .connection import TransportFactory
from .identities import Identity
from .server_entries import EMBEDDED, ServerEntry, target_entry

#: The operation label of a replayed flow: "replay of <recorded operation id>".
REPLAY_LABEL = "replay of "
_OUTCOMES = frozenset(get_args(Outcome))


class ReplayHost(Protocol):
    """What a replay needs of the studio (the Studio has all of it)."""

    store: TraceStore
    transport_factory: TransportFactory
    identity: Identity


def parse_target(text: str) -> ServerEntry:
    """`http(s)://…`, `stdio:COMMAND ARGS` or `embedded`; ValueError saying which forms are understood."""
    text = text.strip()
    entry = EMBEDDED if text == "embedded" else target_entry(text)
    if entry is not None:
        return entry
    raise ValueError(f"replay against http(s)://…, stdio:COMMAND or embedded, not {text!r}" if text
                     else "name the server to replay against: http(s)://…, stdio:COMMAND or embedded")


def server_label(entry: ServerEntry) -> str:
    """What an operation's `server` says (the operations list reads its source from it)."""
    return "embedded" if entry.kind == "embedded" else entry.url if entry.kind == "http" else entry.command_line


def is_replay(label: str) -> bool:
    return label.startswith(REPLAY_LABEL)


@dataclass
class ReplayedFlow:
    """One recorded flow and its replay: the report (per-round differences) and the two operations."""

    report: FlowReport
    recorded_id: str
    replayed_id: str


def summary_of(flows: Sequence[ReplayedFlow]) -> str:
    """"N flow(s), M differ": a replay's line in the window, once it is done and while it runs."""
    return f"{len(flows)} flow(s), {sum(flow.report.differs for flow in flows)} differ"


class ReplayAgainst:
    """Runs one replay at a time for the window; every replayed round recorded into the studio's store."""

    def __init__(self, host: ReplayHost, timeout: float = defaults.REPLAY_TIMEOUT) -> None:
        self.host = host
        self.store = host.store
        self.timeout = timeout

    def recorded_flows(self, operation_id: str | None = None) -> list[RecordedFlow]:
        """The flows to replay: one operation's, or every recorded one (replays of earlier runs left out);
        ValueError when there is none."""
        flows = flows_of(self.store, operation_id) if operation_id is not None else \
            [flow for flow in flows_of(self.store) if not is_replay(self.store.operation(flow.operation_id).label)]
        if not flows:
            where = f"operation {operation_id} has" if operation_id is not None else "the trace has"
            raise ValueError(f"{where} no tools/call, prompts/get or resources/read round with its request "
                             "recorded: there is nothing to replay")
        return flows

    async def run(self, target: str, operation_id: str | None = None,
                  on_flow: Callable[[ReplayedFlow], None] | None = None) -> list[ReplayedFlow]:
        """Replay and record: every flow replayed, in order (each also given to `on_flow` as it ends);
        ValueError for a bad target or nothing to replay, OSError/ConnectionError/TimeoutError when the
        server cannot be reached (the flows recorded so far stay, ended)."""
        entry = parse_target(target)
        flows = self.recorded_flows(operation_id)
        replayed: list[ReplayedFlow] = []
        placing = _Placing(self.store, self.timeout)
        label = server_label(entry)

        async def open_transport() -> ClientTransport:
            async with asyncio.timeout(self.timeout):
                transport = await self.host.transport_factory(entry, self.host.identity, self.host)
            placing.attach(transport)
            return transport

        def sender_for(flow: RecordedFlow, transport: ClientTransport) -> Sender:
            op = self.store.begin_operation(flow.method, flow.target, dict(flow.arguments), flow.era, label,
                                            label=f"{REPLAY_LABEL}{flow.operation_id}")
            placing.operations[flow.operation_id] = op.id
            return placing.sender(op.id, transport)

        def flow_done(report: FlowReport) -> None:
            replayed_id = placing.operations[report.operation_id]
            self.store.finish_operation(replayed_id, _outcome(report.outcome), "; ".join(_problems(report)) or None)
            done = ReplayedFlow(report, report.operation_id, replayed_id)
            replayed.append(done)
            if on_flow is not None:
                on_flow(done)

        try:
            await play(flows, open_transport, sender_for=sender_for, on_flow=flow_done)
        finally:
            placing.close()
            for replayed_id in placing.operations.values():  # a flow cut short (cancelled, unreachable)
                if self.store.operation(replayed_id).outcome == "running":
                    self.store.finish_operation(replayed_id, "aborted", "the replay stopped before this flow ended")
        return replayed


def _outcome(outcome: str) -> Outcome:
    if outcome == "task":
        return "complete"
    return outcome if outcome in _OUTCOMES else "aborted"  # type: ignore[return-value]


def _problems(report: FlowReport) -> list[str]:
    return [*report.differences, *(f"round {r.number}: {d}" for r in report.rounds for d in r.differences)]


class _Placing:
    """Records each replayed round under its operation: `recorder.at()` around the send, and what
    arrives outside that context during the round (a legacy server's request read by the transport's
    own reader task) in the round being sent, which the replay's one-flow-at-a-time order makes certain."""

    def __init__(self, store: TraceStore, timeout: float) -> None:
        self.timeout = timeout
        self.current: tuple[str, int] | None = None
        self.recorder = Recorder(store, unplaced=self._unplaced)
        self.store = store
        #: recorded operation id -> the replayed operation's id
        self.operations: dict[str, str] = {}
        self._unlisten: list[Callable[[], None]] = []

    def attach(self, transport: ClientTransport) -> None:
        self._unlisten.append(self.recorder.attach(transport.tap))

    def sender(self, operation_id: str, transport: ClientTransport) -> Sender:
        rounds = itertools.count(1)

        async def send(message: Message) -> Message | None:
            self.current = (operation_id, next(rounds))
            try:
                with self.recorder.at(*self.current):
                    async with asyncio.timeout(self.timeout):
                        reply: Any = await transport.send(message)
                return reply if isinstance(reply, dict) else None
            except TimeoutError:
                raise TimeoutError(f"no answer within {self.timeout:g} s") from None
            finally:
                self.current = None

        return send

    def _unplaced(self, event: WireEvent) -> None:
        if self.current is not None:
            self.store.record(self.current[0], self.current[1], event.direction, event.message, **event.meta)

    def close(self) -> None:
        for unlisten in self._unlisten:
            unlisten()
        self._unlisten.clear()
