"""Stitching observed traffic into operations: which retry continues which flow.

A recorder that sits between a client and a server it does not own (the served engine, the reverse
proxy, the stdio wrapper) sees requests one at a time. MRTR links them itself: a retry carries the
requestState its previous round was given, so that state names the operation (and the round) it
continues. A client that alters the state breaks that link, and that is exactly the client a
debugger must show as a retry gone wrong, not as a new flow; so a request whose state is unknown
(or that carries answers without a state) joins the most recent unanswered round of the same
method and target whose input keys it answers. Legacy server-initiated requests join the call they
were sent from; the client's answer joins it by the request's id (within its session). What a legacy
server sends on its standalone GET stream names no call: it joins the call in flight in the same
session (see `_standalone`). A call that
becomes a task (SEP-2663) goes on with the client's tasks/get, tasks/update and tasks/cancel for that
task id, each answer one round further, until a poll shows the task finished.

Each WireEvent's meta carries an `exchange` key: the same value for a request and its response
(one HTTP POST, one JSON-RPC id on a stdio pipe). Memory is bounded: at most MAX_REMEMBERED flows
wait for a retry; the oldest are forgotten.
"""

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..protocol.roundtrip import result_type_of
from ..protocol.tasks_extension import TASK_METHODS
from ..protocol.versions import META_PROTOCOL_VERSION, MODERN_VERSION, MRTR_METHODS, NAME_FIELDS
from ..trace import TraceStore
from ..trace.model import params_of
from ..transport.base import WireEvent

MAX_REMEMBERED = 10_000
Where = tuple[str, int]  # (operation id, round)
_TASK_ENDS = {"completed": "complete", "failed": "error", "cancelled": "aborted"}


@dataclass
class _Waiting:
    """A round answered input_required; the client's retry is expected."""

    where: Where
    method: str
    target: Any
    arguments: Any
    keys: frozenset[str]


@dataclass
class Stitcher:
    """A tap listener that records what it sees into `store`, one operation per MRTR flow."""

    store: TraceStore
    server_label: str
    label: str = ""
    _by_state: OrderedDict[str, Where] = field(default_factory=OrderedDict)
    _waiting: OrderedDict[int, _Waiting] = field(default_factory=OrderedDict)
    _waiting_of: dict[Where, int] = field(default_factory=dict)
    _open: dict[Any, Where] = field(default_factory=dict)  # exchange -> (operation, round)
    _sessions: dict[Any, Any] = field(default_factory=dict)  # exchange -> the legacy Mcp-Session-Id, if any
    #: (session, server request id) -> (operation, round): ids are only unique within one legacy session.
    _server_requests: dict[tuple[Any, Any], Where] = field(default_factory=dict)
    #: task id -> (operation, the round its requests now belong to)
    _tasks: dict[str, Where] = field(default_factory=dict)
    _task_exchanges: set[Any] = field(default_factory=set)
    _count: int = 0

    def __call__(self, event: WireEvent) -> None:
        message = event.message
        if not isinstance(message, dict):
            return
        meta = {k: v for k, v in event.meta.items() if k != "exchange"}
        exchange = event.meta.get("exchange")
        if event.direction == "client->server":
            self._incoming(message, exchange, meta)
        else:
            self._outgoing(message, exchange, meta)

    def _incoming(self, message: dict[str, Any], exchange: Any, meta: dict[str, Any]) -> None:
        method = message.get("method")
        session = session_of(meta)
        if method is None:  # a legacy client's answer to a server-initiated request
            where = self._server_requests.pop((session, message.get("id")), None)
            if where is not None:
                self.store.record(where[0], where[1], "client->server", message, **meta)
            return
        if "id" not in message:  # a notification: it belongs to the call it speaks about (or to none)
            self._client_notification(message, session, meta)
            return
        if method in TASK_METHODS and "id" in message:
            self._task_request(method, message, exchange, session, meta)
            return
        if method not in MRTR_METHODS or "id" not in message:
            return
        params = params_of(message)
        continued = self.continuation(method, params)
        if continued is not None:
            where = (continued[0], continued[1] + 1)
        else:
            target = params.get(NAME_FIELDS[method])
            arguments = _object(params.get("arguments"))
            era = "modern" if _object(params.get("_meta")).get(META_PROTOCOL_VERSION) == MODERN_VERSION else "legacy"
            operation = self.store.begin_operation(method, str(target), arguments, era, self.server_label,
                                                   self.label)
            where = (operation.id, 1)
        self._open[exchange] = where
        self._sessions[exchange] = session
        self.store.record(where[0], where[1], "client->server", message, **meta)

    def _task_request(self, method: str, message: dict[str, Any], exchange: Any, session: Any,
                      meta: dict[str, Any]) -> None:
        task_id = params_of(message).get("taskId")
        known = self._tasks.get(task_id) if isinstance(task_id, str) else None
        if known is None or not isinstance(task_id, str):
            return  # a task this recorder never saw created
        if method == "tasks/update":  # an answer opens the task's next round, as a retry does
            known = (known[0], known[1] + 1)
            self._tasks[task_id] = known
        self._open[exchange] = known
        self._sessions[exchange] = session
        self._task_exchanges.add(exchange)
        self.store.record(known[0], known[1], "client->server", message, **meta)

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

    def continuation(self, method: str, params: dict[str, Any]) -> Where | None:
        """The (operation, round) a request continues: by the state it echoes, else by the keys it answers."""
        state = params.get("requestState")
        if isinstance(state, str) and state in self._by_state:
            where = self._by_state[state]
            self._forget_waiting(where)
            return where
        responses = params.get("inputResponses")
        answered = frozenset(responses) if isinstance(responses, dict) else frozenset()
        if not answered and "requestState" not in params:
            return None  # a first call: nothing says it continues anything
        target = params.get(NAME_FIELDS[method])
        candidates = [w for w in reversed(self._waiting.values()) if w.method == method and w.target == target
                      and (w.keys & answered if answered else True)]
        if not candidates:
            return None
        arguments = params.get("arguments")
        chosen = next((w for w in candidates if w.arguments == arguments), candidates[0])
        self._forget_waiting(chosen.where)
        return chosen.where

    def _forget_waiting(self, where: Where) -> None:
        number = self._waiting_of.pop(where, None)
        if number is not None:
            self._waiting.pop(number, None)

    def in_flight(self, session: Any) -> list[Where]:
        """The (operation, round) of each call still waiting for its response in `session`, oldest first."""
        return [where for exchange, where in self._open.items() if self._sessions.get(exchange) == session]

    def _client_notification(self, message: dict[str, Any], session: Any, meta: dict[str, Any]) -> None:
        """A client notification joins a call in flight in its session: the one `notifications/cancelled`
        names by its requestId, else the most recent; with no call in flight it is left out (the
        handshake's `notifications/initialized`, a `roots/list_changed` between calls)."""
        calls = self.in_flight(session)
        if not calls:
            return
        where = calls[-1]
        if message.get("method") == "notifications/cancelled":
            cancelled = params_of(message).get("requestId")
            where = next((w for w in reversed(calls) if self._request_id(w) == cancelled), where)
        self.store.record(where[0], where[1], "client->server", message, **meta)

    def _request_id(self, where: Where) -> Any:
        request = next((m for m in reversed(self.store.messages_of(where[0]))
                        if m.kind == "request" and m.round == where[1]), None)
        return request.message.get("id") if request is not None and isinstance(request.message, dict) else None

    def _standalone(self, message: dict[str, Any], meta: dict[str, Any]) -> None:
        """A message on the legacy standalone GET stream (a server request the TypeScript SDK's
        `elicitInput` sends there, a notification): it names no call, so it joins the call in flight in
        the same `Mcp-Session-Id` that started most recently (the one a server asks about, in practice,
        since an SDK handler sends its question while its own request is open). With no call in flight
        it is recorded as an operation of its own, labelled "standalone server message", finished at
        once; a request's answer still joins it by (session, id)."""
        session = session_of(meta)
        calls = self.in_flight(session)
        if calls:
            where = calls[-1]
        else:
            method = str(message.get("method"))
            label = f"{self.label}: standalone server message" if self.label else "standalone server message"
            operation = self.store.begin_operation(method, "", {}, "legacy", self.server_label, label)
            where = (operation.id, 1)
        self.store.record(where[0], where[1], "server->client", message, **meta)
        if "method" in message and "id" in message:
            self._server_requests[(session, message["id"])] = where
            while len(self._server_requests) > MAX_REMEMBERED:
                del self._server_requests[next(iter(self._server_requests))]
        if not calls:
            self.store.finish_operation(where[0], "complete")

    def _outgoing(self, message: dict[str, Any], exchange: Any, meta: dict[str, Any]) -> None:
        where = self._open.get(exchange)
        if where is None:
            if meta.get("http_method") == "GET" and "method" in message:  # not a refusal's error body
                self._standalone(message, meta)
            return
        self.store.record(where[0], where[1], "server->client", message, **meta)
        if exchange in self._task_exchanges and "method" not in message:
            self._task_exchanges.discard(exchange)
            del self._open[exchange]
            self._sessions.pop(exchange, None)
            self._task_answer(where, message)
            return
        if "method" in message:  # notification, or a legacy server-initiated request inside the call
            if "id" in message:
                self._server_requests[(self._sessions.get(exchange), message["id"])] = where
                while len(self._server_requests) > MAX_REMEMBERED:
                    del self._server_requests[next(iter(self._server_requests))]
            return
        del self._open[exchange]
        self._sessions.pop(exchange, None)
        result = message.get("result")
        if isinstance(result, dict) and result_type_of(result) == "input_required":
            self._remember(where, result)
            return  # the operation goes on when (if) the client retries
        if isinstance(result, dict) and result_type_of(result) == "task" and isinstance(result.get("taskId"), str):
            self._tasks[result["taskId"]] = (where[0], where[1] + 1)
            self.store.note_task(where[0], result["taskId"], str(result.get("status") or "working"), where[1])
            while len(self._tasks) > MAX_REMEMBERED:
                del self._tasks[next(iter(self._tasks))]
            return  # the operation goes on with the client's polls
        error = message.get("error")
        outcome = "error" if isinstance(error, dict) else "complete"
        problem = f"{error.get('code')} {error.get('message')}" if isinstance(error, dict) else None
        self.store.finish_operation(where[0], outcome, problem)  # type: ignore[arg-type]

    def _remember(self, where: Where, result: dict[str, Any]) -> None:
        state = result.get("requestState")
        if isinstance(state, str):
            self._by_state[state] = where
            while len(self._by_state) > MAX_REMEMBERED:  # abandoned flows: forget the oldest
                self._by_state.popitem(last=False)
        operation = self.store.operation(where[0])
        requests = result.get("inputRequests")
        first = self.store.messages_of(where[0])
        request = next((m.message for m in reversed(first) if m.kind == "request" and m.round == where[1]), None)
        self._count += 1
        self._waiting[self._count] = _Waiting(
            where, operation.method, params_of(request).get(NAME_FIELDS.get(operation.method, "name")),
            params_of(request).get("arguments"), frozenset(requests) if isinstance(requests, dict) else frozenset())
        self._waiting_of[where] = self._count
        while len(self._waiting) > MAX_REMEMBERED:
            _, oldest = self._waiting.popitem(last=False)
            self._waiting_of.pop(oldest.where, None)


def session_of(meta: dict[str, Any]) -> Any:
    headers = meta.get("request_headers")
    return headers.get("mcp-session-id") if isinstance(headers, dict) else None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
