"""What an export or a copy will hold under a redaction profile, computed before anything is saved:
the document (every byte the file or the clipboard gets), what each rule masked, and a bounded
preview of it — the window's preview dialog shows these, then saves or copies exactly `text`.

Qt-free and without I/O (saving is `save`), so the dialog can compute it off the GUI thread from a
snapshot of the store's lists, and a test can check the same text the file gets.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .. import defaults
from ..trace.copy_as import STYLES, Style, copy_as
from ..trace.model import Operation, TraceMessage
from ..trace.private_files import write_private
from ..trace.redaction import MASK
from ..trace.redaction_profiles import RedactionProfile, Tally, redact_trace
from .exports import TraceFormat, flow_text, trace_text

Kind = Literal["html", "md", "mermaid", "png", "svg", "har", "otlp", "curl", "httpie", "httpx", "fetch", "call"]
FLOW_KINDS: tuple[str, ...] = ("html", "md", "mermaid", "png", "svg")  # png, svg: studio/picture_export.py
TRACE_KINDS: tuple[TraceFormat, ...] = ("har", "otlp")
LABELS = {"html": "HTML page", "md": "Markdown", "mermaid": "Mermaid", "png": "PNG image", "svg": "SVG image",
          "har": "HAR", "otlp": "OTLP/JSON",
          "curl": "curl", "httpie": "HTTPie", "httpx": "Python httpx", "fetch": "TypeScript fetch",
          "call": "mrtr-studio call"}


@dataclass(frozen=True)
class ExportRequest:
    """What is asked for: a flow (operation_id), the whole trace, or one message copied (seq)."""

    kind: Kind
    operation_id: str | None = None
    seq: int | None = None

    @property
    def is_copy(self) -> bool:
        return self.kind in STYLES


@dataclass(frozen=True)
class PreparedExport:
    request: ExportRequest
    profile: RedactionProfile
    text: str
    tally: Tally
    note: str = ""

    def preview(self, limit: int = defaults.EXPORT_PREVIEW_CHARS) -> str:
        """The first `limit` characters, and how much more the file holds."""
        if len(self.text) <= limit:
            return self.text
        return self.text[:limit] + f"\n… {len(self.text) - limit:,} more characters, not shown here\n"

    @property
    def masks(self) -> int:
        return self.text.count(MASK)

    def payload(self) -> str | bytes:
        """What the file gets (a picture's is its bytes: studio/picture_export.py)."""
        return self.text


class PrepareError(ValueError):
    """The export cannot be made (an empty trace, a message that cannot be copied): the reason."""


def kept(operations: list[Operation], messages: list[TraceMessage], request: ExportRequest,
          ) -> tuple[list[Operation], list[TraceMessage]]:
    if request.is_copy:
        entry = next((m for m in messages if m.seq == request.seq), None)
        if entry is None:
            raise PrepareError("Select a request in the log or the diagram to copy it.")
        return [op for op in operations if op.id == entry.operation_id], [entry]
    if request.kind in FLOW_KINDS:
        if not any(op.id == request.operation_id for op in operations):
            raise PrepareError("Run or select a flow to export first.")
        return ([op for op in operations if op.id == request.operation_id],
                [m for m in messages if m.operation_id == request.operation_id])
    if not operations:
        raise PrepareError("The trace is empty: run or open a flow before exporting it.")
    return operations, messages


def prepare(operations: list[Operation], messages: list[TraceMessage], request: ExportRequest,
            profile: RedactionProfile) -> PreparedExport:
    """The document `request` names with `profile` applied (PrepareError with the reason when it cannot
    be made). `operations` and `messages` are a snapshot: they are read, never changed."""
    chosen_ops, chosen = kept(operations, messages, request)
    redacted = redact_trace(chosen_ops, chosen, profile)
    kind = request.kind
    if kind == "png" or kind == "svg":
        raise PrepareError("A picture is drawn, not written: studio/picture_export.py lays it out.")
    if request.is_copy:
        from ..trace.copy_as import CopyError

        style: Style = next(s for s in STYLES if s == kind)
        try:
            text = copy_as(redacted.messages[0], style, redacted.operations[0] if redacted.operations else None)
        except CopyError as exc:
            raise PrepareError(f"Cannot copy message {request.seq} as {style}: {exc}") from None
        return PreparedExport(request, profile, text, redacted.tally)
    if kind == "mermaid":
        from ..trace.mermaid import to_mermaid

        text = to_mermaid(redacted.operations[0], redacted.messages, timings=True)
        return PreparedExport(request, profile, text if text.endswith("\n") else text + "\n", redacted.tally)
    if kind == "html" or kind == "md":
        return PreparedExport(request, profile, flow_text(redacted.operations[0], redacted.messages, kind),
                              redacted.tally)
    trace_kind: TraceFormat = "har" if kind == "har" else "otlp"
    text, note = trace_text(redacted.operations, redacted.messages, trace_kind, profile.headers_redaction)
    return PreparedExport(request, profile, text, redacted.tally, note)


def save(prepared: PreparedExport, path: str | Path) -> Path:
    """Write exactly what was previewed, 0600 (OSError when it cannot)."""
    return write_private(path, prepared.payload())
