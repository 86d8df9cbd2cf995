"""The window's live OpenTelemetry spans (`mrtr-studio --otlp-endpoint URL`): a CLIENT span per JSON-RPC
request the studio's client sends, from the request to its response, exported over OTLP/HTTP as
`serve|proxy|wrap --otlp-endpoint` export theirs (proxy/live_spans.py, the same LiveSpans).

Why from the store and not from a transport's tap: the store is where every message the window sends
is recorded once (trace/recorder.py), whatever transport carried it, and its operation id keeps two
connections' equal JSON-RPC ids apart. Each request carries the `_meta.traceparent` the client put on
it (protocol/trace_context.py), so the window's span, the server's span (a child of the same round
span) and `trace export --otlp` of the recording share one trace id. Loaded traces are not sent: they
are history, not live traffic. Authorization exchanges are not JSON-RPC and are left out.
"""

from collections.abc import Callable
from typing import Any

from ..trace.store import StoreEvent, TraceStore


class WindowSpans:
    """Feeds a LiveSpans from a store's live messages until closed."""

    def __init__(self, store: TraceStore, endpoint: str, service: str = "mrtr-studio") -> None:
        from opentelemetry.trace import SpanKind  # only with --otlp-endpoint: a plain window starts as fast

        from ..proxy.live_spans import LiveSpans

        self.spans = LiveSpans(endpoint, service, kind=SpanKind.CLIENT)
        self._unsubscribe: Callable[[], None] | None = store.subscribe(self._on_event, live=True)

    def _on_event(self, event: StoreEvent) -> None:
        entry = event.message
        if event.kind != "message_added" or entry is None or event.loaded or entry.kind == "auth":
            return
        message: Any = entry.message
        self.spans.message(entry.direction, message, entry.operation_id)

    def close(self) -> None:
        """Stop listening, end what is open and flush (bounded by the exporter's timeout)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
            self.spans.close()
