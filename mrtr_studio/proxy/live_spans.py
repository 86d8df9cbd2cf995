"""Live OpenTelemetry spans of the traffic a server, proxy or wrapper handles (`serve|proxy|wrap
--otlp-endpoint URL`), or the window sends (`mrtr-studio --otlp-endpoint URL`, studio/live_spans.py).

One SERVER span per JSON-RPC request, from the request to its response, sent over OTLP/HTTP with the
opentelemetry-sdk (a batch processor: a slow or absent collector never delays a request; what does not
fit its queue is dropped by the SDK and counted by it). A request whose `_meta.traceparent` names a
trace (the studio's client sends one per round, protocol/trace_context.py) gets its span as a child
of that round's span, so `trace export --otlp` of the client's recording and the server's live spans
make one trace. Attributes as in trace/otlp.py: `mcp.method.name`, `mcp.tool.name`, `mcp.result_type`,
`rpc.jsonrpc.error_code`; the JSON-RPC id as `jsonrpc.request.id`.

At most MAX_OPEN requests wait for their response; past that the oldest span ends, marked unanswered.
Every body is parsed with the usual bounds (protocol/wire_json.py).
"""

from collections import OrderedDict
from typing import Any
from urllib.parse import urlsplit

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from .. import __version__
from ..protocol import wire_json
from ..protocol.roundtrip import result_type_of
from ..protocol.versions import NAME_FIELDS

MAX_OPEN = 10_000
EXPORT_TIMEOUT = 5.0
_PROPAGATOR = TraceContextTextMapPropagator()


def checked_endpoint(url: str) -> str:
    """The collector's OTLP/HTTP traces URL (`http://127.0.0.1:4318/v1/traces`); ValueError otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"--otlp-endpoint must be an http(s) URL like http://127.0.0.1:4318/v1/traces, not {url!r}")
    return url


class LiveSpans:
    """A tap listener (WireEvent) or proxy sink turning requests and responses into spans."""

    def __init__(self, endpoint: str, service: str, kind: SpanKind = SpanKind.SERVER) -> None:
        #: SERVER for what a server or a proxy in front of one handles; CLIENT for what the window sends.
        self.kind = kind
        resource = Resource.create({"service.name": service, "service.version": __version__})
        self.provider = TracerProvider(resource=resource)
        self.provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(
            endpoint=checked_endpoint(endpoint), timeout=EXPORT_TIMEOUT)))
        self.tracer = self.provider.get_tracer("mrtr-studio")
        self._open: OrderedDict[tuple[Any, Any], Any] = OrderedDict()

    def __call__(self, event: Any) -> None:
        """A transport tap's WireEvent (the server's own tap)."""
        self.message(event.direction, event.message, event.meta.get("exchange"))

    def raw(self, direction: str, raw: bytes | str, exchange: Any, meta: dict[str, Any]) -> None:
        """A proxy's relayed body (its recorder sink's arguments)."""
        if "error" in meta:
            return
        try:
            message = wire_json.loads(raw)
        except wire_json.WireJsonError:
            return
        for item in message if isinstance(message, list) else [message]:
            self.message(direction, item, exchange)

    def message(self, direction: str, message: Any, exchange: Any) -> None:
        if not isinstance(message, dict) or "id" not in message or not isinstance(message["id"], str | int):
            return
        key = (exchange, message["id"])
        if direction == "client->server" and isinstance(message.get("method"), str):
            self._start(key, message)
        elif direction == "server->client" and ("result" in message or "error" in message):
            span = self._open.pop(key, None)
            if span is not None:
                self._end(span, message)

    def _start(self, key: tuple[Any, Any], message: dict[str, Any]) -> None:
        method = message["method"]
        found = message.get("params")
        params: dict[str, Any] = found if isinstance(found, dict) else {}
        meta: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
        carrier = {"traceparent": meta["traceparent"]} if isinstance(meta.get("traceparent"), str) else {}
        name = params.get(NAME_FIELDS.get(method, "name"))
        attributes = {"mcp.method.name": method, "jsonrpc.request.id": str(message["id"])}
        if method == "tools/call" and isinstance(name, str):
            attributes["mcp.tool.name"] = name
        span = self.tracer.start_span(f"{method} {name}" if isinstance(name, str) else method, kind=self.kind,
                                      context=_PROPAGATOR.extract(carrier), attributes=attributes)
        old = self._open.pop(key, None)
        if old is not None:
            old.end()
        self._open[key] = span
        while len(self._open) > MAX_OPEN:
            _, oldest = self._open.popitem(last=False)
            oldest.set_status(Status(StatusCode.ERROR, "no response seen"))
            oldest.end()

    def _end(self, span: Any, message: dict[str, Any]) -> None:
        error = message.get("error")
        if isinstance(error, dict):
            code = error.get("code")
            if isinstance(code, int) and not isinstance(code, bool):
                span.set_attribute("rpc.jsonrpc.error_code", code)
            span.set_status(Status(StatusCode.ERROR, str(error.get("message", ""))[:200]))
        else:
            result = message.get("result")
            kind = result_type_of(result) if isinstance(result, dict) else None
            span.set_attribute("mcp.result_type", kind or "complete")
        span.end()

    def close(self) -> None:
        """End what is still open and flush (bounded by the exporter's timeout)."""
        while self._open:
            _, span = self._open.popitem(last=False)
            span.set_status(Status(StatusCode.ERROR, "no response seen"))
            span.end()
        self.provider.shutdown()
