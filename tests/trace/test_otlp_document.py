"""The OTLP/JSON file is written directly, not through protobuf objects: these tests hold it to the
official `opentelemetry-proto` message and to protobuf's own JSON mapping of that message."""

import json
import sys
from pathlib import Path

from mrtr_studio.trace.model import Finding
from mrtr_studio.trace.otlp import from_otlp_json, otlp_document, otlp_text, to_otlp_json
from mrtr_studio.trace.store import TraceStore

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from synthetic_trace import synthetic_trace


def _trace():
    operations, messages = synthetic_trace(3)
    operations[1].outcome = "error"
    operations[1].problem = "-32602 Invalid requestState"
    messages[1].findings = [Finding(severity="warning", rule="state-size", message="big")]
    store = TraceStore()
    store.load(operations, messages)  # links each response to its request, as a recorded trace has them
    return store.operations, store.messages


def test_the_document_is_what_protobuf_maps_its_own_message_to():
    operations, messages = _trace()
    document = otlp_document(operations, messages)
    # parse into the official message, map it back with json_format: the same JSON, key for key
    assert to_otlp_json(from_otlp_json(document)) == document


def test_spans_per_operation_and_round_with_their_attributes():
    operations, messages = _trace()
    request = from_otlp_json(otlp_document(operations, messages))
    spans = request.resource_spans[0].scope_spans[0].spans
    assert len(spans) == 3 * 3  # a root and two rounds per operation
    roots = [s for s in spans if not s.parent_span_id]
    assert [s.status.code for s in roots] == [1, 2, 1]  # OK, ERROR, OK
    assert roots[1].status.message == "-32602 Invalid requestState"
    first_round = next(s for s in spans if s.parent_span_id == roots[0].span_id)
    attributes = {a.key: a.value for a in first_round.attributes}
    assert attributes["mcp.round"].int_value == 1
    assert attributes["mcp.result_type"].string_value == "input_required"
    assert [v.string_value for v in attributes["mcp.findings"].array_value.values] == ["warning: state-size"]
    assert len(first_round.events) == 2
    assert {s.trace_id for s in spans if s.trace_id == roots[0].trace_id} == {roots[0].trace_id}


def test_the_text_is_json_and_counts_its_spans():
    operations, messages = _trace()
    text, spans = otlp_text(operations, messages)
    assert spans == 9
    assert json.loads(text) == otlp_document(operations, messages)


def test_the_enum_numbers_written_are_the_official_ones() -> None:
    from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

    from mrtr_studio.trace import otlp

    assert (otlp._CLIENT, otlp._OK, otlp._ERROR) == (Span.SpanKind.SPAN_KIND_CLIENT, Status.StatusCode.STATUS_CODE_OK,
                                                     Status.StatusCode.STATUS_CODE_ERROR)
