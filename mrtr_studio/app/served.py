"""The studio's engine served over HTTP to outside clients, their flows recorded as they happen.

A client author points their client at the URL and watches its retry loop in the studio: every
request and answer crosses the server's tap, and flows are stitched together the way MRTR itself
links them: a retry carries the requestState its previous round was given, so that state names the
operation (and the round) the retry continues. Legacy server-initiated requests join the call they
were sent from; the client's answer, POSTed separately, joins it by the request's id. A call that
becomes a task (SEP-2663) goes on with the client's tasks/get, tasks/update and tasks/cancel for
that task id, each answer round one round further, until a poll shows the task finished.
"""

from dataclasses import dataclass, field
from typing import Any

from ..protocol.tasks import TASK_METHODS
from ..protocol.versions import META_PROTOCOL_VERSION, MODERN_VERSION, MRTR_METHODS, NAME_FIELDS
from ..trace import TraceStore
from ..trace.model import params_of
from ..transport.base import WireEvent

LABEL = "external client"
MAX_REMEMBERED_STATES = 10_000
_TASK_ENDS = {"completed": "complete", "failed": "error", "cancelled": "aborted"}


@dataclass
class ServedTraffic:
    store: TraceStore
    server_label: str
    _by_state: dict[str, tuple[str, int]] = field(default_factory=dict)
    _open: dict[Any, tuple[str, int]] = field(default_factory=dict)  # exchange -> (operation, round)
    _sessions: dict[Any, Any] = field(default_factory=dict)  # exchange -> the legacy Mcp-Session-Id, if any
    #: (session, server request id) -> (operation, round): ids are only unique within one legacy session.
    _server_requests: dict[tuple[Any, Any], tuple[str, int]] = field(default_factory=dict)
    #: task id -> (operation, the round its requests now belong to)
    _tasks: dict[str, tuple[str, int]] = field(default_factory=dict)
    _task_exchanges: set[Any] = field(default_factory=set)

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
        session = _session_of(meta)
        if method is None:  # a legacy client's answer to a server-initiated request
            where = self._server_requests.pop((session, message.get("id")), None)
            if where is not None:
                self.store.record(where[0], where[1], "client->server", message, **meta)
            return
        if method in TASK_METHODS and "id" in message:
            self._task_request(method, message, exchange, session, meta)
            return
        if method not in MRTR_METHODS or "id" not in message:
            return
        params = params_of(message)
        state = params.get("requestState")
        continued = self._by_state.get(state) if isinstance(state, str) else None
        if continued is not None:
            where = (continued[0], continued[1] + 1)
        else:
            target = params.get(NAME_FIELDS[method])
            arguments = _object(params.get("arguments"))
            era = "modern" if _object(params.get("_meta")).get(META_PROTOCOL_VERSION) == MODERN_VERSION else "legacy"
            operation = self.store.begin_operation(method, str(target), arguments, era, self.server_label, LABEL)
            where = (operation.id, 1)
        self._open[exchange] = where
        self._sessions[exchange] = session
        self.store.record(where[0], where[1], "client->server", message, **meta)

    def _task_request(self, method: str, message: dict[str, Any], exchange: Any, session: Any,
                      meta: dict[str, Any]) -> None:
        task_id = params_of(message).get("taskId")
        known = self._tasks.get(task_id) if isinstance(task_id, str) else None
        if known is None or not isinstance(task_id, str):
            return  # a task this studio never saw created
        if method == "tasks/update":  # an answer opens the task's next round, as a retry does
            known = (known[0], known[1] + 1)
            self._tasks[task_id] = known
        self._open[exchange] = known
        self._sessions[exchange] = session
        self._task_exchanges.add(exchange)
        self.store.record(known[0], known[1], "client->server", message, **meta)

    def _task_answer(self, where: tuple[str, int], message: dict[str, Any]) -> None:
        result = message.get("result")
        status = result.get("status") if isinstance(result, dict) else None
        if not isinstance(status, str):
            return  # an acknowledgement, or an error the client may recover from
        self.store.note_task(where[0], status=status)
        if status in _TASK_ENDS:
            self.store.finish_operation(where[0], _TASK_ENDS[status],  # type: ignore[arg-type]
                                        None if status == "completed" else f"the task ended {status}")
            self._tasks = {k: v for k, v in self._tasks.items() if v[0] != where[0]}

    def _outgoing(self, message: dict[str, Any], exchange: Any, meta: dict[str, Any]) -> None:
        where = self._open.get(exchange)
        if where is None:
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
            return
        del self._open[exchange]
        self._sessions.pop(exchange, None)
        result = message.get("result")
        if isinstance(result, dict) and result.get("resultType") == "input_required":
            state = result.get("requestState")
            if isinstance(state, str):
                self._by_state[state] = where
                if len(self._by_state) > MAX_REMEMBERED_STATES:  # abandoned flows: forget the oldest
                    del self._by_state[next(iter(self._by_state))]
            return  # the operation goes on when (if) the client retries
        if isinstance(result, dict) and result.get("resultType") == "task" and isinstance(result.get("taskId"), str):
            self._tasks[result["taskId"]] = (where[0], where[1] + 1)
            self.store.note_task(where[0], result["taskId"], str(result.get("status") or "working"), where[1])
            if len(self._tasks) > MAX_REMEMBERED_STATES:
                del self._tasks[next(iter(self._tasks))]
            return  # the operation goes on with the client's polls
        error = message.get("error")
        outcome = "error" if isinstance(error, dict) else "complete"
        problem = f"{error.get('code')} {error.get('message')}" if isinstance(error, dict) else None
        self.store.finish_operation(where[0], outcome, problem)  # type: ignore[arg-type]


def _session_of(meta: dict[str, Any]) -> Any:
    headers = meta.get("request_headers")
    return headers.get("mcp-session-id") if isinstance(headers, dict) else None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
