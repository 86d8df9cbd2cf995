"""The sequence diagram of one operation as plain data: which arrow at which y, its label and style.

Qt-free on purpose: the Qt view only paints what this computes, tests check the layout without a
display, and an HTML export can reuse it. The layout is incremental: `add(message)` appends the
rows one message needs and reports what changed, so a live view never rebuilds its scene.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..protocol.drafts import draft_label
from .auth_arrows import auth_failed, auth_label, auth_party, auth_summary
from .brief_json import brief, brief_members, clip
from .model import Operation, TraceMessage, auth_exchange, params_of, result_of

LANES = ("User", "Client", "Server")
#: Fixed lane positions for exports that have no view to fill (the HTML page's SVG).
LANE_X = {"User": 90.0, "Client": 330.0, "Server": 610.0}
HEADER = 56.0  # the title line and the lane boxes above the first row
TOP = 80.0  # y of the first row, below the lane headers
ROW = 50.0  # vertical distance between two rows: a label above the line, up to two summary lines below
MIN_GAP = 170.0  # the narrowest distance between two lanes at which a short label still reads whole
COMPACT_GAP = 130.0  # the same with four lanes or more (still wider than a lane's header box)

#: Names the server-side lane of a message (the Cluster diagram: the node that answered); None: "Server".
LaneOf = Callable[[TraceMessage], str | None]


@dataclass(frozen=True)
class LaneGeometry:
    """Where each lane sits for one scene width: lanes spread evenly, half a gap of margin at each end."""

    x: dict[str, float]
    width: float
    gap: float

    def slot(self, src: str, dst: str) -> tuple[float, float]:
        """The horizontal room an arrow's text may use: the whole row, inside the scene.

        Each row holds exactly one arrow, so a label centred on its arrow may reach past its two lanes
        (it is shifted, never cut, when it would leave the scene); only what is wider than the row elides.
        """
        del src, dst  # every arrow owns its whole row
        return 4.0, self.width - 4.0


def min_gap(lane_count: int) -> float:
    """Lanes may sit closer when there are many (a cluster's nodes): labels use their whole row anyway."""
    return MIN_GAP if lane_count <= 3 else COMPACT_GAP


def natural_width(lane_count: int) -> float:
    """The narrowest scene in which `lane_count` lanes keep their minimum gap."""
    count = max(lane_count, 1)
    return count * min_gap(count)


def spread_lanes(lanes: list[str] | tuple[str, ...], width: float) -> LaneGeometry:
    """Spread `lanes` over `width` (never closer than their minimum gap): the diagram uses the room it has."""
    count = max(len(lanes), 1)
    width = max(width, natural_width(count))
    gap = width / count
    return LaneGeometry({lane: gap / 2 + i * gap for i, lane in enumerate(lanes)}, width, gap)


@dataclass(frozen=True)
class Style:
    """How an arrow looks; `tag` carries the meaning in text so it is never colour-only.

    `colour` reads on a light background, `dark` on a dark one (the view picks by its palette).
    """

    colour: str
    line: str  # "solid" | "dash" | "dot" | "dashdot"
    width: float
    tag: str
    dark: str = ""


STYLES: dict[str, Style] = {
    "request": Style("#1f4e79", "solid", 1.6, "→", "#8cc0f0"),
    "input_required": Style("#a05e00", "dashdot", 2.0, "‖ input_required", "#f2b05a"),
    "complete": Style("#1e7b34", "dash", 2.0, "✔ complete", "#6fd68a"),
    "error": Style("#c0392b", "solid", 2.6, "✖ error", "#ff8a7a"),
    "task": Style("#0b5c6b", "dashdot", 2.0, "◷ task", "#7fd3e0"),
    "server_request": Style("#6a3d9a", "solid", 1.6, "↳ server request", "#c9a6f0"),
    "client_response": Style("#6a3d9a", "dot", 1.6, "↲ client response", "#c9a6f0"),
    "notification": Style("#6b6b6b", "dot", 1.2, "• notification", "#b0b0b0"),
    "invalid": Style("#c0392b", "dash", 1.6, "? invalid", "#ff8a7a"),
    "interaction": Style("#2a7f8f", "dot", 1.4, "☺", "#6fcbdc"),
    "auth": Style("#8e2c6b", "dashdot", 1.4, "auth", "#f0a0d0"),
    "auth_failed": Style("#b0301f", "dashdot", 2.2, "auth ✖", "#ff8a7a"),
}


@dataclass
class Arrow:
    """One horizontal arrow; `seq` is None for the person's interactions (not on the wire)."""

    seq: int | None
    src: str
    dst: str
    y: float
    label: str
    kind: str
    round: int
    depth: int = 0  # 1 inside an open call (legacy server-initiated request)
    sublabel: str = ""
    #: A task's run of polls with one status drawn as this one arrow: how many tasks/get it stands for.
    polls: int = 0

    @property
    def style(self) -> Style:
        return STYLES.get(self.kind, STYLES["invalid"])


@dataclass
class Activation:
    """A lane busy serving a request, from y0 to y1 (None while still open)."""

    lane: str
    y0: float
    y1: float | None
    depth: int
    jsonrpc_id: Any = None


@dataclass
class Separator:
    y: float
    label: str


@dataclass
class Change:
    """What one `add` produced: new items to draw and existing ones to update."""

    added: list[Any] = field(default_factory=list)
    updated: list[Any] = field(default_factory=list)
    lanes: bool = False  # a lane was added: every x moves


def request_state_of(entry: TraceMessage) -> str | None:
    """The requestState a message carries: minted in an input_required result, echoed in a retry."""
    if entry.kind == "input_required":
        token = result_of(entry.message).get("requestState")
    elif entry.kind == "request":
        token = params_of(entry.message).get("requestState")
    else:
        return None
    return token if isinstance(token, str) else None


def _asked(message: Any) -> str:
    requests = result_of(message).get("inputRequests")
    if not isinstance(requests, dict):
        return ""
    parts = [f"{k} ({v.get('method', '?')})" if isinstance(v, dict) else str(k) for k, v in requests.items()]
    return ", ".join(parts)


def task_summary(result: dict[str, Any]) -> str | None:
    """A task's status line (a CreateTaskResult or a tasks/get result), or None when `result` is no task."""
    if not isinstance(result.get("taskId"), str) or not isinstance(result.get("status"), str):
        return None
    bits = [str(result["status"])]
    if isinstance(result.get("statusMessage"), str):
        bits.append(clip(result["statusMessage"], 80))
    asked = _asked({"result": result})
    if asked:
        bits.append("asks " + asked)
    if isinstance(result.get("error"), dict):
        bits.append(clip(f"{result['error'].get('code')} {result['error'].get('message', '')}", 80))
    return " · ".join(bits)


def message_summary(entry: TraceMessage) -> str:
    """One line saying what a message is about, for the log's summary column and arrow sublabels."""
    message = entry.message
    if entry.kind == "auth":
        return auth_summary(auth_exchange(entry))
    if entry.kind in ("task", "complete") and task_summary(result_of(message)) is not None:
        result = result_of(message)
        text = task_summary(result) or ""
        inner = result.get("result")
        if isinstance(inner, dict):
            text += " · " + next((clip(str(i.get("text", "")), 80) for i in inner.get("content") or []
                                  if isinstance(i, dict) and i.get("type") == "text"), "result")
        return text
    if entry.kind == "request" and entry.method in ("tasks/get", "tasks/cancel"):
        return f"task {str(params_of(message).get('taskId', '?'))[:12]}"
    if entry.kind in ("request", "server_request", "notification"):
        params = params_of(message)
        bits = [str(params.get("name") or params.get("uri") or "")]
        if isinstance(params.get("arguments"), dict) and params["arguments"]:
            bits.append(brief_members(params["arguments"], 120))
        if isinstance(params.get("inputResponses"), dict):
            bits.append("answers: " + ", ".join(params["inputResponses"]))
        if "requestState" in params:
            bits.append("+state")
        return " · ".join(b for b in bits if b)
    if entry.kind == "input_required":
        asked = _asked(message)
        state = " · +state" if "requestState" in result_of(message) else ""
        return ("asks " + asked if asked else "no inputs") + state
    if entry.kind == "error":
        error = message.get("error") if isinstance(message, dict) else None
        if not isinstance(error, dict):
            return "error"
        data = error.get("data")
        reason = f" ({data['reason']})" if isinstance(data, dict) and "reason" in data else ""
        return f"{error.get('code')} {error.get('message', '')}{reason}"
    if entry.kind in ("complete", "client_response"):
        result = result_of(message)
        if entry.kind == "complete" and set(result) <= {"resultType", "_meta"}:
            return "acknowledged (empty result)"
        for item in result.get("content") or []:
            if isinstance(item, dict) and item.get("type") == "text":
                return clip(str(item.get("text", "")), 120)
        return clip(", ".join(k for k in result if k != "_meta"), 120)
    return clip(brief(message), 120)


class DiagramLayout:
    """Rows of one operation's diagram, grown one message at a time."""

    def __init__(self, operation: Operation | None = None, lane_of: LaneOf | None = None,
                 lanes: tuple[str, ...] = LANES) -> None:
        self.operation = operation
        #: Lanes in drawing order; a `lane_of` naming a lane not seen yet appends it (Change.lanes says so).
        self.lanes: list[str] = list(lanes)
        self._lane_of = lane_of
        self.arrows: list[Arrow] = []
        self.activations: list[Activation] = []
        self.separators: list[Separator] = []
        self.interactions: dict[int, Arrow] = {}  # round -> the User->Client "answered" arrow
        self._y = TOP
        self._round = 0
        self._last_asked = ""
        #: Input was asked for (an input_required result, or a task's poll that saw that status) and
        #: not answered yet: only then does a new round start with the person's ask and answer.
        self._asked = False
        # (sent by the client?, id) -> request, to name responses and close activations
        self._open: dict[Any, Activation] = {}
        # A task's polls: the arrow that stands for the current run of same-status answers, and a
        # tasks/get held back until its answer says whether it extends that run or starts a new one.
        self._run: Arrow | None = None
        self._run_status: str | None = None
        self._held: TraceMessage | None = None
        #: The round of the run of auth exchanges being drawn (one "Authorization" heading per run).
        self._authorizing: int | None = None
        #: Message seq -> the seq of the arrow drawn for it, for polls folded into a run's arrow.
        self.drawn_as: dict[int, int] = {}
        if operation is not None:
            self._start(operation)

    @property
    def open_activations(self) -> list[Activation]:
        """The activations still waiting for their answer (their bars grow with the diagram)."""
        return list(self._open.values())

    @property
    def height(self) -> float:
        return self._y + ROW / 2

    def set_bottom(self, y: float) -> None:
        """Where the next row goes (the waterfall moves rows to their time, trace/waterfall.py)."""
        self._y = y

    def _row(self) -> float:
        y = self._y
        self._y += ROW
        return y

    def _start(self, operation: Operation) -> None:
        what = operation.target + (" " + _short(operation.arguments) if operation.arguments else "")
        self.arrows.append(Arrow(None, "User", "Client", self._row(), f"run {operation.method} {what}",
                                 "interaction", 0))

    def answer_label(self, round_number: int) -> str:
        seconds = self.operation.answer_seconds.get(round_number) if self.operation else None
        return "answered" + (f" in {seconds:.1f} s" if seconds is not None else "")

    def refresh_answers(self) -> list[Arrow]:
        """After operation_updated: relabel the interaction arrows whose answer time is now known."""
        changed = []
        for round_number, arrow in self.interactions.items():
            label = self.answer_label(round_number)
            if arrow.label != label:
                arrow.label = label
                changed.append(arrow)
        return changed

    def add(self, entry: TraceMessage) -> Change:
        """Draw one message. Repeated polls of a task collapse into one arrow ("polled N times")."""
        if self._is_poll(entry) and self._run is not None and self._held is None:
            self._held = entry
            return Change()
        if self._held is not None:
            held, self._held = self._held, None
            status = result_of(entry.message).get("status")
            if entry.reply_to is held and entry.kind == "complete" and status == self._run_status \
                    and self._run is not None:
                self._run.polls += 1
                if self._run.seq is not None:
                    self.drawn_as[held.seq] = self.drawn_as[entry.seq] = self._run.seq
                self._run.label = f"⟳ polled {self._run.polls} times · {status} · tasks/get · r{entry.round}"
                self._run.sublabel = message_summary(entry)
                return Change(updated=[self._run])
            change = self._draw(held)
            more = self._draw(entry)
            change.added += more.added
            change.updated += more.updated
            change.lanes = change.lanes or more.lanes
            return change
        return self._draw(entry)

    @staticmethod
    def _is_poll(entry: TraceMessage) -> bool:
        return entry.kind == "request" and entry.method == "tasks/get"

    def _draw(self, entry: TraceMessage) -> Change:
        change = Change()
        if entry.round > self._round:
            self._new_round(entry.round, change)
        if entry.kind == "auth":
            return self._draw_auth(entry, change)
        if self._authorizing is not None:
            if self._authorizing >= 1 and entry.round == self._authorizing:
                self._separator(f"Round {entry.round} · sent again, authorized", change)
            self._authorizing = None
        nested = entry.kind in ("server_request", "client_response")
        depth = 1 if nested else 0
        server = self._server_lane(entry, change)
        src, dst = ("Client", server) if entry.direction == "client->server" else (server, "Client")
        y = self._row()
        method = entry.method_name
        arrow = Arrow(entry.seq, src, dst, y, self._label(entry, method), entry.kind, entry.round, depth,
                      message_summary(entry))
        self.arrows.append(arrow)
        change.added.append(arrow)
        if entry.kind in ("request", "server_request"):
            activation = Activation(dst, y, None, depth, entry.jsonrpc_id)
            self._open[entry.seq] = activation
            self.activations.append(activation)
            change.added.append(activation)
        elif entry.kind != "notification":
            opened = self._open.pop(entry.reply_to.seq, None) if entry.reply_to is not None else None
            if opened is not None:
                opened.y1 = y
                change.updated.append(opened)
        if entry.kind == "input_required":
            self._last_asked = _asked(entry.message)
            self._asked = True
        self._track_polls(entry, method, arrow)
        return change

    def _draw_auth(self, entry: TraceMessage, change: Change) -> Change:
        """One exchange of the authorization flow: an arrow between the client and the party it talked to
        (the MCP server for its challenge and metadata, the person's browser, the authorization server)."""
        exchange = auth_exchange(entry)
        if self._authorizing is None:
            self._authorizing = entry.round
            where = "before round 1" if entry.round == 0 else f"inside round {entry.round}"
            self._separator(f"Authorization · {where}", change)
        party = auth_party(exchange)
        if party not in self.lanes:
            self.lanes.append(party)
            change.lanes = True
        src, dst = (party, "Client") if exchange.get("phase") == "challenge" or exchange.get("method") == "REDIRECT" \
            else ("Client", party)
        arrow = Arrow(entry.seq, src, dst, self._row(), auth_label(exchange),
                      "auth_failed" if auth_failed(exchange) else "auth", entry.round, 0, auth_summary(exchange))
        self.arrows.append(arrow)
        change.added.append(arrow)
        self._run = self._run_status = None
        return change

    def _separator(self, label: str, change: Change) -> None:
        separator = Separator(self._y - ROW * 0.45, label)
        self._y += ROW * 0.3
        self.separators.append(separator)
        change.added.append(separator)

    def _track_polls(self, entry: TraceMessage, method: str | None, arrow: Arrow) -> None:
        status = result_of(entry.message).get("status")
        if method == "tasks/get" and entry.kind == "complete" and isinstance(status, str):
            self._run, self._run_status = arrow, status
            arrow.polls = 1
            if status == "input_required":
                self._last_asked = _asked(entry.message)
                self._asked = True
        elif not self._is_poll(entry):
            self._run = self._run_status = None

    def _server_lane(self, entry: TraceMessage, change: Change) -> str:
        lane = (self._lane_of(entry) if self._lane_of else None) or "Server"
        if lane not in self.lanes:
            self.lanes.append(lane)
            change.lanes = True
        return lane

    def _new_round(self, round_number: int, change: Change) -> None:
        self._round = round_number
        # Not every new round answers a question: a task's polling round follows the call that
        # created it, and an ask drawn there sat at the task's creation, before any question came.
        if round_number > 1 and self._asked:
            self._asked = False
            ask = Arrow(None, "Client", "User", self._row(), "ask: " + (self._last_asked or "input"),
                        "interaction", round_number - 1)
            answer = Arrow(None, "User", "Client", self._row(), self.answer_label(round_number),
                           "interaction", round_number)
            self.interactions[round_number] = answer
            self.arrows += [ask, answer]
            change.added += [ask, answer]
        separator = Separator(self._y - ROW * 0.45, self._round_title(round_number))
        self._y += ROW * 0.3
        self.separators.append(separator)
        change.added.append(separator)

    def _round_title(self, round_number: int) -> str:
        created = self.operation.task_round if self.operation is not None else None
        if created is None or round_number <= created:
            return f"Round {round_number}"
        if round_number == created + 1:
            return f"Round {round_number} · task: polling"
        return f"Round {round_number} · task: after answer {round_number - created - 1}"

    @staticmethod
    def _label(entry: TraceMessage, method: str | None) -> str:
        style = STYLES.get(entry.kind, STYLES["invalid"])
        ident = f" #{entry.jsonrpc_id}" if entry.jsonrpc_id is not None else ""
        name = draft_label(entry.message) + (method or "?")  # "draft SEP-3221 · tools/call": a draft's fields
        if entry.kind in ("request", "notification"):
            return f"{name}{ident} · r{entry.round}"
        if entry.kind == "server_request":
            return f"↳ {name}{ident} (inside the call) · r{entry.round}"
        return f"{style.tag} · {name}{ident} · r{entry.round}"


def _short(arguments: dict[str, Any]) -> str:
    return brief_members(arguments, 40, count=len(arguments))


def layout_operation(operation: Operation | None, messages: list[TraceMessage],
                     lane_of: LaneOf | None = None) -> DiagramLayout:
    """The whole diagram at once (opening a trace, exporting)."""
    layout = DiagramLayout(operation, lane_of)
    for entry in messages:
        layout.add(entry)
    return layout


def flow_title(op: Operation) -> str:
    """The diagram's title line: what was called, how it ended, in how many rounds, where."""
    rounds = f"{op.rounds} round{'s' if op.rounds != 1 else ''}"
    return f"{op.method} {op.target} — {op.outcome}, {rounds} ({op.era}, {op.server})"
