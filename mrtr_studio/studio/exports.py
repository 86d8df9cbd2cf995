"""A flow written out for people: one operation as an HTML page or Markdown (with its Mermaid
diagram), written 0600 because it holds the flow's traffic. The window's Export menu and any script
call the same function, so the files are the same whoever asks."""

from pathlib import Path
from typing import Literal

from ..trace import TraceStore, html_export
from ..trace.mermaid import to_mermaid
from ..trace.private_files import write_private

FlowFormat = Literal["html", "md"]


def flow_document(store: TraceStore, operation_id: str, kind: FlowFormat) -> str:
    operation = store.operation(operation_id)
    messages = store.messages_of(operation_id)
    section = html_export.Section(f"{operation.method} {operation.target}", operation, messages)
    title = f"MRTR flow: {operation.method} {operation.target}"
    if kind == "md":
        return html_export.markdown(title, [section],
                                    mermaid={operation_id: to_mermaid(operation, messages, timings=True)})
    return html_export.page(title, [section])


def export_flow(store: TraceStore, operation_id: str, path: str | Path) -> Path:
    """Write one flow to `path`: Markdown for a `.md` path, else an HTML page. OSError when it cannot."""
    kind: FlowFormat = "md" if str(path).endswith(".md") else "html"
    return write_private(path, flow_document(store, operation_id, kind))
