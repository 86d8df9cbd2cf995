"""Stitching observed traffic into operations: which retry continues which flow.

A recorder that sits between a client and a server it does not own (the served engine, the reverse
proxy, the stdio wrapper) sees requests one at a time. MRTR links them itself: a retry carries the
requestState its previous round was given, so that state names the operation (and the round) it
continues; and since a state need not be unique (a codec without a nonce), the session and the
connection a retry came on choose among the flows waiting with that state (proxy.flows). A client
that alters the state breaks that link, and that is exactly the client a debugger must show as a
retry gone wrong, not as a new flow; so a request whose state is unknown (or that carries answers
without a state) joins the most recent unanswered round of the same method and target whose input
keys it answers.

Each flow is observed through THE round-trip machine (protocol.roundtrip.RoundTrip): the stitcher
`send`s it each request it places in the flow and `receive`s it each answer, and the machine's
event gives the round and the outcome. An answer the HTTP layer refused (401, 403, or any 4xx/5xx
whose body is no JSON-RPC error) ends the flow `refused`, its problem naming the status.

Legacy server-initiated requests join the call they were sent from; the client's answer joins it by
the request's id (within its session). What a legacy server sends on its standalone GET stream names
no call: it joins the call in flight in the same session (see `_standalone`). A call that becomes a
task (SEP-2663) goes on with the client's tasks/get, tasks/update and tasks/cancel for that task id,
each answer one round further, until a poll shows the task finished. Everything else (the handshake,
listings, notifications between calls) goes to the session's "session" operation (proxy.sessions),
so every message that crosses is recorded.

Each WireEvent's meta carries an `exchange` key: the same value for a request and its response
(one HTTP POST, one JSON-RPC id on a stdio pipe); the proxy adds `peer` (the client's connection)
and `response_session` (the Mcp-Session-Id the upstream answered with). Memory is bounded: at most
MAX_REMEMBERED flows wait for a retry; the oldest are forgotten.
"""

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ..protocol.roundtrip import Done, Failed, NeedInput
from ..protocol.tasks_extension import TASK_METHODS
from ..protocol.versions import META_PROTOCOL_VERSION, MODERN_VERSION, MRTR_METHODS, NAME_FIELDS
from ..trace import TraceStore, lint
from ..trace.model import params_of
from ..trace.redaction import Redaction
from ..transport.base import WireEvent
from .flows import MAX_REMEMBERED, Flow, WaitingFlows
from .sessions import SessionOps

Where = tuple[str, int]  # (operation id, round)
_TASK_ENDS = {"completed": "complete", "failed": "error", "cancelled": "aborted"}
#: Metadata the stitcher reads and does not record.
_PRIVATE = frozenset({"exchange", "response_session", "sse_session", "sse_event"})


@dataclass
class _Open:
    """An exchange waiting for its answer: where its messages go, and what it is."""

    where: Where
    session: Any
    flow: Flow | None = None  # an MRTR round
    task: bool = False  # a tasks/* request
    housekeeping: bool = False  # a request of the session operation
    request_id: Any = None  # what its answer carries (on the legacy SSE stream, the only link)


@dataclass
class Stitcher:
    """A tap listener that records what it sees into `store`, one operation per MRTR flow."""

    store: TraceStore
    server_label: str
    label: str = ""
    _waiting: WaitingFlows = field(default_factory=WaitingFlows)
    _open: dict[Any, _Open] = field(default_factory=dict)  # exchange -> what it is
    #: (session, server request id) -> (operation, round): ids are only unique within one legacy session.
    _server_requests: dict[tuple[Any, Any], Where] = field(default_factory=dict)
    #: task id -> (operation, the round its requests now belong to)
    _tasks: dict[str, Where] = field(default_factory=dict)
    _sessions: SessionOps | None = None
    #: A legacy HTTP+SSE stream's exchange -> its session, learned from its `endpoint` event.
    _stream_sessions: dict[Any, Any] = field(default_factory=dict)
    #: Exchanges answered lately -> where they were recorded (a body after the answer joins them).
    _closed: dict[Any, Where] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._sessions = SessionOps(self.store, self.server_label, self.label)

    @property
    def sessions(self) -> SessionOps:
        assert self._sessions is not None
        return self._sessions

    def __call__(self, event: WireEvent) -> None:
        message = event.message
        meta = {k: v for k, v in event.meta.items() if k not in _PRIVATE}
        exchange = event.meta.get("exchange")
        session = self._session(event.meta, exchange)
        if isinstance(message, bytes | bytearray):  # a note's raw bytes (a frame dropped at a breakpoint)
            message = bytes(message[:65536]).decode("utf-8", errors="replace")
        if event.meta.get("sse_event") == "endpoint" and isinstance(message, str):
            self._endpoint(message, exchange, meta)
            return
        if not isinstance(message, dict):  # not JSON, a note about what was relayed unrecorded
            if event.direction == "server->client":
                self._refusal(message, exchange, meta, session)
            else:
                where = self.sessions.other(session)
                self.store.record(where[0], where[1], "client->server", message, **meta)
            return
        if event.direction == "client->server":
            self._incoming(message, exchange, meta, session)
        else:
            self._outgoing(message, exchange, meta, event.meta.get("response_session"), session)

    def _session(self, meta: dict[str, Any], exchange: Any) -> Any:
        """The session a message belongs to: its `Mcp-Session-Id`, else the legacy HTTP+SSE session its
        POST names in the query (`sse_session`) or its stream announced, else None."""
        header = session_of(meta)
        if header is not None:
            return header
        sse = meta.get("sse_session")
        if isinstance(sse, str):
            return ("sse", sse)
        return self._stream_sessions.get(exchange)

    def _endpoint(self, text: str, exchange: Any, meta: dict[str, Any]) -> None:
        """The legacy HTTP+SSE stream's first event: the URL to POST to, which names the session. From
        here the stream's messages belong to that session; it is recorded with the session id masked."""
        query = urlsplit(text.strip()).query
        named = dict(parse_qsl(query))
        sid = named.get("sessionId") or named.get("session_id")
        session = ("sse", sid) if sid else None
        if session is not None:
            self._stream_sessions[exchange] = session
            while len(self._stream_sessions) > MAX_REMEMBERED:
                del self._stream_sessions[next(iter(self._stream_sessions))]
        where = self.sessions.other(session)
        shown = text.replace(query, Redaction().query(query)) if query else text
        self.store.record(where[0], where[1], "server->client", shown, sse_event="endpoint", **meta)

    # --- client to server ----------------------------------------------------------------------

    def _incoming(self, message: dict[str, Any], exchange: Any, meta: dict[str, Any], session: Any) -> None:
        method = message.get("method")
        if method is None:  # a legacy client's answer to a server-initiated request
            where = self._server_requests.pop((session, message.get("id")), None) or self.sessions.other(session)
            self.store.record(where[0], where[1], "client->server", message, **meta)
            self._answered_at(exchange, where)
            return
        if "id" not in message:  # a notification: it belongs to the call it speaks about (or the session)
            self._answered_at(exchange, self._client_notification(message, session, meta))
            return
        if method in TASK_METHODS and self._task_request(method, message, exchange, session, meta):
            return
        if method not in MRTR_METHODS:
            where = self.sessions.request(message, session)
            self._open[exchange] = _Open(where, session, housekeeping=True, request_id=message.get("id"))
            self.store.record(where[0], where[1], "client->server", message, **meta)
            return
        params = params_of(message)
        flow = self.continuation(method, params, session, meta.get("peer"))
        if flow is not None:
            sent = flow.machine.send(message)
            where = (flow.operation, flow.round if not isinstance(sent, Failed) else flow.round + 1)
        else:
            target = params.get(NAME_FIELDS[method])
            arguments = _object(params.get("arguments"))
            era = "modern" if _object(params.get("_meta")).get(META_PROTOCOL_VERSION) == MODERN_VERSION else "legacy"
            operation = self.store.begin_operation(method, str(target), arguments, era, self.server_label,
                                                   self.label)
            flow = Flow.first(operation.id, message, target, params.get("arguments"), session, meta.get("peer"))
            sent = None
            where = (operation.id, 1)
        self._open[exchange] = _Open(where, session, flow=flow, request_id=message.get("id"))
        while len(self._open) > MAX_REMEMBERED:  # requests never answered (a client gone): the oldest go
            del self._open[next(iter(self._open))]
        self.store.record(where[0], where[1], "client->server", message, **meta)
        if isinstance(sent, Failed):  # the machine refuses the round (a reused id): the flow ends here
            self.store.finish_operation(flow.operation, sent.outcome, sent.problem)  # type: ignore[arg-type]

    def _task_request(self, method: str, message: dict[str, Any], exchange: Any, session: Any,
                      meta: dict[str, Any]) -> bool:
        task_id = params_of(message).get("taskId")
        known = self._tasks.get(task_id) if isinstance(task_id, str) else None
        if known is None or not isinstance(task_id, str):
            return False  # a task this recorder never saw created: the session's traffic
        if method == "tasks/update":  # an answer opens the task's next round, as a retry does
            known = (known[0], known[1] + 1)
            self._tasks[task_id] = known
        self._open[exchange] = _Open(known, session, task=True, request_id=message.get("id"))
        self.store.record(known[0], known[1], "client->server", message, **meta)
        return True

    def continuation(self, method: str, params: dict[str, Any], session: Any = None,
                     connection: Any = None) -> Flow | None:
        """The waiting flow a request continues: by the state it echoes, else by the keys it answers."""
        state = params.get("requestState")
        arguments = params.get("arguments")
        if isinstance(state, str):
            flow = self._waiting.by_state(state, session, connection, arguments)
            if flow is not None:
                return flow
        responses = params.get("inputResponses")
        answered = frozenset(responses) if isinstance(responses, dict) else frozenset()
        if not answered and "requestState" not in params:
            return None  # a first call: nothing says it continues anything
        return self._waiting.by_keys(method, params.get(NAME_FIELDS[method]), answered, session, connection,
                                     arguments)

    def in_flight(self, session: Any) -> list[Where]:
        """The (operation, round) of each call still waiting for its response in `session`, oldest first."""
        return [o.where for o in self._open.values() if o.session == session and not o.housekeeping]

    def _client_notification(self, message: dict[str, Any], session: Any, meta: dict[str, Any]) -> Where:
        """A client notification joins a call in flight in its session: the one `notifications/cancelled`
        names by its requestId, else the most recent; with no call in flight (the handshake's
        `notifications/initialized`, a `roots/list_changed` between calls) it joins the session."""
        calls = [o for o in self._open.values() if o.session == session and not o.housekeeping]
        if not calls:
            where = self.sessions.other(session)
        else:
            where = calls[-1].where
            if message.get("method") == "notifications/cancelled":
                cancelled = params_of(message).get("requestId")
                where = next((o.where for o in reversed(calls) if o.flow is not None and o.flow.machine.current
                              is not None and o.flow.machine.current.get("id") == cancelled), where)
        self.store.record(where[0], where[1], "client->server", message, **meta)
        return where

    # --- server to client ----------------------------------------------------------------------

    def _standalone(self, message: dict[str, Any], meta: dict[str, Any], session: Any) -> None:
        """A message on the legacy standalone GET stream (a server request the TypeScript SDK's
        `elicitInput` sends there, a notification): it names no call, so it joins the call in flight in
        the same `Mcp-Session-Id` that started most recently (the one a server asks about, in practice,
        since an SDK handler sends its question while its own request is open). With no call in flight
        it is recorded as an operation of its own, labelled "standalone server message", finished at
        once; a request's answer still joins it by (session, id)."""
        calls = self.in_flight(session)
        if calls:
            where = calls[-1]
        else:
            method = str(message.get("method"))
            label = f"{self.label}: standalone server message" if self.label else "standalone server message"
            operation = self.store.begin_operation(method, "", {}, "legacy", self.server_label, label)
            where = (operation.id, 1)
        entry = self.store.record(where[0], where[1], "server->client", message, **meta)
        if "method" in message and "id" in message:
            self._server_request(session, message, where, entry)
        if not calls:
            self.store.finish_operation(where[0], "complete")

    def _server_request(self, session: Any, message: dict[str, Any], where: Where, entry: Any) -> None:
        self._server_requests[(session, message["id"])] = where
        while len(self._server_requests) > MAX_REMEMBERED:
            del self._server_requests[next(iter(self._server_requests))]
        declared = self.sessions.declared(session)
        if declared is not None:
            self.store.add_findings(entry, lint.legacy_capability_findings(message, declared))

    def _outgoing(self, message: dict[str, Any], exchange: Any, meta: dict[str, Any], response_session: Any,
                  session: Any) -> None:
        opened = self._open.get(exchange)
        if opened is None:
            answered = self._answered_on_stream(message, session)
            if answered is not None:  # legacy HTTP+SSE: the POST got 202, its answer comes on the stream
                self._outgoing(message, answered, meta, response_session, session)
            elif meta.get("http_method") == "GET" and "method" in message:  # not a refusal's error body
                self._standalone(message, meta, session)
            return
        where = opened.where
        entry = self.store.record(where[0], where[1], "server->client", message, **meta)
        if "method" in message:  # notification, or a legacy server-initiated request inside the call
            if "id" in message:
                self._server_request(opened.session, message, where, entry)
            return
        self._close(exchange)
        if opened.housekeeping:
            self.sessions.answered(where[0], response_session)
        elif opened.task:
            self._task_answer(where, message)
        elif opened.flow is not None:
            self._answer(opened.flow, message, meta)

    def _answered_on_stream(self, message: dict[str, Any], session: Any) -> Any:
        """The open exchange a response on a stream answers: same session, same request id (the legacy
        HTTP+SSE transport answers every POST there), or None."""
        if session is None or "method" in message or "id" not in message:
            return None
        return next((x for x, o in self._open.items() if o.session == session and o.request_id == message["id"]
                     and o.request_id is not None), None)

    def _answer(self, flow: Flow, message: dict[str, Any], meta: dict[str, Any]) -> None:
        """The round's answer through the flow's machine: a retry to wait for, or how the flow ended."""
        if flow.machine.ended is not None:
            return  # the machine ended it at the request (a reused id): the answer is recorded, no more
        status = meta.get("http_status")
        if isinstance(status, int) and status >= 400 and (status in (401, 403) or "error" not in message):
            flow.machine.abort(f"HTTP {status}")
            self._refused(flow.operation, status, message)
            return
        event = flow.machine.receive(message)
        if isinstance(event, NeedInput):
            requests = event.requests
            self._waiting.add(flow, event.state, frozenset(requests) if isinstance(requests, dict) else frozenset())
        elif isinstance(event, Done) and event.outcome == "task":
            task_id = str(event.result.get("taskId"))
            self._tasks[task_id] = (flow.operation, event.round + 1)
            self.store.note_task(flow.operation, task_id, str(event.result.get("status") or "working"), event.round)
            while len(self._tasks) > MAX_REMEMBERED:
                del self._tasks[next(iter(self._tasks))]
        elif isinstance(event, Done):
            self.store.finish_operation(flow.operation, "complete")
        else:
            self._failed(flow.operation, event)

    def _failed(self, operation: str, event: Failed) -> None:
        error = event.error
        if error is not None:
            code = error.get("code")
            self.store.finish_operation(operation, "error", event.problem or f"{code} {error.get('message')}",
                                        code if isinstance(code, int) else None)
            return
        outcome = event.outcome if event.outcome in ("protocol_error", "round_limit", "aborted") else "error"
        self.store.finish_operation(operation, outcome, event.problem)

    def _refused(self, operation: str, status: int, body: Any) -> None:
        said = body.get("error") if isinstance(body, dict) else None
        said = said.get("message") if isinstance(said, dict) else said
        detail = f": {str(said)[:200]}" if isinstance(said, str) and said else ""
        self.store.finish_operation(operation, "refused", f"HTTP {status}{detail}")

    def _refusal(self, text: Any, exchange: Any, meta: dict[str, Any], session: Any) -> None:
        """A server->client event that is no JSON object (an empty or non-JSON 401 body, a legacy SSE
        POST's "Accepted", a note): recorded where its exchange belongs; a 4xx/5xx answers (and ends)
        the request, anything else leaves it waiting (its answer may still come, on the stream)."""
        opened = self._open.get(exchange)
        if opened is None:
            where = self._closed.get(exchange) or self.sessions.other(session)
            self.store.record(where[0], where[1], "server->client", text, **meta)
            return
        self.store.record(opened.where[0], opened.where[1], "server->client", text, **meta)
        status = meta.get("http_status")
        if not isinstance(status, int) or status < 400:
            return
        self._close(exchange)
        if opened.flow is not None and opened.flow.machine.ended is None:
            opened.flow.machine.abort(f"HTTP {status}")
            self._refused(opened.flow.operation, status, None)
        elif opened.housekeeping:
            self.sessions.answered(opened.where[0], None)

    def _close(self, exchange: Any) -> None:
        """The exchange got its answer; what still comes on it (a late body) joins the same place."""
        self._answered_at(exchange, self._open.pop(exchange).where)

    def _answered_at(self, exchange: Any, where: Where) -> None:
        """Where a body still arriving on `exchange` goes (a 202's text after a notification, an answer)."""
        if exchange is None:
            return
        self._closed[exchange] = where
        while len(self._closed) > 1000:
            del self._closed[next(iter(self._closed))]

    def _task_answer(self, where: Where, message: dict[str, Any]) -> None:
        result = message.get("result")
        status = result.get("status") if isinstance(result, dict) else None
        if not isinstance(status, str):
            return  # an acknowledgement, or an error the client may recover from
        self.store.note_task(where[0], status=status)
        if status in _TASK_ENDS:
            self.store.finish_operation(where[0], _TASK_ENDS[status],  # type: ignore[arg-type]
                                        None if status == "completed" else f"the task ended {status}")
            self._tasks = {k: v for k, v in self._tasks.items() if v[0] != where[0]}


def session_of(meta: dict[str, Any]) -> Any:
    headers = meta.get("request_headers")
    return headers.get("mcp-session-id") if isinstance(headers, dict) else None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
