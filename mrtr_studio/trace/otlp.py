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

Built with the `opentelemetry-proto` classes (ExportTraceServiceRequest) and written with
`google.protobuf.json_format`, then given OTLP/JSON's two departures from protobuf's JSON mapping:
trace and span ids are hex, not base64, and enums are integers. `read_otlp` undoes the first and
parses the file back into an ExportTraceServiceRequest.
"""

import base64
import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from .. import __version__
from ..protocol.roundtrip import result_type_of
from ..protocol.trace_context import parse_traceparent, trace_id_of
from .model import Operation, TraceMessage, params_of

_ID_FIELDS = ("traceId", "spanId", "parentSpanId")
_ERROR = Status.StatusCode.STATUS_CODE_ERROR


def _value(value: Any) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, list):
        return AnyValue(array_value=ArrayValue(values=[_value(v) for v in value]))
    return AnyValue(string_value=str(value))


def _attributes(values: dict[str, Any]) -> list[KeyValue]:
    return [KeyValue(key=key, value=_value(value)) for key, value in values.items() if value is not None]


def _nanos(seconds: float) -> int:
    return max(0, round(seconds * 1_000_000_000))


def _derived_span(trace_id: str, label: str) -> bytes:
    digest = hashlib.sha256(f"{trace_id} {label}".encode()).digest()[:8]
    return digest if any(digest) else b"\x01" * 8


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


def operation_spans(operation: Operation, messages: Sequence[TraceMessage]) -> list[Span]:
    """The root span of one operation and a span per round, sharing the operation's trace id."""
    ordered = sorted(messages, key=lambda m: m.seq)
    sent_trace, _ = _sent_ids(ordered)
    trace_hex = sent_trace or trace_id_of(operation.id, operation.started)
    trace_id = bytes.fromhex(trace_hex)
    root_id = _derived_span(trace_hex, "operation")
    rounds: dict[int, list[TraceMessage]] = {}
    for entry in ordered:
        rounds.setdefault(entry.round, []).append(entry)
    times = [m.timestamp for m in ordered]
    start = min([operation.started, *times])
    end = max([operation.ended or start, *times])
    failed = operation.outcome not in ("complete", "running")
    root = Span(trace_id=trace_id, span_id=root_id, name=f"{operation.method} {operation.target}".strip(),
                kind=Span.SpanKind.SPAN_KIND_CLIENT, start_time_unix_nano=_nanos(start),
                end_time_unix_nano=_nanos(end),
                attributes=_attributes({"mcp.method.name": operation.method,
                                        "mcp.tool.name": operation.target if operation.method == "tools/call"
                                        else None,
                                        "mcp.operation.id": operation.id, "mcp.era": operation.era,
                                        "mcp.outcome": operation.outcome, "mcp.rounds": operation.rounds,
                                        "mcp.task.id": operation.task_id, "server.address": operation.server}),
                status=Status(code=_ERROR if failed else Status.StatusCode.STATUS_CODE_OK,
                              message=operation.problem or ""))
    spans = [root]
    for number, entries in rounds.items():
        _, sent_span = _sent_ids(entries)
        span_id = bytes.fromhex(sent_span) if sent_span else _derived_span(trace_hex, f"round {number}")
        attributes = _round_attributes(operation, number, entries)
        polls = operation.task_round is not None and number > operation.task_round
        name = f"{attributes['mcp.method.name']} round {number}" + (" (task poll run)" if polls else "")
        errored = attributes["rpc.jsonrpc.error_code"] is not None
        spans.append(Span(
            trace_id=trace_id, span_id=span_id, parent_span_id=root_id, name=name,
            kind=Span.SpanKind.SPAN_KIND_CLIENT, start_time_unix_nano=_nanos(entries[0].timestamp),
            end_time_unix_nano=_nanos(entries[-1].timestamp), attributes=_attributes(attributes),
            events=[Span.Event(time_unix_nano=_nanos(m.timestamp), name=m.kind,
                               attributes=_attributes({"mcp.seq": m.seq, "mcp.direction": m.direction,
                                                       "mcp.method.name": m.method_name}))
                    for m in entries],
            status=Status(code=_ERROR if errored else Status.StatusCode.STATUS_CODE_UNSET)))
    return spans


def to_request(operations: Iterable[Operation], messages: Sequence[TraceMessage]) -> ExportTraceServiceRequest:
    by_operation: dict[str, list[TraceMessage]] = {}
    for entry in messages:
        by_operation.setdefault(entry.operation_id, []).append(entry)
    spans = [span for op in operations for span in operation_spans(op, by_operation.get(op.id, []))]
    resource = Resource(attributes=_attributes({"service.name": "mrtr-studio", "service.version": __version__}))
    scope = InstrumentationScope(name="mrtr-studio", version=__version__)
    return ExportTraceServiceRequest(resource_spans=[ResourceSpans(
        resource=resource, scope_spans=[ScopeSpans(scope=scope, spans=spans)])])


def _ids(value: Any, convert: Any) -> Any:
    if isinstance(value, dict):
        return {k: convert(v) if k in _ID_FIELDS and isinstance(v, str) else _ids(v, convert) for k, v in value.items()}
    if isinstance(value, list):
        return [_ids(v, convert) for v in value]
    return value


def to_otlp_json(request: ExportTraceServiceRequest) -> dict[str, Any]:
    """OTLP/JSON: protobuf's JSON mapping with hex ids and integer enums."""
    mapped = json_format.MessageToDict(request, use_integers_for_enums=True)
    return dict(_ids(mapped, lambda v: base64.b64decode(v).hex()))


def from_otlp_json(document: Any) -> ExportTraceServiceRequest:
    """Parse OTLP/JSON (hex ids) back into the protobuf message; ValueError when it is not one."""
    try:
        converted = _ids(document, lambda v: base64.b64encode(bytes.fromhex(v)).decode())
        return json_format.ParseDict(converted, ExportTraceServiceRequest())
    except (json_format.ParseError, ValueError, TypeError) as exc:
        raise ValueError(f"not OTLP/JSON trace data: {exc}") from exc
