"""ClientSession: the simulated client over one transport, recording every message in a TraceStore.

It owns the things the pure driver must not: the era (and the legacy handshake), the `_meta` of
each request, fresh ids, the responders, step mode and the trace. Each message is recorded once,
by the tap at the transport seam, under the operation and round running in the current context.
"""

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..protocol import jsonrpc
from ..protocol.errors import HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION
from ..protocol.trace_context import stamp, trace_id_of
from ..protocol.versions import LEGACY_VERSION, LEGACY_VERSIONS, MODERN_VERSION, Era
from ..trace import Operation, TraceStore
from ..trace.recorder import Recorder
from ..transport.base import ClientTransport, WireEvent
from . import drafts
from .driver import DriveResult, IdSource, Message, Respond, build_retry, drive
from .settings import ClientSettings
from .task_follower import TaskRun, follow_task

#: Called before every send with the message and its round; returns the (edited) message, or None to stop.
StepHook = Callable[[Message, int], Awaitable[Message | None]]

#: Auth exchanges kept for the next operation when none runs (a hostile server cannot grow it).
AUTH_KEPT = 100
_MODERN_ERRORS = {UNSUPPORTED_PROTOCOL_VERSION, HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY}


@dataclass
class RunResult:
    operation: Operation
    drive: DriveResult
    #: The task phase, when the call became a task (SEP-2663).
    task: TaskRun | None = None

    @property
    def final(self) -> DriveResult:
        """The whole operation as one DriveResult: the MRTR rounds, and a task's end as its outcome."""
        if self.task is None:
            return self.drive
        run = self.task
        summary = {"taskId": run.task_id, "status": run.task.get("status"), "polls": run.polls,
                   "inputRounds": run.input_rounds}
        return DriveResult(_TASK_OUTCOMES[run.outcome], self.drive.rounds, result=run.result,  # type: ignore[arg-type]
                           error=run.error, problem=run.problem, task=summary)


#: How a finished task maps onto the operation's outcome.
_TASK_OUTCOMES = {"complete": "complete", "failed": "error", "cancelled": "aborted", "stopped": "aborted",
                  "expired": "error", "error": "error", "protocol_error": "protocol_error",
                  "transport_error": "transport_error", "poll_limit": "round_limit"}


def target_params(method: str, target: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    if method == "resources/read":
        return {"uri": target}
    params: dict[str, Any] = {"name": target}
    if arguments is not None:
        params["arguments"] = arguments
    return params


def _listed(result: dict[str, Any], method: str, key: str) -> list[dict[str, Any]]:
    """A listing's entries; a listing that is not a list of objects is the server's error, said plainly."""
    entries = result.get(key, [])
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise RuntimeError(f"{method}: {key} is not a list of objects")
    return entries


class ClientSession:
    def __init__(self, transport: ClientTransport, settings: ClientSettings, respond: Respond,
                 store: TraceStore | None = None, server_label: str = "embedded") -> None:
        self.transport = transport
        self.settings = settings
        self.respond = respond
        self.store = store if store is not None else TraceStore()
        self.server_label = server_label
        self.next_id = IdSource()
        self.era: Era | None = Era.MODERN if settings.era == "modern" else Era.LEGACY if settings.era == "legacy" \
            else None
        self.legacy_version: str | None = None
        self.server_info: dict[str, Any] = {}
        #: Auth exchanges heard outside any operation, waiting for the next one (bounded: a flow is a few).
        self._authorized_before: deque[tuple[WireEvent, float]] = deque(maxlen=AUTH_KEPT)
        self.recorder = Recorder(self.store, unplaced=self._outside_operations)
        self._unlisten = self.recorder.attach(transport.tap)
        transport.on_server_request(self._answer_server_request)

    # --- recording ---------------------------------------------------------------------------

    def _outside_operations(self, event: WireEvent) -> None:
        """Housekeeping outside an operation (discovery, listings) is not part of a flow; but the
        authorization it ran unlocks the next operation, which draws it before its first round."""
        if "auth_phase" in event.meta:
            self._authorized_before.append((event, time.time()))

    def _record_authorization(self, op: Operation) -> None:
        """The auth exchanges made since the last operation, as this one's round 0 (at their own times)."""
        while self._authorized_before:
            event, at = self._authorized_before.popleft()
            self.store.record(op.id, 0, event.direction, event.message, timestamp=at, **event.meta)

    # --- era ---------------------------------------------------------------------------------

    async def ensure_era(self) -> Era:
        """Settle modern or legacy once: auto probes `server/discover` as the versioning page says."""
        if self.era is None:
            self.era = await self._probe()
        if self.era is Era.LEGACY and self.legacy_version is None:
            await self._initialize()
        return self.era

    async def _probe(self) -> Era:
        try:
            reply = await self.transport.send(self._request("server/discover", {}, Era.MODERN))
        except Exception:
            return Era.LEGACY
        if isinstance(reply, dict) and isinstance(reply.get("result"), dict) \
                and isinstance(reply["result"].get("supportedVersions"), list):
            # A DiscoverResult names its versions; a bare `{}` is a server that answers every method alike.
            meta = reply["result"].get("_meta")
            info = meta.get("io.modelcontextprotocol/serverInfo") if isinstance(meta, dict) else None
            self.server_info = info if isinstance(info, dict) else {}
            return Era.MODERN
        error = reply.get("error") if isinstance(reply, dict) else None
        code = error.get("code") if isinstance(error, dict) else None
        if code == UNSUPPORTED_PROTOCOL_VERSION:
            # A modern server that does not speak our modern revision: if it still lists a legacy one we
            # speak, the initialize handshake is the way in; otherwise stay modern and let the error show.
            data = error.get("data") if isinstance(error, dict) else None
            supported = data.get("supported") if isinstance(data, dict) else None
            if isinstance(supported, list) and MODERN_VERSION not in supported \
                    and any(v in LEGACY_VERSIONS for v in supported):
                return Era.LEGACY
        return Era.MODERN if code in _MODERN_ERRORS else Era.LEGACY

    async def _initialize(self) -> None:
        reply = await self.transport.send(
            jsonrpc.request(self.next_id(), "initialize", self.settings.initialize_params(LEGACY_VERSION)))
        if not isinstance(reply, dict) or not isinstance(reply.get("result"), dict):
            error = (reply or {}).get("error") if isinstance(reply, dict) else None
            raise ConnectionError(f"legacy initialize failed: {error or reply!r}")
        self.legacy_version = str(reply["result"].get("protocolVersion", LEGACY_VERSION))
        info = reply["result"].get("serverInfo")
        self.server_info = info if isinstance(info, dict) else {}
        await self.transport.send(jsonrpc.notification("notifications/initialized"))

    def _request(self, method: str, params: dict[str, Any], era: Era) -> Message:
        body = dict(params)
        if era is Era.MODERN:
            body["_meta"] = self.settings.request_meta(MODERN_VERSION)
        return jsonrpc.request(self.next_id(), method, body)

    # --- housekeeping requests ---------------------------------------------------------------

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """One plain request (listings, discover); returns the result or raises with the error."""
        era = await self.ensure_era()
        reply = await self.transport.send(self._request(method, params or {}, era))
        if not isinstance(reply, dict):
            raise ConnectionError(f"{method}: no response")
        if "error" in reply:
            err = reply["error"]
            if isinstance(err, dict):
                raise RuntimeError(f"{method}: {err.get('code')} {err.get('message')}")
            raise RuntimeError(f"{method}: the server's error is {err!r}, not an object")
        result = reply.get("result")
        if result is not None and not isinstance(result, dict):
            raise RuntimeError(f"{method}: the result is {result!r}, not an object")
        return result or {}

    async def list_tools(self) -> list[dict[str, Any]]:
        return _listed(await self.request("tools/list"), "tools/list", "tools")

    async def list_prompts(self) -> list[dict[str, Any]]:
        return _listed(await self.request("prompts/list"), "prompts/list", "prompts")

    async def list_resources(self) -> list[dict[str, Any]]:
        return _listed(await self.request("resources/list"), "resources/list", "resources")

    async def list_resource_templates(self) -> list[dict[str, Any]]:
        return _listed(await self.request("resources/templates/list"), "resources/templates/list", "resourceTemplates")

    # --- operations --------------------------------------------------------------------------

    async def run(self, method: str, target: str, arguments: dict[str, Any] | None = None,
                  step: StepHook | None = None, label: str = "") -> RunResult:
        """Run tools/call, prompts/get or resources/read through every round, recording it."""
        era = await self.ensure_era()
        op = self.store.begin_operation(method, target, dict(arguments or {}), era.value, self.server_label,
                                        label=label)
        self._record_authorization(op)
        first = self._request(method, target_params(method, target, arguments), era)
        first = drafts.first_call(first, self.settings.drafts, self.settings.secure_arguments)
        current_round = 1
        trace_id = trace_id_of(op.id, op.started)

        async def dispatch(message: Message) -> Message | None:
            stamp(message, trace_id)  # W3C traceparent: this operation's trace, a span per round
            with self.recorder.at(op.id, current_round):
                return await self.transport.send(message)

        async def retry(original: Message, input_required: dict[str, Any], round_number: int) -> Message | None:
            nonlocal current_round
            requests = input_required.get("inputRequests") or {}
            started = time.monotonic()
            responses = await self.respond(requests, round_number) if requests else {}
            current_round = round_number + 1
            self.store.note_answer_time(op.id, current_round, time.monotonic() - started)
            message = build_retry(original, input_required, responses, self.next_id())
            message = drafts.retry(message, input_required, self.settings.drafts)
            return await step(message, current_round) if step else message

        if step is not None:
            edited = await step(first, 1)
            if edited is None:
                self.store.finish_operation(op.id, "aborted", "stopped before the first send")
                return RunResult(op, DriveResult("aborted", problem="stopped before the first send"))
            first = edited
        result = await drive(first, dispatch, retry, max_rounds=self.settings.max_rounds,
                             accept_tasks=self.settings.declares_tasks)
        if result.outcome == "task" and result.result is not None:
            task_id = str(result.result["taskId"])
            self.store.note_task(op.id, task_id, str(result.result.get("status") or "working"), current_round)
            run = await self.follow(op, task_id, first=result.result)
            return RunResult(op, result, run)
        problem = result.problem
        if result.outcome == "error" and result.error:
            problem = f"{result.error.get('code')} {result.error.get('message')}" \
                + (f" ({result.problem})" if result.problem else "")
        outcome = "protocol_error" if result.outcome == "task" else result.outcome  # a task always has a result
        code = result.error.get("code") if isinstance(result.error, dict) else None
        self.store.finish_operation(op.id, outcome, problem, code if type(code) is int else None)
        return RunResult(op, result)

    async def follow(self, op: Operation, task_id: str, first: dict[str, Any] | None = None,
                     answered: set[str] | None = None) -> TaskRun:
        """The task phase of `op`: poll, answer, finish the operation. Cancelling the coroutine (Stop)
        sends tasks/cancel before it ends, so the server is told."""
        base = op.task_round or op.rounds or 1
        where = {"round": base + 1}
        messages: list[Message] = []

        trace_id = trace_id_of(op.id, op.started)

        async def dispatch(message: Message) -> Message | None:
            stamp(message, trace_id)
            with self.recorder.at(op.id, where["round"]):
                messages.append(message)
                return await self.transport.send(message)

        def make(method: str, params: dict[str, Any]) -> Message:
            return self._request(method, params, Era.MODERN)

        async def respond(requests: dict[str, Any], input_round: int) -> dict[str, Any]:
            started = time.monotonic()
            answers = await self.respond(requests, input_round)
            where["round"] = base + 1 + input_round
            self.store.note_answer_time(op.id, where["round"], time.monotonic() - started)
            return answers

        def observe(task: dict[str, Any]) -> None:
            self.store.note_task(op.id, status=str(task.get("status")))

        try:
            run = await follow_task(task_id, dispatch, make, respond, asyncio.sleep, first=first,
                                    observe=observe, answered=answered)
        except asyncio.CancelledError:
            await asyncio.shield(self._cancel_task(task_id, dispatch, make))
            self.store.note_task(op.id, status="cancelled")
            self.store.finish_operation(op.id, "aborted", "stopped: tasks/cancel sent")
            raise
        if run.outcome == "stopped":
            self.store.note_task(op.id, status="cancelled")
        problem = run.problem
        if run.outcome == "failed" and run.error:
            problem = f"{run.error.get('code')} {run.error.get('message')}"
        self.store.finish_operation(op.id, _TASK_OUTCOMES[run.outcome], problem)  # type: ignore[arg-type]
        return run

    async def _cancel_task(self, task_id: str, dispatch: Any, make: Any) -> None:
        with contextlib.suppress(Exception):  # best effort: the server's TTL ends the task anyway
            await asyncio.wait_for(dispatch(make("tasks/cancel", {"taskId": task_id})), 5)

    async def resume_task(self, operation_id: str) -> TaskRun:
        """Go on polling the task a (reopened) trace's operation became, without re-answering any key."""
        op = self.store.operation(operation_id)
        if op.task_id is None:
            raise ValueError("this operation did not become a task")
        await self.ensure_era()
        answered = set()
        for entry in self.store.messages_of(operation_id):
            if entry.direction == "client->server" and entry.method == "tasks/update":
                params = entry.message.get("params") if isinstance(entry.message, dict) else None
                responses = params.get("inputResponses") if isinstance(params, dict) else None
                if isinstance(responses, dict):
                    answered |= set(responses)
        op.outcome = "running"
        return await self.follow(op, op.task_id, answered=answered)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> RunResult:
        return await self.run("tools/call", name, arguments or {}, **kw)

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> RunResult:
        return await self.run("prompts/get", name, arguments or {}, **kw)

    async def read_resource(self, uri: str, **kw: Any) -> RunResult:
        return await self.run("resources/read", uri, None, **kw)

    # --- legacy server-initiated requests ----------------------------------------------------

    async def _answer_server_request(self, request: Message) -> dict[str, Any]:
        """Answer a classic server request with the same responders MRTR uses (key = the request id)."""
        key = str(request.get("id"))
        where = self.recorder.where()
        round_number = where[1] if where else 1
        answers = await self.respond({key: {"method": request.get("method"), "params": request.get("params") or {}}},
                                     round_number)
        return answers[key]

    async def close(self) -> None:
        self._unlisten()
        await self.transport.close()
