"""Two servers (or two recordings) compared: their interfaces and their flows (`mrtr-studio diff`).

A side is what is known of one server: its discovery (server/discover or initialize: versions,
capabilities, serverInfo), its listings (tools, prompts, resources, resource templates, skills) and,
for a recording, its flows. A live server is listed (cli/list_cmd.py), and so is a saved listing
(`mrtr-studio list --json` output: a snapshot to diff against later); a trace gives every operation
it holds and whatever listings it recorded (the studio's recorders keep operations, so usually none).

Interfaces are compared entry by entry, by name (tools, prompts), uri (resources, skills) or
uriTemplate: added, removed, and for an entry in both the JSON paths that differ (its inputSchema,
outputSchema, annotations, arguments, description...). Flows are paired by method, target and
occurrence (the second tools/call of delete_file with the second) and compared on what a client
lives through: the number of rounds, the input keys each round asked, the outcome and the error code.
serverInfo differences are shown but not counted: a new version of the same server is expected to
say so. Each change carries a severity (studio/diff_severity.py: breaking, warning, info), which the
report, its JSON and the window show. Nothing here does I/O.
"""

import json
from dataclasses import dataclass, field
from typing import Any

from ..protocol.versions import MRTR_METHODS
from ..trace.model import Operation, TraceMessage, result_of
from . import diff_severity as severity_of
from .diff_severity import SEVERITIES, Severity
from .interface_listing import LISTING_KEYS, LISTINGS
from .json_diff import json_diff

#: A listing method -> (listing name, key of the entries in its result): LISTINGS read the other way.
LISTING_METHODS = {method: (name, key) for name, (method, key) in LISTINGS.items()}
#: Discovery fields compared (serverInfo is only shown).
SERVER_FIELDS = ("supportedVersions", "protocolVersion", "capabilities")
MAX_SHOWN = 160


@dataclass(frozen=True)
class Flow:
    method: str
    target: str
    rounds: int
    #: The input keys each round asked, sorted, in round order.
    asked: tuple[tuple[str, ...], ...]
    outcome: str
    error_code: int | None


@dataclass
class Side:
    label: str
    server: dict[str, Any] = field(default_factory=dict)
    #: Listing -> entries; None when not offered (live) or not recorded (trace).
    listings: dict[str, list[dict[str, Any]] | None] = field(default_factory=dict)
    #: None for a live server (it has no recorded flows).
    flows: list[Flow] | None = None


@dataclass(frozen=True)
class Change:
    area: str  # "server", a listing name, or "flows"
    subject: str
    what: str
    counted: bool = True
    severity: Severity = "warning"


@dataclass
class DiffReport:
    a: str
    b: str
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        return any(change.counted for change in self.changes)

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "differs": self.differs, "notes": self.notes,
                "changes": [{"area": c.area, "subject": c.subject, "what": c.what, "counted": c.counted,
                             "severity": c.severity} for c in self.changes]}

    def counts(self) -> dict[Severity, int]:
        """Counted changes by severity (every severity present, 0 when none)."""
        found = dict.fromkeys(SEVERITIES, 0)
        for change in self.changes:
            if change.counted:
                found[change.severity] += 1
        return found


def _change(difference: Any) -> str:
    """`changed: 'a' -> 'b'`, `added: ...`, `removed (was ...)`."""
    if difference.kind == "added":
        return f"added: {_shown(difference.right)}"
    if difference.kind == "removed":
        return f"removed (was {_shown(difference.left)})"
    return f"changed: {_shown(difference.left)} -> {_shown(difference.right)}"


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True) if not isinstance(value, str) else repr(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"


def flows_of(operations: list[Operation], messages: list[TraceMessage]) -> list[Flow]:
    by_operation: dict[str, list[TraceMessage]] = {}
    for entry in messages:
        by_operation.setdefault(entry.operation_id, []).append(entry)
    flows = []
    for op in operations:
        if op.method not in MRTR_METHODS:
            continue
        entries = by_operation.get(op.id, [])
        asked = []
        code = None
        for entry in entries:
            if entry.kind == "input_required":
                requests = result_of(entry.message).get("inputRequests")
                asked.append(tuple(sorted(str(k) for k in requests)) if isinstance(requests, dict) else ())
            elif entry.kind == "error":
                error = entry.message.get("error") if isinstance(entry.message, dict) else None
                found = error.get("code") if isinstance(error, dict) else None
                code = found if isinstance(found, int) and not isinstance(found, bool) else code
        flows.append(Flow(op.method, op.target, op.rounds, tuple(asked), op.outcome, code))
    return flows


def trace_side(label: str, operations: list[Operation], messages: list[TraceMessage]) -> Side:
    """What a recording says about its server: the listings and discovery it holds, and its flows."""
    side = Side(label, flows=flows_of(operations, messages))
    for entry in messages:
        if entry.direction != "server->client" or entry.kind != "complete":
            continue
        method = entry.method_name
        result = result_of(entry.message)
        if method in LISTING_METHODS:
            name, key = LISTING_METHODS[method]
            page = result.get(key)
            if isinstance(page, list):
                known = side.listings.get(name) or []
                side.listings[name] = known + [e for e in page if isinstance(e, dict)]
        elif method in ("server/discover", "initialize"):
            side.server.update({k: v for k, v in result.items() if k not in ("_meta", "resultType")})
    return side


def _entries(side: Side, listing: str) -> dict[str, dict[str, Any]] | None:
    entries = side.listings.get(listing)
    if entries is None:
        return None
    key = LISTING_KEYS[listing]
    return {str(entry.get(key)): entry for entry in entries}


def _compare_listing(report: DiffReport, listing: str, a: Side, b: Side) -> None:
    left, right = _entries(a, listing), _entries(b, listing)
    if left is None and right is None:
        return
    if left is None or right is None:
        missing = a.label if left is None else b.label
        report.notes.append(f"{listing}: not listed by {missing}; not compared")
        return
    for name in sorted(left.keys() - right.keys()):
        report.changes.append(Change(listing, name, f"only in {a.label}", severity=severity_of.removed_or_added(True)))
    for name in sorted(right.keys() - left.keys()):
        report.changes.append(Change(listing, name, f"only in {b.label}", severity=severity_of.removed_or_added(False)))
    for name in sorted(left.keys() & right.keys()):
        for difference in json_diff(left[name], right[name]):
            report.changes.append(Change(listing, name, f"{difference.dotted or '(entry)'} {_change(difference)}",
                                         severity=severity_of.entry_severity(listing, difference)))


def _compare_flows(report: DiffReport, a: Side, b: Side) -> None:
    if a.flows is None or b.flows is None:
        live = a.label if a.flows is None else b.label
        report.notes.append(f"flows: {live} has no recorded flows (a live server or a listing); only interfaces "
                            "compared")
        return
    def keyed(flows: list[Flow]) -> dict[tuple[str, str, int], Flow]:
        seen: dict[tuple[str, str], int] = {}
        out = {}
        for flow in flows:
            number = seen.get((flow.method, flow.target), 0) + 1
            seen[(flow.method, flow.target)] = number
            out[(flow.method, flow.target, number)] = flow
        return out
    left, right = keyed(a.flows), keyed(b.flows)
    for key in sorted(left.keys() | right.keys()):
        subject = f"{key[0]} {key[1]} #{key[2]}"
        one, other = left.get(key), right.get(key)
        if one is None or other is None:
            report.changes.append(Change("flows", subject, f"only in {a.label if other is None else b.label}"))
            continue
        if one.rounds != other.rounds:
            report.changes.append(Change("flows", subject, f"rounds: {one.rounds} -> {other.rounds}",
                                         severity="warning" if other.rounds > one.rounds else "info"))
        for number in range(max(len(one.asked), len(other.asked))):
            asked = one.asked[number] if number < len(one.asked) else None
            asked_there = other.asked[number] if number < len(other.asked) else None
            if asked != asked_there:
                report.changes.append(Change("flows", subject, f"round {number + 1} asks: "
                                                               f"{_keys(asked)} -> {_keys(asked_there)}",
                                             severity=severity_of.asked_severity(asked, asked_there)))
        if (one.outcome, one.error_code) != (other.outcome, other.error_code):
            report.changes.append(Change("flows", subject, f"outcome: {_outcome(one)} -> {_outcome(other)}",
                                         severity=severity_of.outcome_severity(one.outcome, other.outcome)))


def _keys(keys: tuple[str, ...] | None) -> str:
    return "(no such round)" if keys is None else ", ".join(keys) or "(nothing)"


def _outcome(flow: Flow) -> str:
    return flow.outcome + (f" ({flow.error_code})" if flow.error_code is not None else "")


def compare(a: Side, b: Side) -> DiffReport:
    report = DiffReport(a.label, b.label)
    if a.server and b.server:
        for name in SERVER_FIELDS:
            for difference in json_diff(a.server.get(name), b.server.get(name)):
                dotted = difference.dotted
                path = name + ("" if not dotted else dotted if dotted.startswith("[") else "." + dotted)
                report.changes.append(Change("server", path, _change(difference),
                                             severity=severity_of.server_severity(name, difference)))
        for difference in json_diff(a.server.get("serverInfo"), b.server.get("serverInfo")):
            report.changes.append(Change("server", "serverInfo." + difference.dotted, _change(difference),
                                         counted=False, severity="info"))
    else:
        missing = [side.label for side in (a, b) if not side.server]
        report.notes.append(f"server: no discovery recorded for {', '.join(missing)}; not compared")
    for listing in LISTING_KEYS:
        _compare_listing(report, listing, a, b)
    _compare_flows(report, a, b)
    return report


def report_text(report: DiffReport) -> str:
    lines = [f"--- {report.a}", f"+++ {report.b}"]
    area = None
    for change in report.changes:
        if change.area != area:
            area = change.area
            lines.append(f"{area}:")
        lines.append(f"  {change.subject}: {change.what}" + ("" if change.counted else " (not counted)")
                     + f"  [{change.severity}]")
    lines += [f"note: {note}" for note in report.notes]
    counts = report.counts()
    counted = sum(counts.values())
    by_severity = ", ".join(f"{n} {name}" for name, n in counts.items() if n)
    lines.append(f"{counted} difference{'s' if counted != 1 else ''} ({by_severity})" if counted
                 else "no differences")
    return "\n".join(lines) + "\n"
