"""Replay across nodes: complete a single-use `delete_file` flow on one node, then send the very same
completing retry to every node again, and say which nodes accepted it.

With per-node memory each other node has never seen the state's nonce and deletes the file again
(the bug a cluster without a shared store has); with one shared store every node refuses it with
`data.reason: replayed`. Through one load-balancer URL the balancer picks the node; HAProxy names
it in `X-Served-By`. Raw JSON-RPC over httpx, every read bounded in size and time.
"""

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..protocol.roundtrip import NeedInput, RoundTrip, Send, result_type_of
from ..protocol.versions import META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, MODERN_VERSION
from ..transport.mcp_headers import ACCEPT, modern_headers

if TYPE_CHECKING:  # httpx loads with the first replay, not with the window's Cluster tab
    import httpx

TOOL, ARGUMENTS = "delete_file", {"path": "/tmp/report.txt"}
ACCEPT_ANSWER = {"confirm": {"action": "accept", "content": {"confirm": True}}}
MAX_BODY = 256 * 1024
TIMEOUT = 15.0


@dataclass
class Attempt:
    """One send of the completing retry: where it went and what came back."""

    url: str
    served_by: str
    accepted: bool
    answer: str
    reason: str | None = None


@dataclass
class ReplayReport:
    store: str
    first: Attempt | None = None
    replays: list[Attempt] = field(default_factory=list)
    error: str | None = None

    @property
    def accepted(self) -> int:
        """How many times the file was deleted (the first completion included)."""
        return sum(1 for a in [self.first, *self.replays] if a is not None and a.accepted)

    def summary(self) -> str:
        if self.error:
            return f"✖ {self.error}"
        times = self.accepted
        refused = sum(1 for a in self.replays if not a.accepted)
        if times > 1:
            return f"✖ deleted {times} times: {times - 1} replay(s) accepted by nodes that never saw the state"
        return f"✔ deleted once; {refused} replay(s) refused"


def _request(ids: "itertools.count[int]") -> dict[str, Any]:
    params: dict[str, Any] = {"name": TOOL, "arguments": dict(ARGUMENTS), "_meta": {
        META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_INFO: {"name": "mrtr-studio replay", "version": "1"},
        META_CLIENT_CAPABILITIES: {"elicitation": {}}}}
    return {"jsonrpc": "2.0", "id": next(ids), "method": "tools/call", "params": params}


async def _post(client: "httpx.AsyncClient", url: str, message: dict[str, Any]) -> tuple[dict[str, Any], str]:
    headers = {"Accept": ACCEPT, "Content-Type": "application/json", **modern_headers(message)}
    async with client.stream("POST", url, json=message, headers=headers) as response:
        body = b""
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_BODY:
                raise ValueError(f"{url} answered more than {MAX_BODY} bytes")
        served_by = response.headers.get("x-served-by", "")
    text = body.decode(errors="replace")
    if text.lstrip().startswith("{"):
        return json.loads(text), served_by
    for line in text.splitlines():  # an SSE stream: the last data line holds the response
        if line.startswith("data:") and '"id"' in line:
            return json.loads(line[5:]), served_by
    raise ValueError(f"{url} answered with HTTP {response.status_code} and no JSON-RPC response")


def _attempt(url: str, served_by: str, reply: dict[str, Any], urls: Sequence[str] = ()) -> Attempt:
    if not served_by and len(urls) > 1:
        served_by = f"node{list(urls).index(url)}"  # sent to that node directly
    if "result" in reply:
        content = reply["result"].get("content") or [{}]
        text = str(content[0].get("text", reply["result"].get("resultType")))
        return Attempt(url, served_by, result_type_of(reply["result"]) == "complete", text)
    error = reply.get("error") or {}
    data = error.get("data") if isinstance(error.get("data"), dict) else {}
    reason = data.get("reason") if data else None
    text = f"{error.get('code')} {error.get('message')}" + (f" ({reason})" if reason else "")
    return Attempt(url, served_by, False, text, reason)


async def replay_across(urls: Sequence[str], store: str, replays: int | None = None) -> ReplayReport:
    """Complete the flow on `urls[0]` (both rounds), then replay its retry to each URL in turn.

    `replays` defaults to one per other URL; with a single balancer URL, pass how many to send.
    """
    import httpx

    report = ReplayReport(store)
    ids = itertools.count(1)
    targets = list(urls[1:]) if replays is None else [urls[(i + 1) % len(urls)] for i in range(replays)]
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            machine = RoundTrip(_request(ids))  # the honest flow, through the one round-trip machine
            asked, _ = await _post(client, urls[0], machine.start().message)
            event = machine.receive(asked)
            if not isinstance(event, NeedInput) or event.state is None:
                report.error = f"round 1 did not ask for input: {asked.get('error') or asked.get('result')}"
                return report
            sent = machine.answer(dict(ACCEPT_ANSWER), next(ids))
            assert isinstance(sent, Send)
            retry = sent.message
            reply, served_by = await _post(client, urls[0], retry)
            report.first = _attempt(urls[0], served_by, reply, urls)
            for url in targets:
                again = {**retry, "id": next(ids)}
                reply, served_by = await _post(client, url, again)
                report.replays.append(_attempt(url, served_by, reply, urls))
    except (httpx.HTTPError, ValueError) as exc:
        report.error = f"{type(exc).__name__}: {exc}"
    return report
