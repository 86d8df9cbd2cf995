"""The sequence diagram to scale: a waterfall whose vertical axis is time, in milliseconds.

`to_time_scale(layout, messages)` moves the rows of a DiagramLayout (arrows, activations, round
headings) to where their messages happened in time, then says where the time went:

- `user`: the person answering (from the input_required reaching the client to the retry leaving it;
  the operation's recorded answer time when there is one), on the User lane;
- `server`: the server's own time for a request, when the response said so (`transport.server_ms`,
  recorded from its `Server-Timing` header), on the lane that served it;
- `network`: the rest of that round trip, split before and after the server's time;
- `round_trip`: network and server together, when the server did not say how long it took.

Each interval between two rows is drawn to scale (`px_per_ms`), but never shorter than the plain
layout's row height, so labels stay readable: a burst of fast messages stretches the axis locally,
and the ticks (`Tick`) follow the same piecewise mapping, so the axis stays true where it is labelled.
Plain data, no Qt: the diagram view (and so its PNG and SVG exports) and the tests read the same result.
"""

import math
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Literal

from .diagram_layout import ROW, TOP, Arrow, DiagramLayout
from .model import TraceMessage

SpanKind = Literal["user", "network", "server", "round_trip"]
#: How the view and the exports name each kind (the meaning is in text, never colour alone).
SPAN_LABELS: dict[str, str] = {"user": "user answering", "network": "network", "server": "server",
                               "round_trip": "network + server"}
SPAN_COLOURS: dict[str, str] = {"user": "#e8a33d", "network": "#7a9cc6", "server": "#3c8d5a",
                                "round_trip": "#9a8fb8"}
_STEPS = (1, 2, 5)
MIN_TICK_GAP = 36.0


@dataclass(frozen=True)
class Span:
    kind: SpanKind
    lane: str
    y0: float
    y1: float
    ms: float
    round: int

    @property
    def label(self) -> str:
        return f"{SPAN_LABELS[self.kind]} {self.ms:.1f} ms"


@dataclass(frozen=True)
class Tick:
    y: float
    ms: float

    @property
    def label(self) -> str:
        return f"{self.ms / 1000:.2f} s" if self.ms >= 1000 else f"{self.ms:g} ms"


@dataclass
class Waterfall:
    px_per_ms: float
    total_ms: float
    spans: list[Span] = field(default_factory=list)
    ticks: list[Tick] = field(default_factory=list)


def _times(layout: DiagramLayout, by_seq: dict[int, TraceMessage]) -> list[float]:
    """Each arrow's moment: its message's timestamp; the person's arrows take their neighbour's
    (an ask: the answer just received; an answer or the first `run`: the request about to leave)."""
    own = [by_seq[a.seq].timestamp if a.seq is not None and a.seq in by_seq else None for a in layout.arrows]
    known = [t for t in own if t is not None]
    if not known:
        return [0.0] * len(own)
    out: list[float] = []
    for index, (arrow, moment) in enumerate(zip(layout.arrows, own, strict=True)):
        if moment is None:
            after = next((t for t in own[index + 1:] if t is not None), None)
            before = out[-1] if out else known[0]
            moment = before if arrow.label.startswith("ask") or after is None else after
        out.append(max(moment, out[-1]) if out else moment)
    return out


def _scale(layout: DiagramLayout, total_ms: float) -> float:
    """About one and a half times the plain diagram's height for the whole operation."""
    if total_ms <= 0:
        return 1.0
    return min(40.0, max(0.005, len(layout.arrows) * ROW * 1.5 / total_ms))


def to_time_scale(layout: DiagramLayout, messages: list[TraceMessage], px_per_ms: float | None = None) -> Waterfall:
    """Move `layout`'s rows to their time (in place) and measure the spans; see the module docstring."""
    by_seq = {m.seq: m for m in messages}
    times = _times(layout, by_seq)
    start = times[0] if times else 0.0
    total_ms = (times[-1] - start) * 1000 if times else 0.0
    scale = px_per_ms or _scale(layout, total_ms)
    moved: dict[float, float] = {}
    headings = sorted(layout.separators, key=lambda s: s.y)
    heading = 0
    anchors: list[tuple[float, float]] = []
    previous, before = TOP - ROW, start
    for arrow, moment in zip(layout.arrows, times, strict=True):
        pending = []
        while heading < len(headings) and headings[heading].y < arrow.y:
            pending.append(headings[heading])
            heading += 1
        room = ROW + (ROW * 0.3 if pending else 0.0)
        y = TOP if not anchors else previous + max(room, (moment - before) * 1000 * scale)
        before = moment
        for separator in pending:
            separator.y = y - ROW * 0.45
        moved[arrow.y] = y
        arrow.y = y
        previous = y
        anchors.append(((moment - start) * 1000, y))
    for separator in headings[heading:]:
        separator.y = previous + ROW * 0.55
    for activation in layout.activations:
        activation.y0 = moved.get(activation.y0, activation.y0)
        if activation.y1 is not None:
            activation.y1 = moved.get(activation.y1, activation.y1)
    layout.set_bottom(previous + ROW)
    waterfall = Waterfall(scale, total_ms)
    waterfall.spans = _user_spans(layout, times) + _wire_spans(layout, by_seq)
    waterfall.ticks = _ticks(anchors, total_ms)
    return waterfall


def _user_spans(layout: DiagramLayout, times: list[float]) -> list[Span]:
    """From each "ask" to its "answered": the recorded answer time, else the time between the two."""
    spans = []
    arrows = layout.arrows
    for index, arrow in enumerate(arrows):
        if arrow.seq is None and arrow.label.startswith("ask") and index + 1 < len(arrows):
            answer = arrows[index + 1]
            seconds = layout.operation.answer_seconds.get(answer.round) if layout.operation else None
            ms = seconds * 1000 if seconds is not None else (times[index + 1] - times[index]) * 1000
            spans.append(Span("user", "User", arrow.y, answer.y, round(ms, 3), answer.round))
    return spans


def _wire_spans(layout: DiagramLayout, by_seq: dict[int, TraceMessage]) -> list[Span]:
    arrow_of: dict[int, Arrow] = {a.seq: a for a in layout.arrows if a.seq is not None}
    spans: list[Span] = []
    for arrow in layout.arrows:
        entry = by_seq.get(arrow.seq) if arrow.seq is not None else None
        request = entry.reply_to if entry is not None else None
        if entry is None or request is None or entry.direction != "server->client" or request.seq not in arrow_of:
            continue
        sent = arrow_of[request.seq]
        told = entry.transport.get("duration_ms")
        rtt = float(told) if isinstance(told, int | float) else (entry.timestamp - request.timestamp) * 1000
        server_ms = entry.transport.get("server_ms")
        lane, y0, y1 = sent.dst, sent.y, arrow.y
        if isinstance(server_ms, int | float) and 0 <= server_ms <= rtt and rtt > 0:
            network = rtt - float(server_ms)
            edge = (y1 - y0) * (network / rtt) / 2
            spans += [Span("network", lane, y0, y0 + edge, round(network / 2, 3), arrow.round),
                      Span("server", lane, y0 + edge, y1 - edge, round(float(server_ms), 3), arrow.round),
                      Span("network", lane, y1 - edge, y1, round(network / 2, 3), arrow.round)]
        else:
            spans.append(Span("round_trip", lane, y0, y1, round(max(rtt, 0.0), 3), arrow.round))
    return spans


def _ticks(anchors: list[tuple[float, float]], total_ms: float) -> list[Tick]:
    """Round times on the axis, placed through the same (time -> y) mapping as the rows."""
    if len(anchors) < 2 or total_ms <= 0:
        return [Tick(anchors[0][1], 0.0)] if anchors else []
    height = anchors[-1][1] - anchors[0][1]
    wanted = max(total_ms / max(height / MIN_TICK_GAP, 1.0), 0.001)
    magnitude = 10.0 ** math.floor(math.log10(wanted))
    step = next((s * magnitude for s in _STEPS if s * magnitude >= wanted), 10 * magnitude)
    ticks: list[Tick] = []
    times = [t for t, _ in anchors]
    moment = 0.0
    while moment <= total_ms + 1e-9:
        index = min(max(bisect_right(times, moment) - 1, 0), len(anchors) - 2)
        (t0, y0), (t1, y1) = anchors[index], anchors[index + 1]
        y = y0 if t1 == t0 else y0 + (y1 - y0) * (moment - t0) / (t1 - t0)
        if not ticks or y - ticks[-1].y >= MIN_TICK_GAP:
            ticks.append(Tick(round(y, 2), round(moment, 6)))
        moment += step
    return ticks
