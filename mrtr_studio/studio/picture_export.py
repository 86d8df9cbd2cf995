"""The diagram's PNG and SVG exports under a redaction profile: the profile applied to a copy of the
operation's messages (never the store's), and that copy laid out by the diagram's own layout
(trace/diagram_layout.py, and trace/waterfall.py when the diagram is drawn to scale). A label carries
argument values and results, so a picture can only be masked before it is drawn: the window draws
this layout offscreen (ui/diagram/published.py) and shows it in the redaction preview.

Qt-free and without I/O, so the preview computes it off the GUI thread from a snapshot of the
store's lists (laying out a big operation is the slow part), and a test can check it alone.
"""

from dataclasses import dataclass

from ..trace.diagram_layout import LANES, DiagramLayout, LaneOf
from ..trace.model import Operation, TraceMessage
from ..trace.redaction_profiles import RedactionProfile, Tally, redact_trace
from ..trace.waterfall import Waterfall, to_time_scale
from .export_preview import ExportRequest, PreparedExport, PrepareError, kept


@dataclass(frozen=True)
class DiagramShape:
    """How the window's diagram is drawn, so the picture matches it: its lanes, and whether to scale."""

    lane_of: LaneOf | None = None
    lanes: tuple[str, ...] = LANES
    to_scale: bool = False


@dataclass(frozen=True)
class LaidOut:
    """The redacted copy of one operation, laid out: what the picture is drawn from."""

    request: ExportRequest
    profile: RedactionProfile
    operation: Operation
    messages: list[TraceMessage]
    layout: DiagramLayout
    tally: Tally
    waterfall: Waterfall | None = None


@dataclass(frozen=True)
class PreparedPicture(PreparedExport):
    """A drawn picture: `data` is every byte the file gets (the PNG, or the SVG document)."""

    data: bytes = b""

    def payload(self) -> bytes:
        return self.data

    @property
    def masks(self) -> int:
        """What the profile masked (a picture's labels may shorten a mask out of sight: counted before)."""
        return sum(self.tally.counts.values())


def lay_out(operations: list[Operation], messages: list[TraceMessage], request: ExportRequest,
            profile: RedactionProfile, shape: DiagramShape = DiagramShape()) -> LaidOut:
    """The operation `request` names, redacted by `profile` and laid out (PrepareError with the reason
    when there is none). `operations` and `messages` are a snapshot: read, never changed."""
    if request.kind not in ("png", "svg"):
        raise PrepareError(f"{request.kind} is not a picture")
    chosen_ops, chosen = kept(operations, messages, request)
    redacted = redact_trace(chosen_ops, chosen, profile)
    operation = redacted.operations[0]
    layout = DiagramLayout(operation, shape.lane_of, shape.lanes)
    for entry in redacted.messages:
        layout.add(entry)
    waterfall = to_time_scale(layout, redacted.messages) if shape.to_scale else None
    return LaidOut(request, profile, operation, redacted.messages, layout, redacted.tally, waterfall)
