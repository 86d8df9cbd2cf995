"""`--otlp-endpoint URL` for `serve`, `proxy` and `wrap`: live spans of the handled traffic (proxy/live_spans.py).

The OpenTelemetry SDK is imported only when the flag is given, so a plain `serve` starts as fast as before.
"""

import argparse
from collections.abc import Callable
from typing import Any

Sink = Callable[[str, bytes | str, int, dict[str, Any]], None]


def add_otlp_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--otlp-endpoint", metavar="URL",
                        help="send a span per JSON-RPC request over OTLP/HTTP to this collector URL "
                             "(e.g. http://127.0.0.1:4318/v1/traces); a request's _meta.traceparent is its parent")


def live_spans_of(args: argparse.Namespace, service: str) -> Any:
    """The LiveSpans for `--otlp-endpoint`, or None; ValueError naming the flag for a bad URL."""
    endpoint = getattr(args, "otlp_endpoint", None)
    if not endpoint:
        return None
    from ..proxy.live_spans import LiveSpans, checked_endpoint

    checked_endpoint(endpoint)
    return LiveSpans(endpoint, service)


def tee_sink(sink: Sink, spans: Any) -> Sink:
    """The proxy's recorder sink, also feeding the live spans (the body is parsed once more, in the relay:
    only with --otlp-endpoint)."""
    if spans is None:
        return sink

    def both(direction: str, raw: bytes | str, exchange: int, meta: dict[str, Any]) -> None:
        sink(direction, raw, exchange, meta)
        spans.raw(direction, raw, exchange, meta)
    return both
