"""Runs a lesson on a fresh embedded engine and ties every wire message to its explanation and code lines."""

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..client.auto_answers import auto_respond
from ..client.driver import Message, Respond
from ..client.session import ClientSession
from ..client.settings import ClientSettings
from ..engine import McpServer, MrtrOptions, ServerOptions
from ..engine.shared_store import MemoryReplayStore
from ..scenarios import build_demo_server
from ..trace import Operation, TraceMessage, TraceStore
from ..transport.memory import MemoryTransport
from .lessons import Lesson, LessonRun, Step, step_key
from .line_recorder import LineRecorder, handler_source


@dataclass
class RunReport:
    run: LessonRun
    operation: Operation
    messages: list[TraceMessage]
    #: Explanation per message seq; every message of the run has one.
    steps: dict[int, Step]
    source: list[str]
    first_line: int
    #: Executed handler lines (absolute) per round.
    lines: dict[int, list[int]]
    outcome: str | int

    @property
    def as_expected(self) -> bool:
        return self.outcome == self.run.expect

    def lines_for(self, message: TraceMessage) -> list[int]:
        return self.lines.get(message.round, [])


@dataclass
class LessonReport:
    lesson: Lesson
    runs: list[RunReport] = field(default_factory=list)

    @property
    def as_expected(self) -> bool:
        return all(r.as_expected for r in self.runs)


def lesson_server(drafts: frozenset[str] = frozenset()) -> McpServer:
    """The lessons' engine; `drafts` switches draft SEPs on for the lessons about them (and only those)."""
    return build_demo_server(ServerOptions(mrtr=MrtrOptions(explain_rejections=True), drafts=drafts),
                             name="mrtr-studio-lessons" + (" (drafts)" if drafts else ""))


def find_handler(server: McpServer, method: str, target: str) -> tuple[Any, Callable[[Any], None]]:
    """The handler behind an operation and a setter to swap it (for line recording)."""
    registry = server.registry
    if method == "tools/call":
        entry: Any = registry.tools[target]
    elif method == "prompts/get":
        entry = registry.prompts[target]
    else:
        found = registry.find_resource(target)
        if found is None:
            raise KeyError(target)
        entry = found[0]

    def swap(handler: Any) -> None:
        entry.handler = handler

    return entry.handler, swap


class LessonCluster:
    """The engines a lesson's runs name (`LessonRun.node`): one secret for all, one replay store for those sharing."""

    def __init__(self) -> None:
        self.secret = secrets.token_urlsafe(24)
        self.store = MemoryReplayStore(clock=time.time)
        self.nodes: dict[str, McpServer] = {}
        #: The requestState the last completed run's retry carried (what a "replay" sends again).
        self.completed_state: str | None = None

    def server_for(self, run: LessonRun) -> McpServer:
        if run.node is None or run.drafts:  # a draft is switched on for this run's own engine only
            return lesson_server(run.drafts)
        if run.node not in self.nodes:
            # One audience for every node: they are one service, so a flow may hop between them.
            node = build_demo_server(ServerOptions(mrtr=MrtrOptions(secret=self.secret, explain_rejections=True,
                                                                    audience="mrtr-studio-lessons")),
                                     name=f"mrtr-studio-lessons ({run.node})")
            if run.shared_store:
                node.replay_guard = self.store
            self.nodes[run.node] = node
        return self.nodes[run.node]


async def run_lesson(lesson: Lesson, respond: Respond = auto_respond, store: TraceStore | None = None,
                     server: McpServer | None = None) -> LessonReport:
    report = LessonReport(lesson)
    store = store if store is not None else TraceStore()
    cluster = LessonCluster()
    for run in lesson.runs:
        engine = cluster.server_for(run) if run.drafts or server is None else server
        report.runs.append(await _run_one(lesson, run, respond, store, engine, cluster))
    return report


async def _run_one(lesson: Lesson, run: LessonRun, respond: Respond, store: TraceStore,
                   server: McpServer, cluster: LessonCluster) -> RunReport:
    handler, swap = find_handler(server, run.method, run.target)
    recorder = LineRecorder()
    swap(recorder.wrap(handler))
    principals = await _token_principals(run) if run.tokens else {}
    transport = MemoryTransport(server, user=principals.get(run.identity, run.identity))
    settings = ClientSettings(era=run.era, capabilities=run.capabilities, user=run.identity, drafts=run.drafts,
                              secure_arguments=run.secure_arguments)
    session = ClientSession(transport, settings, respond, store, server_label="embedded")

    sent: list[str] = []

    async def before_send(message: Message, round_number: int) -> Message:
        if round_number == 2 and run.before_retry == "drop-secure":
            message = {**message, "params": {k: v for k, v in (message.get("params") or {}).items()
                                             if k != "secureArguments"}}
        elif round_number == 2 and run.before_retry == "replay" and cluster.completed_state is not None:
            message = {**message, "params": {**message.get("params", {}), "requestState": cluster.completed_state}}
        elif round_number == 2 and run.before_retry:
            _apply(run.before_retry, server, transport, principals)
        state = (message.get("params") or {}).get("requestState")
        if isinstance(state, str):
            sent.append(state)
        return message

    try:
        result = await session.run(run.method, run.target, run.arguments, step=before_send, label=lesson.title)
    finally:
        swap(handler)
        await session.close()
    if result.drive.outcome == "complete" and sent:
        cluster.completed_state = sent[-1]
    messages = store.messages_of(result.operation.id)
    steps = {m.seq: run.steps[step_key(m.round, m.kind)] for m in messages if step_key(m.round, m.kind) in run.steps}
    source, first = handler_source(handler)
    rounds = {m.round for m in messages}
    final = result.final  # a task's end, when the call became one
    outcome: str | int = final.outcome
    if final.error:
        outcome = int(final.error.get("code", 0))
    return RunReport(run, result.operation, messages, steps, source, first,
                     {r: recorder.lines_for_round(r) for r in rounds}, outcome)


async def _token_principals(run: LessonRun) -> dict[str, str]:
    """Each identity of the run as the JWT check sees it: mint its token, verify it, keep the principal."""
    from ..auth.jwt_verifier import JwtVerifier
    from ..auth.local_issuer import LocalIssuer

    issuer = LocalIssuer()
    verifier = JwtVerifier(issuer.issuer, "mrtr-studio-lessons", issuer.jwks())
    action = run.before_retry or ""
    names = {run.identity} | ({action.split(":", 1)[1]} if action.startswith("identity:") else set())
    return {name: await verifier.principal(issuer.mint(name, verifier.audience)) for name in names if name}


def _apply(action: str, server: McpServer, transport: MemoryTransport,
           principals: dict[str, str] | None = None) -> None:
    if action == "expire":
        clock = server.codec.clock
        lifetime = server.codec.ttl + 1
        server.codec.clock = lambda: clock() + lifetime
    elif action.startswith("identity:"):
        name = action.split(":", 1)[1]
        transport.user = (principals or {}).get(name, name)
    else:
        raise ValueError(f"unknown lesson action {action!r}")
