"""How `check-client` grades a client, by the era it spoke (from the recorded, stitched, linted trace).

A modern (2026-07-28) client is judged by its retry loop: the state echoed byte for byte, a new id per
retry, answers keyed like the requests and valid against their requestedSchema, no MRTR data on a first
call, schema-valid messages, at least one input_required flow retried to completion.

A legacy (2025-11-25 and older) client never retries: the server asks it with classic server-initiated
requests (elicitation/create, sampling/createMessage, roots/list) inside the call, and the call completes
once they are answered. Judging it by the retry loop would fail every legacy SDK that works, so it gets
the legacy rules instead: every server-initiated request answered, no capability used that the
initialize did not declare (an answer to a roots/list from a client that declared no roots is a client
that lies about its capabilities), answers valid against the request's schema, a new id per request,
schema-valid messages, and at least one flow with a server request answered to completion.

A run whose flows are of both eras judges each flow by its own era's rules (era "modern+legacy").
`Handshakes` is the tap listener that remembers what each legacy session declared; it does no I/O.
"""

import json
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..protocol import capabilities
from ..trace import TraceStore, lint
from ..trace.model import TraceMessage, params_of
from ..transport.base import WireEvent
from .check_report import CheckResult, verdict_for, wire

SESSION_HEADER = "mcp-session-id"
MAX_PENDING = 1_000  # initialize requests waiting for their response; the oldest are forgotten
MAX_SESSIONS = 10_000

#: (check id, what the client must do, the lint rules that break it) for both eras.
SHARED_GRADES: tuple[tuple[str, str, frozenset[str]], ...] = (
    ("new-id", "every request and every retry has a new JSON-RPC id", frozenset({lint.REUSED_ID})),
    ("answer-schema", "every accepted answer fits its requestedSchema", frozenset({lint.ANSWER_SCHEMA})),
    ("schema-valid", "every message the client sent is valid against the shipped schema",
     frozenset({lint.SCHEMA_INVALID})),
)
#: Checks of the retry loop, for modern flows only.
MODERN_GRADES: tuple[tuple[str, str, frozenset[str]], ...] = (
    ("state-echo", "the retry echoes the requestState byte for byte",
     frozenset({lint.STATE_NOT_ECHOED, lint.STATE_ALTERED, lint.STATE_INVENTED})),
    ("answer-keys", "inputResponses are keyed like the inputRequests", frozenset({lint.RESPONSE_KEYS})),
    ("no-mrtr-on-first-call", "no inputResponses or requestState on a first or parallel request",
     frozenset({lint.MRTR_LEAK})),
)
_MODERN_ORDER = ("state-echo", "new-id", "answer-keys", "answer-schema", "no-mrtr-on-first-call", "schema-valid")


def _header(headers: Any, name: str) -> str | None:
    if not isinstance(headers, dict):
        return None
    value = next((v for k, v in headers.items() if isinstance(k, str) and k.lower() == name), None)
    return value if isinstance(value, str) else None


@dataclass
class Handshakes:
    """A tap listener: the capabilities (and protocol version) each legacy session's initialize declared,
    by the Mcp-Session-Id its response opened. Bounded: MAX_PENDING, MAX_SESSIONS."""

    by_session: dict[str, dict[str, Any]] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    _pending: OrderedDict[Any, dict[str, Any]] = field(default_factory=OrderedDict)

    def __call__(self, event: WireEvent) -> None:
        message = event.message
        if not isinstance(message, dict):
            return
        exchange = event.meta.get("exchange")
        if event.direction == "client->server":
            if message.get("method") == "initialize" and "id" in message:
                self._pending[exchange] = params_of(message)
                while len(self._pending) > MAX_PENDING:
                    self._pending.popitem(last=False)
            return
        params = self._pending.pop(exchange, None)
        session = _header(event.meta.get("response_headers"), SESSION_HEADER)
        if params is None or session is None or "result" not in message or len(self.by_session) >= MAX_SESSIONS:
            return
        declared = params.get("capabilities")
        self.by_session[session] = declared if isinstance(declared, dict) else {}
        version = params.get("protocolVersion")
        self.versions[session] = version if isinstance(version, str) else "?"

    def declared(self, session: str | None) -> dict[str, Any] | None:
        return self.by_session.get(session) if session is not None else None


def _lint_grade(store: TraceStore, check_id: str, title: str, rules: frozenset[str],
                operations: set[str]) -> CheckResult:
    hits = [(m, f) for m in store.messages if m.direction == "client->server" and m.operation_id in operations
            for f in m.findings if f.rule in rules and f.severity != "info"]
    evidence = [f"round {m.round} of {store.operation(m.operation_id).target}: {f.message} | "
                + wire("->", m.message) for m, f in hits[:3]]
    return CheckResult(check_id, title, "MUST", verdict_for(not hits, "MUST"),
                       f"{len(hits)} finding(s)" if hits else "", evidence)


def _retry_loop(store: TraceStore, operations: set[str]) -> CheckResult:
    ops = [op for op in store.operations if op.id in operations]
    retried = [op for op in ops if op.rounds >= 2]
    finished = [op for op in retried if op.outcome == "complete"]
    detail = f"{len(ops)} operation(s), {len(retried)} retried, {len(finished)} completed after a retry"
    return CheckResult("retry-loop", "at least one input_required flow is retried to completion", "MUST",
                       verdict_for(bool(finished), "MUST"), detail)


def _answers(store: TraceStore, operations: set[str]) -> list[tuple[TraceMessage, TraceMessage | None]]:
    """Each legacy server-initiated request with the client's answer to it (None: never answered)."""
    pairs = []
    for op_id in (op.id for op in store.operations if op.id in operations):  # in recorded order
        messages = store.messages_of(op_id)
        for asked in (m for m in messages if m.kind == "server_request"):
            answer = next((m for m in messages if m.kind == "client_response" and m.jsonrpc_id == asked.jsonrpc_id
                           and m.seq > asked.seq), None)
            pairs.append((asked, answer))
    return pairs


def _legacy_grades(store: TraceStore, handshakes: Handshakes, operations: set[str]) -> list[CheckResult]:
    pairs = _answers(store, operations)
    unanswered = [asked for asked, answer in pairs if answer is None]
    errors = sum(1 for _, answer in pairs if answer is not None and "error" in answer.message)
    detail = f"{len(pairs)} asked, {len(pairs) - len(unanswered)} answered" + (f" ({errors} with an error)"
                                                                               if errors else "")
    results = [CheckResult("server-requests-answered", "every server-initiated request gets a response", "MUST",
                           verdict_for(not unanswered, "MUST"), detail,
                           [f"{store.operation(m.operation_id).target}: no answer to | " + wire("<-", m.message)
                            for m in unanswered[:3]])]
    overreach = []
    for asked, answer in pairs:
        if answer is None or "result" not in answer.message:
            continue  # an error answer is how a client says it cannot: that is honouring its capabilities
        needed = capabilities.required_for(asked.method or "", params_of(asked.message))
        declared = handshakes.declared(_header(answer.transport.get("request_headers"), SESSION_HEADER))
        if needed and not capabilities.declares(declared or {}, needed):
            said = "no initialize was seen for its session" if declared is None else \
                f"it declared {json.dumps(declared, ensure_ascii=False)}"
            overreach.append(f"{asked.method} answered, which needs {json.dumps(needed)}, but {said} | "
                             + wire("->", answer.message))
    results.append(CheckResult("capabilities-honoured", "no elicitation, sampling or roots answered that the "
                               "initialize did not declare", "MUST", verdict_for(not overreach, "MUST"),
                               f"{len(overreach)} answer(s) beyond the declared capabilities" if overreach else "",
                               overreach[:3]))
    results += [_lint_grade(store, *grade, operations) for grade in SHARED_GRADES]
    asked_in = {asked.operation_id for asked, answer in pairs if answer is not None and "result" in answer.message}
    done = [op for op in store.operations if op.id in asked_in and op.outcome == "complete"]
    results.append(CheckResult("answered-to-completion", "at least one flow with a server-initiated request is "
                               "answered to completion", "MUST", verdict_for(bool(done), "MUST"),
                               f"{len(operations)} operation(s), {len(asked_in)} with a server request answered, "
                               f"{len(done)} completed"))
    return results


def era_of(store: TraceStore, handshakes: Handshakes) -> str:
    """`modern`, `legacy` or `modern+legacy`: the eras of the recorded flows (a client that only shook
    hands is legacy; one that did nothing at all is held to today's rules)."""
    eras = {op.era for op in store.operations}
    if eras >= {"modern", "legacy"}:
        return "modern+legacy"
    if eras == {"legacy"} or (not eras and handshakes.by_session):
        return "legacy"
    return "modern"


def grade(store: TraceStore, handshakes: Handshakes) -> tuple[str, list[CheckResult]]:
    """The era judged and the results, each flow by its own era's rules."""
    era = era_of(store, handshakes)
    modern = {op.id for op in store.operations if op.era != "legacy"}
    legacy = {op.id for op in store.operations if op.era == "legacy"}
    results: list[CheckResult] = []
    if era != "legacy":
        by_id = {grade[0]: grade for grade in SHARED_GRADES + MODERN_GRADES}
        results += [_lint_grade(store, *by_id[check_id], modern) for check_id in _MODERN_ORDER]
        results.append(_retry_loop(store, modern))
    if era != "modern":
        shared = {r.id for r in results}
        results += [r for r in _legacy_grades(store, handshakes, legacy) if r.id not in shared]
        if shared:  # both eras: the checks they share judge every flow
            results = _regrade_shared(store, results, modern | legacy)
    return era, results


def _regrade_shared(store: TraceStore, results: list[CheckResult], operations: set[str]) -> list[CheckResult]:
    shared = {grade[0]: grade for grade in SHARED_GRADES}
    return [_lint_grade(store, *shared[r.id], operations) if r.id in shared else r for r in results]
