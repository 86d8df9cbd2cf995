"""The secure-parameters lab (draft SEP-3221): what a server does when the retry's secureArguments change.

Each attack makes its own first call to a tool with a `secureInputSchema` (the host's secure arguments in
`secureArguments`), answers its question as the auto-answerer would, and breaks the retry one way:
the secure arguments dropped, altered (another instance: the confused deputy the SEP is about), replayed
from another operation (a captured retry's values, with this operation's state), or moved into
`arguments` where the model could have put them. The server's answer is classified and judged as the
main lab does (`lab.classify`, `lab.judge`): the SEP's MUSTs are failures when not met, and a state that
does not bind the secure arguments is a SHOULD of MRTR's (reject a state presented on another request).
Every exchange is recorded in the store, so each attack can be opened as a flow.
"""

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..client.auto_answers import auto_respond
from ..client.driver import IdSource, Message, Respond
from ..client.settings import ClientSettings
from ..protocol import jsonrpc
from ..protocol.drafts import SECURE_ARGUMENTS, SEP_3221
from ..protocol.roundtrip import NeedInput, RoundTrip
from ..trace import TraceStore
from ..trace.recorder import Recorder
from ..transport.base import ClientTransport
from .lab import Attack, AttackResult, classify, finish_attack, judge

SEP = "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/3221"
MRTR = "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#error-handling"

ATTACKS: tuple[Attack, ...] = (
    Attack("secure-dropped", "Drop secureArguments on the retry",
           "the client MUST re-send secureArguments with inputResponses; the server MUST require them", "MUST", SEP),
    Attack("secure-altered", "Alter a secure argument on the retry (another instance)",
           "SHOULD reject a state presented on a request that does not match (the secure arguments it was minted for)",
           "SHOULD", MRTR),
    Attack("secure-replayed", "Replay another operation's secureArguments with this state",
           "SHOULD reject a state presented on a request that does not match (another call's secure arguments)",
           "SHOULD", MRTR),
    Attack("secure-in-arguments", "Move a secure argument into arguments",
           "the server MUST reject an argument named in secureInputSchema with -32602", "MUST", SEP),
)


def altered(values: dict[str, Any], suffix: str = "-other") -> dict[str, Any]:
    """The same secure arguments with one string value changed (the first, in key order)."""
    changed = copy.deepcopy(values)
    for key in sorted(changed):
        if isinstance(changed[key], str):
            changed[key] = changed[key] + suffix
            return changed
    changed["unexpected"] = "x"
    return changed


@dataclass
class DraftsLabRun:
    tool: str
    results: list[AttackResult] = field(default_factory=list)


class SecureParamsLab:
    """Runs the secure-parameter attacks on `tool` through transports from `connect` (recording them)."""

    def __init__(self, connect: Callable[[], ClientTransport], store: TraceStore | None = None,
                 respond: Respond = auto_respond, settings: ClientSettings | None = None) -> None:
        self.connect = connect
        self.store = store if store is not None else TraceStore()
        self.recorder = Recorder(self.store)
        self.respond = respond
        base = settings or ClientSettings()
        self.settings = ClientSettings(capabilities=base.capabilities, drafts=base.drafts | {SEP_3221})
        self.ids = IdSource("drafts-lab-")

    def _first(self, tool: str, arguments: dict[str, Any], secure: dict[str, Any]) -> Message:
        params = {"name": tool, "arguments": dict(arguments), SECURE_ARGUMENTS: copy.deepcopy(secure),
                  "_meta": self.settings.request_meta()}
        return jsonrpc.request(self.ids(), "tools/call", params)

    async def _asked(self, transport: ClientTransport, op_id: str, first: Message) -> tuple[RoundTrip, NeedInput] | str:
        machine = RoundTrip(first)
        step = machine.start()
        with self.recorder.at(op_id, 1):
            reply = await transport.send(step.message)
        event = machine.receive(reply)
        if not isinstance(event, NeedInput):
            return f"the first call did not ask for input ({classify(reply)[1]}); nothing to retry"
        return machine, event

    async def run(self, tool: str, arguments: dict[str, Any], secure: dict[str, Any],
                  other_secure: dict[str, Any] | None = None) -> DraftsLabRun:
        """`secure`: the host's values; `other_secure`: another operation's (default: `secure`, altered)."""
        run = DraftsLabRun(tool)
        transport = self.connect()
        unlisten = self.recorder.attach(transport.tap)
        try:
            for attack in ATTACKS:
                run.results.append(await self._attack(attack, transport, tool, arguments, secure,
                                                      other_secure or altered(secure, "-captured")))
        finally:
            unlisten()
            await transport.close()
        return run

    async def _attack(self, attack: Attack, transport: ClientTransport, tool: str, arguments: dict[str, Any],
                      secure: dict[str, Any], other: dict[str, Any]) -> AttackResult:
        op = self.store.begin_operation("tools/call", tool, arguments, "modern", "drafts lab",
                                        label=f"lab (draft SEP-3221): {attack.title}")
        reached = await self._asked(transport, op.id, self._first(tool, arguments, secure))
        if isinstance(reached, str):
            self.store.finish_operation(op.id, "protocol_error", reached)
            return AttackResult(attack, "broken", "skipped", "—", op.id, reached)
        machine, asked = reached
        retry = machine.retry_for(await self.respond(asked.requests, asked.round), self.ids())
        params = retry["params"]
        if attack.id == "secure-dropped":
            params.pop(SECURE_ARGUMENTS, None)
        elif attack.id == "secure-altered":
            params[SECURE_ARGUMENTS] = altered(secure)
        elif attack.id == "secure-replayed":
            params[SECURE_ARGUMENTS] = copy.deepcopy(other)
        else:
            key = sorted(secure)[0]
            params["arguments"] = {**params.get("arguments", {}), key: secure[key]}
        with self.recorder.at(op.id, asked.round + 1):
            reply = await transport.send(retry)
        status, answer = classify(reply)
        finish_attack(self.store, op.id, attack, status, answer)
        return AttackResult(attack, status, judge(attack, status), answer, op.id)

