"""A task across nodes: `long_report` created on node 0, polled on node 1, answered and followed to its
end on node 2 — and which node served each request.

The client is the studio's own task follower (`client.task_follower.follow_task`, declaring the
`io.modelcontextprotocol/tasks` extension); only its dispatch is special: it sends each request to
the node its step names, or to one load-balancer URL (HAProxy picks the node and names it in
`X-Served-By`). With a shared store every node knows the task; with per-node memory node 1 does
not. Raw JSON-RPC over httpx, every read bounded in size and time (`replay_across._post`).
"""

import asyncio
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..client.driver import Message
from ..client.task_follower import TaskRun, follow_task
from ..protocol.roundtrip import result_type_of
from ..protocol.tasks_extension import TASKS_EXTENSION
from ..protocol.versions import META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, MODERN_VERSION
from .replay_across import TIMEOUT, _post

TOOL = "long_report"
ARGUMENTS = {"topic": "scaling out", "sections": 2, "seconds_per_section": 0.3}
CAPABILITIES: dict[str, Any] = {"elicitation": {}, "extensions": {TASKS_EXTENSION: {}}}
GO_ON = {"action": "accept", "content": {"confirm": True}}
#: Polls before the run gives up (the report takes about a second).
MAX_POLLS = 200


@dataclass
class Hop:
    """One request of the run: what it was, which node served it, and what the task showed then."""

    method: str
    served_by: str
    status: str


@dataclass
class TaskAcrossReport:
    store: str
    hops: list[Hop] = field(default_factory=list)
    run: TaskRun | None = None
    error: str | None = None

    @property
    def nodes(self) -> list[str]:
        """The nodes that served the task's requests, in first-seen order."""
        return list(dict.fromkeys(hop.served_by for hop in self.hops if hop.served_by))

    @property
    def completed(self) -> bool:
        return self.error is None and self.run is not None and self.run.ok

    def summary(self) -> str:
        if self.error:
            return f"✖ {self.error}"
        assert self.run is not None
        served = ", ".join(n.replace("node", "node ") for n in self.nodes) or "no node"
        if self.run.ok:
            text = (self.run.result or {}).get("content", [{}])[0].get("text", "")
            return f"✔ completed, served by {len(self.nodes)} node(s) ({served}): {text}"
        return f"✖ {self.run.outcome}: {self.run.problem} (served by {served})"


def _node_for(method: str, answered: bool, count: int) -> int:
    """The run's route: create on node 0, poll on node 1, answer and follow to the end on node 2."""
    if method == "tools/call":
        return 0
    if method == "tasks/update" or answered:
        return 2 % count
    return 1 % count


async def task_across(urls: Sequence[str], store: str) -> TaskAcrossReport:
    """Run `long_report` across `urls` (three nodes, or one balancer URL) and record every hop."""
    import httpx  # with the first run, not with the window's Cluster tab

    report = TaskAcrossReport(store)
    ids = itertools.count(1)
    answered = False

    def message(method: str, params: dict[str, Any]) -> Message:
        meta = {META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_INFO: {"name": "mrtr-studio tasks", "version": "1"},
                META_CLIENT_CAPABILITIES: CAPABILITIES}
        return {"jsonrpc": "2.0", "id": next(ids), "method": method, "params": {**params, "_meta": meta}}

    try:
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            async def dispatch(request: Message) -> Message | None:
                nonlocal answered
                index = _node_for(request["method"], answered, len(urls))
                reply, served_by = await _post(client, urls[index], request)
                if request["method"] == "tasks/update":
                    answered = True
                result: dict[str, Any] = reply["result"] if isinstance(reply.get("result"), dict) else {}
                status = str(result.get("status") or ("acknowledged" if result else ""))
                if isinstance(reply.get("error"), dict):
                    status = f"error {reply['error'].get('code')}: {reply['error'].get('message')}"
                report.hops.append(Hop(request["method"], served_by or f"node{index}", status))
                return reply

            async def respond(requests: dict[str, Any], _round: int) -> dict[str, Any]:
                return {key: GO_ON for key in requests}

            created = await dispatch(message("tools/call", {"name": TOOL, "arguments": dict(ARGUMENTS)}))
            first = (created or {}).get("result")
            if not isinstance(first, dict) or result_type_of(first) != "task":
                report.error = f"{TOOL} did not become a task: {(created or {}).get('error') or first}"
                return report
            report.run = await follow_task(first["taskId"], dispatch, message, respond, asyncio.sleep,
                                           first=first, max_polls=MAX_POLLS)
    except (httpx.HTTPError, ValueError) as exc:
        report.error = f"{type(exc).__name__}: {exc}"
    return report
