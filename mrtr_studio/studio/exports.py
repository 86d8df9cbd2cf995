"""A flow written out for people: one operation as an HTML page or Markdown (with its Mermaid
diagram), written 0600 because it holds the flow's traffic. The window's Export menu and any script
call the same function, so the files are the same whoever asks. A whole trace goes out as HAR or
OTLP/JSON (`export_trace`), as `mrtr-studio trace export` writes them."""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..trace import TraceStore, html_export
from ..trace.mermaid import to_mermaid
from ..trace.model import Operation, TraceMessage
from ..trace.private_files import write_private
from ..trace.redaction import Redaction

FlowFormat = Literal["html", "md"]


def flow_document(store: TraceStore, operation_id: str, kind: FlowFormat) -> str:
    return flow_text(store.operation(operation_id), store.messages_of(operation_id), kind)


def flow_text(operation: Operation, messages: list[TraceMessage], kind: FlowFormat) -> str:
    """One flow's page from its operation and messages (the store's, or a redacted copy of them)."""
    section = html_export.Section(f"{operation.method} {operation.target}", operation, messages)
    title = f"MRTR flow: {operation.method} {operation.target}"
    if kind == "md":
        return html_export.markdown(title, [section],
                                    mermaid={operation.id: to_mermaid(operation, messages, timings=True)})
    return html_export.page(title, [section])


def export_flow(store: TraceStore, operation_id: str, path: str | Path) -> Path:
    """Write one flow to `path`: Markdown for a `.md` path, else an HTML page. OSError when it cannot."""
    kind: FlowFormat = "md" if str(path).endswith(".md") else "html"
    return write_private(path, flow_document(store, operation_id, kind))


TraceFormat = Literal["har", "otlp"]


@dataclass(frozen=True)
class TraceExport:
    """What a whole-trace export wrote, and what it could not hold (told to the person, not hidden)."""

    path: Path
    note: str


def export_trace(store: TraceStore, kind: TraceFormat, path: str | Path) -> TraceExport:
    """The whole trace as HAR 1.2 (its HTTP exchanges, credentials masked) or OTLP/JSON (one span per
    operation and round), written 0600 like every file holding traffic. OSError when it cannot."""
    text, note = trace_text(list(store.operations), list(store.messages), kind)
    return TraceExport(write_private(path, text), note)


def trace_text(operations: list[Operation], messages: list[TraceMessage], kind: TraceFormat,
               redaction: Redaction | None = None) -> tuple[str, str]:
    """The whole-trace document and its note (what it holds, what it left out)."""
    if kind == "har":
        from ..trace.har import to_har

        har = to_har(operations, messages, redaction)
        text = json.dumps(har.document, ensure_ascii=False, indent=1)
        note = f"{har.entries} HTTP exchange(s)" + (f"; {har.skipped} message(s) not sent over HTTP left out"
                                                     if har.skipped else "")
    else:
        from ..trace.otlp import otlp_text

        text, spans = otlp_text(operations, messages)
        note = f"{spans} span(s)"
    return text + "\n", note
