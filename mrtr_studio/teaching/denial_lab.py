"""Checks of a server's SEP-2643 denial (draft, structured authorization denials), judged against its MUSTs.

One denied call is made (with URL elicitation declared, so the server can offer the URL interaction)
and its answer is read: the envelope's required fields, hints only when a remediation is available, a
`url` hint beside a URL-mode elicitation and a requestState. Then the retry is sent twice: once echoing
the `authorizationContextId` (what a client MUST do) and once without it, which the server MUST NOT
reject (clients that do not implement the SEP leave it out). Each check says what it found.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..client.auto_answers import auto_respond
from ..client.drafts import context_id_of
from ..client.drafts import retry as echo_context
from ..client.driver import IdSource, Respond
from ..client.settings import ClientSettings
from ..protocol import jsonrpc
from ..protocol.drafts import AUTHORIZATION_META, SEP_2643
from ..protocol.roundtrip import NeedInput, RoundTrip
from ..transport.base import ClientTransport
from .lab import classify

SEP = "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/2643"


@dataclass(frozen=True)
class DenialCheck:
    id: str
    requirement: str
    ok: bool
    found: str


async def check_denial(connect: Callable[[], ClientTransport], tool: str, arguments: dict[str, Any],
                       respond: Respond = auto_respond) -> list[DenialCheck]:
    settings = ClientSettings(drafts=frozenset({SEP_2643}))
    ids = IdSource("denial-lab-")
    transport = connect()
    try:
        first = jsonrpc.request(ids(), "tools/call", {"name": tool, "arguments": dict(arguments),
                                                      "_meta": settings.request_meta()})
        machine = RoundTrip(first)
        event = machine.receive(await transport.send(machine.start().message))
        if not isinstance(event, NeedInput):
            return [DenialCheck("input-required", "a URL-remediable denial is an InputRequiredResult", False,
                                "the first call did not ask for input")]
        body = event.body
        envelope = (body.get("_meta") or {}).get(AUTHORIZATION_META)
        envelope = envelope if isinstance(envelope, dict) else {}
        hints = envelope.get("remediationHints")
        modes = [r.get("params", {}).get("mode") for r in event.requests.values() if isinstance(r, dict)]
        checks = [
            DenialCheck("envelope", "the denial SHOULD carry the envelope in _meta", bool(envelope),
                        "present" if envelope else "absent"),
            DenialCheck("reason", "reason is REQUIRED (insufficient_authorization)",
                        envelope.get("reason") == "insufficient_authorization", repr(envelope.get("reason"))),
            DenialCheck("remediation", "remediation is REQUIRED: available, unavailable or undisclosed",
                        envelope.get("remediation") in ("available", "unavailable", "undisclosed"),
                        repr(envelope.get("remediation"))),
            DenialCheck("url-hint", "a URL interaction MUST include a remediationHints entry of type url",
                        isinstance(hints, list) and {"type": "url"} in hints, repr(hints)),
            DenialCheck("url-elicitation", "the URL is in inputRequests as a url-mode elicitation/create",
                        "url" in modes, repr(modes)),
            DenialCheck("request-state", "the state to resume travels as requestState", "requestState" in body,
                        "present" if "requestState" in body else "absent"),
        ]
        answers = await respond(event.requests, event.round)
        echoed = echo_context(machine.retry_for(answers, ids()), body, settings.drafts)
        status, answer = classify(await transport.send(echoed))
        checks.append(DenialCheck("retry-echoed", "the retry echoing the handle completes",
                                  status == "accepted", answer))
        # A fresh denial, retried without the handle (a client without the SEP); fresh, so a single-use
        # state spent by the first retry cannot be the reason for a refusal.
        again = RoundTrip({**first, "id": ids()})
        second = again.receive(await transport.send(again.start().message))
        if isinstance(second, NeedInput):
            status, answer = classify(await transport.send(again.retry_for(answers, ids())))
        else:
            status, answer = "broken", "the second call did not ask for input"
        checks.append(DenialCheck("retry-without-handle", "servers MUST NOT reject a retry whose handle is absent",
                                  status == "accepted", answer))
        if context_id_of(body) is None:
            checks.append(DenialCheck("handle", "authorizationContextId is OPTIONAL (none given)", True, "none"))
        return checks
    finally:
        await transport.close()
