"""The flow model: an operation (one tools/call, prompts/get or resources/read) made of rounds,
each round made of the messages that crossed the wire.

A message is recorded once; every view (diagram, log, inspector, files, terminal) renders the same
object. Everything here is plain data that round-trips through JSON unchanged.
"""

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Direction = Literal["client->server", "server->client"]
MessageKind = Literal[
    "request",  # client request (first call or retry)
    "input_required",  # result with resultType input_required
    "complete",  # result with resultType complete (or absent)
    "task",  # result with resultType task: the call became a task (SEP-2663)
    "error",  # JSON-RPC error response
    "notification",
    "server_request",  # legacy server-initiated request
    "client_response",  # the client's answer to a server-initiated request
    "invalid",  # not understood
]
Severity = Literal["error", "warning", "info"]


@dataclass
class Finding:
    rule: str
    severity: Severity
    message: str


@dataclass
class TraceMessage:
    seq: int
    operation_id: str
    round: int
    direction: Direction
    kind: MessageKind
    message: Any
    timestamp: float
    method: str | None = None
    jsonrpc_id: str | int | None = None
    transport: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TraceMessage":
        data = dict(data)
        data["findings"] = [Finding(**f) for f in data.get("findings", [])]
        return cls(**data)


Outcome = Literal["running", "complete", "error", "aborted", "round_limit", "protocol_error", "transport_error"]


@dataclass
class Operation:
    id: str
    method: str
    target: str  # tool or prompt name, resource uri
    arguments: dict[str, Any]
    era: str
    server: str  # "embedded", an URL, a stdio command
    started: float
    outcome: Outcome = "running"
    ended: float | None = None
    rounds: int = 0
    #: Seconds the person spent answering before each retry, by the round that retry opened.
    answer_seconds: dict[int, float] = field(default_factory=dict)
    problem: str | None = None
    label: str = ""
    #: A call that became a task (SEP-2663): its id (kept so a reopened trace can resume polling),
    #: its last seen status, and the round whose answer created it (the MRTR phase ends there).
    task_id: str | None = None
    task_status: str | None = None
    task_round: int | None = None

    @property
    def is_task(self) -> bool:
        return self.task_id is not None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["answer_seconds"] = {str(k): v for k, v in self.answer_seconds.items()}
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Operation":
        data = dict(data)
        data["answer_seconds"] = {int(k): v for k, v in data.get("answer_seconds", {}).items()}
        return cls(**data)


def kind_of(message: Any, direction: Direction) -> MessageKind:
    """What a message is, from the side that received it."""
    if not isinstance(message, dict):
        return "invalid"
    if "method" in message:
        if "id" not in message:
            return "notification"
        return "request" if direction == "client->server" else "server_request"
    if direction == "client->server":
        return "client_response"
    if "error" in message:
        return "error"
    body = message.get("result")
    if not isinstance(body, dict):
        return "invalid"
    kind = body.get("resultType")
    if kind == "input_required":
        return "input_required"
    return "task" if kind == "task" else "complete"


def params_of(message: Any) -> dict[str, Any]:
    """A message's `params` object, `{}` when absent or not an object (traces hold whatever peers sent)."""
    params = message.get("params") if isinstance(message, dict) else None
    return params if isinstance(params, dict) else {}


def result_of(message: Any) -> dict[str, Any]:
    """A response's `result` object, `{}` when absent or not an object."""
    result = message.get("result") if isinstance(message, dict) else None
    return result if isinstance(result, dict) else {}
