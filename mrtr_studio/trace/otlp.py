"""OTLP/JSON of a trace (Jaeger, Tempo, the OpenTelemetry Collector's file receiver open it).

One trace per operation, one root span for the operation and one child span per round (a round of
a task's phase is one poll run: the polls and answers between two status changes), each message an
event of its round's span. Span attributes: `mcp.method.name`, `mcp.tool.name`, `mcp.round`,
`mcp.result_type`, `rpc.jsonrpc.error_code`, `mcp.findings`; the root carries the outcome, era and
operation id.

The ids are the ones the studio's client put on the wire: each request's `_meta.traceparent`
(protocol/trace_context.py) names the operation's trace and the round's span, so a server's own spans
(children of that traceparent) land inside the studio's. A trace recorded without them (a proxy in
front of another client, an older studio) gets ids derived from the operation, stable across exports.

Written directly in OTLP/JSON (protobuf's JSON mapping with its two departures: trace and span ids
are hex, not base64, and enums are integers), because building protobuf objects and mapping them
with `json_format` took minutes on a large trace. `from_otlp_json` parses a document back into the
official `opentelemetry-proto` ExportTraceServiceRequest (`to_request` is that, for a trace), which
is how the tests hold the document to the schema.
"""

import base64
import hashlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from .. import __version__
from ..protocol.roundtrip import result_type_of
from ..protocol.trace_context import parse_traceparent, trace_id_of
from .model import Operation, TraceMessage, params_of

if TYPE_CHECKING:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

_ID_FIELDS = ("traceId", "spanId", "parentSpanId")
# opentelemetry-proto's enums (trace.proto: SPAN_KIND_CLIENT, STATUS_CODE_OK / _ERROR), as OTLP/JSON writes
# them: written as numbers so an export loads no protobuf (tests/trace/test_otlp_document.py holds them to it)
_CLIENT = 3
_OK = 1
_ERROR = 2


def _value(value: Any) -> dict[str, Any]:
    """An AnyValue in OTLP/JSON: 64-bit integers are strings, as protobuf's JSON mapping writes them."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": str(value)}


def _attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "value": _value(value)} for key, value in values.items() if value is not None]


def _nanos(seconds: float) -> str:
    return str(max(0, round(seconds * 1_000_000_000)))


def _derived_span(trace_id: str, label: str) -> str:
    digest = hashlib.sha256(f"{trace_id} {label}".encode()).digest()[:8]
    return (digest if any(digest) else b"\x01" * 8).hex()


def _sent_ids(messages: Sequence[TraceMessage]) -> tuple[str | None, str | None]:
    """(trace id, span id) of the first request in `messages` that carried a traceparent."""
    for entry in messages:
        if entry.kind != "request":
            continue
        meta = params_of(entry.message).get("_meta")
        ids = parse_traceparent(meta.get("traceparent")) if isinstance(meta, dict) else None
        if ids is not None:
            return ids
    return None, None


def _round_attributes(operation: Operation, number: int, messages: Sequence[TraceMessage]) -> dict[str, Any]:
    requests = [m for m in messages if m.kind == "request"]
    replies = [m for m in messages if m.direction == "server->client" and m.reply_to is not None]
    last = replies[-1] if replies else None
    result = last.message.get("result") if last is not None and isinstance(last.message, dict) else None
    error = last.message.get("error") if last is not None and isinstance(last.message, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    findings = [f"{f.severity}: {f.rule}" for m in messages for f in m.findings]
    return {
        "mcp.method.name": requests[0].method_name if requests else operation.method,
        "mcp.tool.name": operation.target if operation.method == "tools/call" else None,
        "mcp.round": number,
        "mcp.result_type": (result_type_of(result) or "complete") if isinstance(result, dict) else None,
        "rpc.jsonrpc.error_code": code if isinstance(code, int) and not isinstance(code, bool) else None,
        "mcp.findings": findings or None,
        "mcp.requests": len(requests),
    }


def _status(code: int, message: str = "") -> dict[str, Any]:
    # protobuf's JSON mapping leaves out fields at their default (code 0 = UNSET, an empty message)
    status: dict[str, Any] = {"code": code} if code else {}
    if message:
        status["message"] = message
    return status


def operation_spans(operation: Operation, messages: Sequence[TraceMessage]) -> list[dict[str, Any]]:
    """The root span of one operation and a span per round, sharing the operation's trace id, as
    OTLP/JSON span objects (written directly: going through protobuf objects and MessageToDict cost
    ~0.5 ms a message, a minute and a half for a 100,000-message trace)."""
    ordered = sorted(messages, key=lambda m: m.seq)
    sent_trace, _ = _sent_ids(ordered)
    trace_hex = sent_trace or trace_id_of(operation.id, operation.started)
    root_id = _derived_span(trace_hex, "operation")
    rounds: dict[int, list[TraceMessage]] = {}
    for entry in ordered:
        rounds.setdefault(entry.round, []).append(entry)
    times = [m.timestamp for m in ordered]
    start = min([operation.started, *times])
    end = max([operation.ended or start, *times])
    failed = operation.outcome not in ("complete", "running")
    root = {"traceId": trace_hex, "spanId": root_id, "name": f"{operation.method} {operation.target}".strip(),
            "kind": _CLIENT, "startTimeUnixNano": _nanos(start), "endTimeUnixNano": _nanos(end),
            "attributes": _attributes({"mcp.method.name": operation.method,
                                       "mcp.tool.name": operation.target if operation.method == "tools/call"
                                       else None,
                                       "mcp.operation.id": operation.id, "mcp.era": operation.era,
                                       "mcp.outcome": operation.outcome, "mcp.rounds": operation.rounds,
                                       "mcp.task.id": operation.task_id, "server.address": operation.server}),
            "status": _status(_ERROR if failed else _OK, operation.problem or "")}
    spans = [root]
    for number, entries in rounds.items():
        _, sent_span = _sent_ids(entries)
        attributes = _round_attributes(operation, number, entries)
        polls = operation.task_round is not None and number > operation.task_round
        name = f"{attributes['mcp.method.name']} round {number}" + (" (task poll run)" if polls else "")
        errored = attributes["rpc.jsonrpc.error_code"] is not None
        spans.append({
            "traceId": trace_hex, "spanId": sent_span or _derived_span(trace_hex, f"round {number}"),
            "parentSpanId": root_id, "name": name, "kind": _CLIENT,
            "startTimeUnixNano": _nanos(entries[0].timestamp), "endTimeUnixNano": _nanos(entries[-1].timestamp),
            "attributes": _attributes(attributes),
            "events": [{"timeUnixNano": _nanos(m.timestamp), "name": m.kind,
                        "attributes": _attributes({"mcp.seq": m.seq, "mcp.direction": m.direction,
                                                   "mcp.method.name": m.method_name})}
                       for m in entries],
            "status": _status(_ERROR if errored else 0)})
    return spans


def otlp_document(operations: Iterable[Operation], messages: Sequence[TraceMessage]) -> dict[str, Any]:
    """The OTLP/JSON document of a trace (an ExportTraceServiceRequest in its JSON form)."""
    by_operation: dict[str, list[TraceMessage]] = {}
    for entry in messages:
        by_operation.setdefault(entry.operation_id, []).append(entry)
    spans = [span for op in operations for span in operation_spans(op, by_operation.get(op.id, []))]
    resource = {"attributes": _attributes({"service.name": "mrtr-studio", "service.version": __version__})}
    scope = {"name": "mrtr-studio", "version": __version__}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [{"scope": scope, "spans": spans}]}]}


def otlp_text(operations: Iterable[Operation], messages: Sequence[TraceMessage]) -> tuple[str, int]:
    """The OTLP/JSON file's text and how many spans it holds: what `trace export --otlp` and the
    window's export write."""
    document = otlp_document(operations, messages)
    spans = sum(len(scope["spans"]) for resource in document["resourceSpans"] for scope in resource["scopeSpans"])
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode(), spans


def to_request(operations: Iterable[Operation], messages: Sequence[TraceMessage]) -> "ExportTraceServiceRequest":
    """The same trace as the official protobuf message (what a collector receives)."""
    return from_otlp_json(otlp_document(operations, messages))


def _ids(value: Any, convert: Any) -> Any:
    if isinstance(value, dict):
        return {k: convert(v) if k in _ID_FIELDS and isinstance(v, str) else _ids(v, convert) for k, v in value.items()}
    if isinstance(value, list):
        return [_ids(v, convert) for v in value]
    return value


def to_otlp_json(request: "ExportTraceServiceRequest") -> dict[str, Any]:
    """OTLP/JSON: protobuf's JSON mapping with hex ids and integer enums."""
    from google.protobuf import json_format

    mapped = json_format.MessageToDict(request, use_integers_for_enums=True)
    return dict(_ids(mapped, lambda v: base64.b64decode(v).hex()))


def from_otlp_json(document: Any) -> "ExportTraceServiceRequest":
    """Parse OTLP/JSON (hex ids) back into the protobuf message; ValueError when it is not one."""
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    try:
        converted = _ids(document, lambda v: base64.b64encode(bytes.fromhex(v)).decode())
        return json_format.ParseDict(converted, ExportTraceServiceRequest())
    except (json_format.ParseError, ValueError, TypeError) as exc:
        raise ValueError(f"not OTLP/JSON trace data: {exc}") from exc
