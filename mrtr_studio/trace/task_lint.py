"""Lint rules for the task side of an operation (SEP-2663): what a reviewer of a task flow flags.

They read a message with the earlier messages of its operation: the client's polls against the
interval the server asked for, its `tasks/update` answers against the keys outstanding and the
keys already answered, the routing header over HTTP, and a task returned to a client that never
declared the extension.
"""

from collections.abc import Sequence
from typing import Any

from ..protocol import capabilities
from ..protocol.tasks_extension import TASK_METHODS, declares_tasks
from .model import Finding, TraceMessage, params_of, result_of

POLL_TOO_FAST = "task-poll-too-fast"
KEY_ANSWERED_TWICE = "task-key-answered-twice"
KEY_NOT_OUTSTANDING = "task-key-not-outstanding"
MISSING_MCP_NAME = "task-missing-mcp-name"
TASK_UNDECLARED = "task-not-declared"
#: Timers are not exact: a poll this much earlier than the interval still counts as on time.
POLL_SLACK = 0.8


def lint_task_message(entry: TraceMessage, earlier: Sequence[TraceMessage]) -> list[Finding]:
    found: list[Finding] = []
    if entry.kind == "task":
        found += _undeclared(entry, earlier)
    if entry.direction != "client->server" or entry.method not in TASK_METHODS:
        return found
    found += _routing_header(entry)
    if entry.method == "tasks/get":
        found += _poll_pace(entry, earlier)
    if entry.method == "tasks/update":
        found += _answers(entry, earlier)
    return found


def _undeclared(entry: TraceMessage, earlier: Sequence[TraceMessage]) -> list[Finding]:
    request = entry.reply_to
    if request is None or declares_tasks(capabilities.from_meta(params_of(request.message))):
        return []
    return [Finding(TASK_UNDECLARED, "error", "the server answered with a task although the request did not "
                    "declare the io.modelcontextprotocol/tasks extension")]


def _routing_header(entry: TraceMessage) -> list[Finding]:
    headers = entry.transport.get("request_headers")
    if entry.transport.get("transport") != "http" or not isinstance(headers, dict):
        return []
    task_id = params_of(entry.message).get("taskId")
    sent = next((str(v).strip() for k, v in headers.items() if str(k).lower() == "mcp-name"), None)
    if sent == task_id:
        return []
    what = "lacks the Mcp-Name header" if sent is None else f"has Mcp-Name {sent!r}, not the taskId"
    return [Finding(MISSING_MCP_NAME, "error", f"{entry.method} over HTTP {what}; SEP-2663 routes task "
                    "requests by Mcp-Name: <taskId>")]


def _interval_seen(earlier: Sequence[TraceMessage]) -> float | None:
    for candidate in reversed(earlier):
        if candidate.direction == "server->client" and candidate.kind in ("task", "complete"):
            interval = result_of(candidate.message).get("pollIntervalMs")
            if isinstance(interval, int | float) and not isinstance(interval, bool) and interval > 0:
                return interval / 1000
    return None


def _poll_pace(entry: TraceMessage, earlier: Sequence[TraceMessage]) -> list[Finding]:
    interval = _interval_seen(earlier)
    previous = next((m for m in reversed(earlier) if m.direction == "client->server"
                     and m.method in ("tasks/get", "tools/call", "tasks/update")), None)
    if interval is None or previous is None or previous.method == "tasks/update":
        return []  # right after an answer the client may look at once
    gap = entry.timestamp - previous.timestamp
    if gap >= interval * POLL_SLACK:
        return []
    return [Finding(POLL_TOO_FAST, "warning", f"polled {gap * 1000:.0f} ms after the previous request; the "
                    f"server asked for pollIntervalMs {interval * 1000:.0f}")]


def _answers(entry: TraceMessage, earlier: Sequence[TraceMessage]) -> list[Finding]:
    responses = params_of(entry.message).get("inputResponses")
    if not isinstance(responses, dict):
        return []
    answered: set[str] = set()
    for candidate in earlier:
        if candidate.direction == "client->server" and candidate.method == "tasks/update":
            before = params_of(candidate.message).get("inputResponses")
            answered |= set(before) if isinstance(before, dict) else set()
    outstanding: dict[str, Any] = {}
    for candidate in reversed(earlier):
        body = result_of(candidate.message)
        if candidate.direction == "server->client" and "status" in body and "taskId" in body:
            requests = body.get("inputRequests")
            outstanding = requests if isinstance(requests, dict) else {}
            break
    found = []
    twice = sorted(set(responses) & answered)
    if twice:
        found.append(Finding(KEY_ANSWERED_TWICE, "error", f"answers {', '.join(twice)} again; a task's keys are "
                             "answered once (the server ignores the second answer)"))
    stray = sorted(set(responses) - set(outstanding) - answered)
    if stray:
        found.append(Finding(KEY_NOT_OUTSTANDING, "warning", f"answers {', '.join(stray)}, which the last "
                             "tasks/get did not show as outstanding"))
    return found
