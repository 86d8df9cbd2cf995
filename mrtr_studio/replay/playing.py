"""A recording's flows played against one server, in order: the one replay that `mrtr-studio replay
--against` and the window's "Replay against…" both run (each flow through replay/against.py).

One transport per era, opened when the first flow of that era needs it (legacy: `initialize` first,
the recorded client's answers to server-initiated requests installed). Who runs the replay says how
a transport is opened (the command line from its URL, the window through the studio's connection)
and may wrap each flow's sender: the window records every round into its store that way. Every
transport opened is closed at the end, also when the replay fails or is cancelled.
"""

from collections.abc import Awaitable, Callable

from ..client.driver import IdSource
from ..protocol import jsonrpc
from ..transport.base import ClientTransport
from .against import FlowReport, LegacyAnswers, Sender, initialize_request, replay_flow
from .recording import RecordedFlow

#: Opens a transport to the server replayed against (not yet used; `play` starts and closes it).
Opener = Callable[[], Awaitable[ClientTransport]]
#: The sender one flow uses, given the flow and its transport (default: the transport's own send).
SenderFor = Callable[[RecordedFlow, ClientTransport], Sender]
#: Told each flow's report as it is made (the window's progress).
FlowDone = Callable[[FlowReport], None]


def era_of(flow: RecordedFlow) -> str:
    return "legacy" if flow.era == "legacy" else "modern"


async def play(flows: list[RecordedFlow], open_transport: Opener, *, sender_for: SenderFor | None = None,
               on_flow: FlowDone | None = None, ids: Callable[[], str | int] | None = None) -> list[FlowReport]:
    """Every flow replayed, its report in order; raises ConnectionError when a legacy handshake fails
    (and whatever opening a transport raises: the server cannot be reached)."""
    next_id = ids or IdSource("replay-")
    transports: dict[str, ClientTransport] = {}
    answers = LegacyAnswers()
    reports = []
    try:
        for flow in flows:
            era = era_of(flow)
            transport = transports.get(era)
            if transport is None:
                transport = transports[era] = await open_transport()
                if era == "legacy":
                    transport.on_server_request(answers)
                    reply = await transport.send(initialize_request(next_id()))
                    if not isinstance(reply, dict) or "result" not in reply:
                        raise ConnectionError(f"legacy initialize failed: {reply!r}")
                    await transport.send(jsonrpc.notification("notifications/initialized"))
            send = sender_for(flow, transport) if sender_for is not None else transport.send
            report = await replay_flow(flow, send, next_id, answers if era == "legacy" else None)
            reports.append(report)
            if on_flow is not None:
                on_flow(report)
    finally:
        for transport in transports.values():
            await transport.close()
    return reports
