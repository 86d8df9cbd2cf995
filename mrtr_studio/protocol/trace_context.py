"""W3C Trace Context for the studio's client: a `traceparent` in each request's `_meta`.

One trace id per operation, a fresh span id per round (and per task poll), so a server that traces
(OpenTelemetry's MCP instrumentation reads `params._meta.traceparent`) puts its spans under the
studio's, and `trace export --otlp` (trace/otlp.py) reads the same ids back from the recorded
requests: the studio's spans and the server's meet in one trace.

The trace id is derived from the operation's id and start time, so a task followed again after a
reopened trace (ClientSession.follow) keeps the operation's trace.
"""

import hashlib
import os
import re
from typing import Any

#: `version-traceid-parentid-flags`, sampled (W3C Trace Context level 1).
_TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$")


def trace_id_of(operation_id: str, started: float) -> str:
    """The trace id of one operation (its id and start time)."""
    digest = hashlib.sha256(f"mrtr-studio trace {operation_id} {started!r}".encode()).hexdigest()[:32]
    return digest if digest.strip("0") else "1" * 32  # all zeros is invalid


def new_span_id() -> str:
    span = os.urandom(8).hex()
    return span if span.strip("0") else "1" * 16


def stamp(message: dict[str, Any], trace_id: str) -> None:
    """Put a traceparent with a new span id into a modern request's `_meta` (legacy requests carry no
    `_meta`; they are left as they are)."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    if isinstance(meta, dict):
        meta["traceparent"] = f"00-{trace_id}-{new_span_id()}-01"


def parse_traceparent(value: Any) -> tuple[str, str] | None:
    """(trace id, span id) of a well-formed traceparent, else None."""
    found = _TRACEPARENT.match(value) if isinstance(value, str) else None
    if found is None or not found.group(1).strip("0") or not found.group(2).strip("0"):
        return None
    return found.group(1), found.group(2)
