"""Lint rules per recorded message: what a careful reviewer of an MRTR flow would flag.

The rules read a message together with the earlier messages of its operation (the request a
response answers, the input_required a retry follows) and return Findings; `attach(store)` runs
them as messages are recorded and attaches the findings with `store.add_findings`, so every view
shows them. Rule ids are stable strings the GUI can filter on.
"""

import itertools
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

from ..protocol import capabilities
from ..protocol.roundtrip import result_type_of
from ..protocol.schema import message_problems
from ..protocol.tasks_extension import TASK_METHODS
from ..protocol.versions import LEGACY_VERSION, META_PROTOCOL_VERSION, MODERN_VERSION, MRTR_METHODS
from .deprecation import deprecation_findings
from .model import Finding, TraceMessage, params_of, result_of
from .store import StoreEvent, TraceStore
from .task_lint import lint_task_message

SCHEMA_INVALID = "schema-invalid"
STATE_NOT_ECHOED = "state-not-echoed"
STATE_ALTERED = "state-altered"
STATE_INVENTED = "state-invented"
REUSED_ID = "reused-id"
INPUT_REQUIRED_FORBIDDEN = "input-required-forbidden"
CAPABILITY_NOT_DECLARED = "capability-not-declared"
INPUT_REQUIRED_EMPTY = "input-required-empty"
UNKNOWN_RESULT_TYPE = "unknown-result-type"
RESPONSE_KEYS = "input-responses-keys"
MRTR_LEAK = "mrtr-data-on-first-call"
ANSWER_SCHEMA = "answer-schema-invalid"


def _is_modern(request: Any) -> bool:
    meta = params_of(request).get("_meta")
    return isinstance(meta, dict) and meta.get(META_PROTOCOL_VERSION) == MODERN_VERSION


def _last_input_required(before_round: int, earlier: Sequence[TraceMessage]) -> TraceMessage | None:
    for candidate in reversed(earlier):
        if candidate.kind == "input_required" and candidate.round < before_round:
            return candidate
    return None


def lint_message(entry: TraceMessage, earlier: Sequence[TraceMessage], era: str = "modern") -> list[Finding]:
    """Findings for `entry` given the messages recorded before it in the same operation."""
    if entry.kind == "auth":
        return deprecation_findings(entry)  # an HTTP exchange of the authorization flow: its checks travel with it
    found: list[Finding] = []
    message = entry.message
    request = entry.reply_to
    found += _schema(entry, request, era)
    if entry.kind in ("request", "server_request"):
        found += _reused_id(entry, earlier)
    if entry.kind == "request" and entry.method not in TASK_METHODS:
        found += _retry_rules(entry, earlier)
    if entry.kind == "client_response" and request is not None and request.method == "elicitation/create":
        found += _answer_rules(f"the answer to {request.jsonrpc_id!r}", params_of(request.message),
                               result_of(entry.message))
    if entry.direction == "server->client" and isinstance(message, dict) and isinstance(message.get("result"), dict):
        result_type = result_type_of(message["result"])
        if result_type not in ("complete", "input_required", "task"):
            found.append(Finding(UNKNOWN_RESULT_TYPE, "error", f"unknown resultType {result_type!r}"))
    if entry.kind == "input_required":
        found += _input_required_rules(entry, request)
    return found + lint_task_message(entry, earlier) + deprecation_findings(entry)


def _schema(entry: TraceMessage, request: TraceMessage | None, era: str) -> list[Finding]:
    if entry.kind == "invalid" and not isinstance(entry.message, dict):
        status = entry.transport.get("http_status")
        if entry.transport.get("sse_event") or (isinstance(status, int) and status not in (200, 201)):
            return []  # a body that carries no message (202 "Accepted", a 401's text, the SSE endpoint)
        return [Finding(SCHEMA_INVALID, "error", "not a JSON-RPC message: "
                        + (entry.message[:60] if isinstance(entry.message, str) else json.dumps(entry.message)[:60]))]
    version = MODERN_VERSION if era == "modern" else LEGACY_VERSION
    method = request.method if request is not None else None
    try:
        problems = message_problems(entry.message, method=method, version=version)
    except (KeyError, ValueError) as exc:  # a schema this build does not ship
        return [Finding(SCHEMA_INVALID, "info", f"not checked: {exc}")]
    if not problems:
        return []
    more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
    return [Finding(SCHEMA_INVALID, "error", f"invalid against the {version} schema: {problems[0]}{more}")]


def _reused_id(entry: TraceMessage, earlier: Sequence[TraceMessage]) -> list[Finding]:
    for candidate in earlier:
        if candidate.kind == entry.kind and candidate.jsonrpc_id == entry.jsonrpc_id:
            return [Finding(REUSED_ID, "error", f"JSON-RPC id {entry.jsonrpc_id!r} was already used in round "
                            f"{candidate.round}; every retry needs a new id")]
    return []


def _retry_rules(entry: TraceMessage, earlier: Sequence[TraceMessage]) -> list[Finding]:
    params = params_of(entry.message)
    previous = _last_input_required(entry.round, earlier)
    if previous is None:
        if entry.round <= 1 and ("inputResponses" in params or "requestState" in params):
            carried = " and ".join(k for k in ("inputResponses", "requestState") if k in params)
            return [Finding(MRTR_LEAK, "error", f"a first call carries {carried}: MRTR data belongs only to "
                            "the retry of the request that asked for it")]
        return []
    asked = result_of(previous.message)
    found: list[Finding] = []
    if "requestState" in asked:
        if "requestState" not in params:
            found.append(Finding(STATE_NOT_ECHOED, "error", f"the server sent a requestState in round "
                                 f"{previous.round} and the retry does not echo it"))
        elif params["requestState"] != asked["requestState"]:
            found.append(Finding(STATE_ALTERED, "error", f"the retry's requestState differs from the one the "
                                 f"server sent in round {previous.round}; it must be echoed byte for byte"))
    elif "requestState" in params:
        found.append(Finding(STATE_INVENTED, "error", f"the retry carries a requestState but the server sent "
                             f"none in round {previous.round}"))
    requests = asked.get("inputRequests")
    responses = params.get("inputResponses")
    if isinstance(requests, dict) and requests:
        answered = set(responses) if isinstance(responses, dict) else set()
        missing = [k for k in requests if k not in answered]
        extra = sorted(answered - set(requests))
        if missing:
            found.append(Finding(RESPONSE_KEYS, "warning", f"inputResponses lacks {', '.join(missing)}"))
        if extra:
            found.append(Finding(RESPONSE_KEYS, "warning", f"inputResponses has keys nobody asked for: "
                                 f"{', '.join(extra)}"))
        for key, asked_for in requests.items():
            if isinstance(asked_for, dict) and asked_for.get("method") == "elicitation/create" \
                    and isinstance(responses, dict) and key in responses:
                found += _answer_rules(f"inputResponses.{key}", asked_for.get("params"), responses[key])
    return found


def _answer_rules(where: str, request_params: Any, answer: Any) -> list[Finding]:
    """An accepted elicitation answer whose content breaks the requestedSchema: each field and rule.
    (jsonschema loads with the first such answer linted, not with every store that lints.)"""
    from ..protocol.answer_schema import elicitation_answer_problems

    problems = elicitation_answer_problems(request_params, answer)
    return [Finding(ANSWER_SCHEMA, "info" if problem.startswith("not checked") else "error",
                    f"{where} does not fit the requestedSchema: {problem}") for problem in problems[:8]]


def _input_required_rules(entry: TraceMessage, request: TraceMessage | None) -> list[Finding]:
    result = result_of(entry.message)
    found: list[Finding] = []
    if "inputRequests" not in result and "requestState" not in result:
        found.append(Finding(INPUT_REQUIRED_EMPTY, "error",
                             "input_required with neither inputRequests nor requestState"))
    if request is None:
        return found
    if request.method not in MRTR_METHODS:
        found.append(Finding(INPUT_REQUIRED_FORBIDDEN, "error", f"input_required answers {request.method}, "
                             "which must not return it (only tools/call, prompts/get, resources/read)"))
    elif not _is_modern(request.message):
        found.append(Finding(INPUT_REQUIRED_FORBIDDEN, "error",
                             "input_required answers a legacy request; it needs protocol 2026-07-28"))
    requests = result.get("inputRequests")
    if isinstance(requests, dict) and _is_modern(request.message):
        declared = capabilities.from_meta(params_of(request.message))
        valid = {k: v for k, v in requests.items() if isinstance(v, dict)}
        lacking = capabilities.missing(declared, valid)
        if lacking:
            found.append(Finding(CAPABILITY_NOT_DECLARED, "error", "asks for capabilities the client did not "
                                 f"declare: {json.dumps(lacking, separators=(',', ':'))}"))
    return found


def legacy_capability_findings(request: Any, declared: dict[str, Any]) -> list[Finding]:
    """A legacy server-initiated request (elicitation/create, sampling/createMessage, roots/list) for a
    capability the client did not declare in its `initialize` (`declared`: its capabilities). The
    recorder that saw the initialize (proxy.sessions) calls this: the request's own operation does
    not hold the handshake."""
    method = request.get("method") if isinstance(request, dict) else None
    if not isinstance(method, str):
        return []
    lacking = capabilities.missing(declared, {"request": {"method": method, "params": params_of(request)}})
    if not lacking:
        return []
    return [Finding(CAPABILITY_NOT_DECLARED, "error", f"{method} asks for capabilities the client did not declare "
                    f"in initialize: {json.dumps(lacking, separators=(',', ':'))}")]


class _Earlier(Sequence[TraceMessage]):
    """The messages of an operation before the newest, without copying them: a call relaying 100,000
    notifications must not copy 100,000 lists (the rules look back only at a few requests)."""

    def __init__(self, messages: list[TraceMessage], length: int) -> None:
        self._messages = messages
        self._length = length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> TraceMessage: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[TraceMessage]: ...

    def __getitem__(self, index: int | slice) -> TraceMessage | Sequence[TraceMessage]:
        if isinstance(index, slice):
            return self._messages[:self._length][index]
        if not -self._length <= index < self._length:
            raise IndexError(index)
        return self._messages[index % self._length]

    def __iter__(self) -> Iterator[TraceMessage]:
        return itertools.islice(self._messages, self._length)

    def __reversed__(self) -> Iterator[TraceMessage]:
        return (self._messages[i] for i in range(self._length - 1, -1, -1))


def attach(store: TraceStore) -> Callable[[], None]:
    """Lint each message as it is recorded; returns the unsubscribe function."""

    def on_event(event: StoreEvent) -> None:
        if event.kind != "message_added" or event.message is None or event.loaded:
            return
        entry = event.message
        messages = store.live_messages_of(entry.operation_id)
        length = len(messages) - 1 if messages and messages[-1] is entry else \
            sum(1 for m in messages if m.seq < entry.seq)
        earlier = _Earlier(messages, length)
        era = store.operation(entry.operation_id).era
        store.add_findings(entry, lint_message(entry, earlier, era))

    # Live only: a message opened from a file keeps the findings it was saved with (lint_all adds more).
    return store.subscribe(on_event, live=True)


def lint_all(store: TraceStore) -> None:
    """Lint every message already in the store (after opening a file recorded without the linter)."""
    for op in store.operations:
        messages = store.messages_of(op.id)
        for index, entry in enumerate(messages):
            fresh = [f for f in lint_message(entry, _Earlier(messages, index), op.era) if f not in entry.findings]
            store.add_findings(entry, fresh)
