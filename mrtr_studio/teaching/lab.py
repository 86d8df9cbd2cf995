"""The tamper-and-replay lab: a grid of attacks on a captured round, each judged against the spec.

Every attack gets its own fresh first round (so one attack's consumed state cannot colour the next),
then sends one broken retry. What the server answered is classified (rejected, re-asked, accepted)
and compared with what the spec requires: MUST-level failures are failures, SHOULD-level ones are
warnings. The same grid runs against the embedded engine and any external server; what needs
powers the studio lacks over a remote server (its clock, a second identity) is skipped, saying so.
"""

import asyncio
import json
import math
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..client import tamper
from ..client.auto_answers import auto_respond
from ..client.driver import IdSource, Message, Respond
from ..client.settings import ClientSettings
from ..engine.state_token import StateRejected, decode
from ..protocol import jsonrpc
from ..protocol.roundtrip import Failed, NeedInput, RoundTrip, Send, result_type_of
from ..protocol.spec_links import MRTR
from ..trace import TraceStore
from ..trace.model import Outcome
from ..trace.recorder import Recorder
from ..transport.base import ClientTransport

Level = Literal["MUST", "SHOULD"]
Status = Literal["rejected", "re-asked", "accepted", "broken", "skipped"]
Verdict = Literal["pass", "warn", "fail", "skipped"]


@dataclass(frozen=True)
class Attack:
    id: str
    title: str
    requirement: str
    level: Level
    spec: str = MRTR + "#server-requirements-basic-workflow"
    #: Re-asking is an acceptable answer (no verified answers were used), not only an error.
    reask_ok: bool = False


ATTACKS: tuple[Attack, ...] = (
    Attack("flip-signature", "Flip a byte of the signature", "MUST reject state that fails verification", "MUST"),
    Attack("flip-payload", "Flip a byte of the payload", "MUST reject state that fails verification", "MUST"),
    Attack("truncate", "Truncate the state", "MUST reject state that fails verification", "MUST"),
    Attack("invent", "Invent a state (another key)", "MUST reject state that fails verification", "MUST"),
    Attack("drop", "Drop the state, keep the answers",
           "answers without the state that asked for them SHOULD NOT complete the operation", "SHOULD",
           MRTR + "#error-handling", reask_ok=True),
    Attack("other-arguments", "Reuse with other arguments",
           "SHOULD reject state presented on a request that does not match (digest of its parameters)", "SHOULD"),
    Attack("other-tool", "Reuse on another tool",
           "SHOULD reject state presented on a request that does not match (method and name)", "SHOULD"),
    Attack("expired", "Send after expiry", "SHOULD reject state presented after its TTL lapses", "SHOULD"),
    Attack("other-identity", "Send as another identity",
           "SHOULD reject state presented by a different principal", "SHOULD"),
    Attack("twice", "Replay the completed retry",
           "servers for which a state must be consumed at most once MUST enforce it server-side", "SHOULD"),
    Attack("parallel", "Attach it to a parallel request",
           "MUST NOT be used for any other request in parallel; the server SHOULD reject the mismatch", "SHOULD",
           MRTR + "#client-requirements-basic-workflow"),
)


@dataclass
class AttackResult:
    attack: Attack
    status: Status
    verdict: Verdict
    answer: str
    operation_id: str | None = None
    detail: str = ""
    #: The JSON-RPC error code and `data.reason` of the server's last answer, when it was an error.
    code: int | None = None
    reason: str | None = None


@dataclass
class LabTarget:
    """What the lab may do to the server under test."""

    connect: Callable[[str], ClientTransport]
    identities: tuple[str, str | None] = ("", None)
    advance_clock: Callable[[float], None] | None = None
    reset_clock: Callable[[], None] | None = None
    label: str = "embedded"


@dataclass
class LabRun:
    method: str
    target: str
    arguments: dict[str, Any]
    results: list[AttackResult] = field(default_factory=list)

    #: The round whose requestState was attacked (None: no round carried one).
    at_round: int | None = None

    @property
    def all_rejected(self) -> bool:
        return all(r.status in ("rejected", "re-asked") or r.status == "skipped" for r in self.results)




def finish_attack(store: TraceStore, op_id: str, attack: Attack, status: Status, answer: str) -> None:
    """End an attack's operation as the server's answer ended it: a rejection is an error, an accepted
    forgery completes, anything else was aborted by the lab."""
    outcome: Outcome = "error" if status == "rejected" else "complete" if status == "accepted" else "aborted"
    store.finish_operation(op_id, outcome, f"{attack.title}: {answer}")


def classify(reply: Message | None) -> tuple[Status, str]:
    if not isinstance(reply, dict):
        return "broken", "no JSON-RPC answer"
    if isinstance(reply.get("error"), dict):
        error = reply["error"]
        data = error.get("data") if isinstance(error.get("data"), dict) else {}
        reason = f" ({data['reason']})" if "reason" in data else ""
        return "rejected", f"{error.get('code')} {error.get('message')}{reason}"
    result = reply.get("result")
    if not isinstance(result, dict):
        return "broken", "neither result nor error"
    if result_type_of(result) == "input_required":
        return "re-asked", "input_required (asked again)"
    texts = [c.get("text", "") for c in result.get("content") or [] if isinstance(c, dict)]
    return "accepted", "complete" + (f": {texts[0]}" if texts else "")


def judge(attack: Attack, status: Status) -> Verdict:
    if status == "skipped":
        return "skipped"
    if status == "rejected" or (status == "re-asked" and attack.reask_ok):
        return "pass"
    return "fail" if attack.level == "MUST" else "warn"


#: Below this many bits a state cannot hold a MAC worth the name (a 128-bit tag alone needs more).
FORGEABLE_BITS = 128


def state_bits(token: str) -> float:
    """A state's information content by its own character frequencies (Shannon), in bits."""
    if not token:
        return 0.0
    counts = Counter(token)
    return -sum(n * math.log2(n / len(token)) for n in counts.values())


def looks_forgeable(token: str) -> bool:
    """True for a state that cannot carry integrity protection: not the studio's signed v1 format and
    too little information for a MAC or a ciphertext (plain text such as `step=confirmed`)."""
    try:
        decode(token)
        return False
    except StateRejected:
        pass
    return state_bits(token) < FORGEABLE_BITS


def state_lifetime(token: str) -> int:
    """exp - iat of a v1 token, read without verifying it (the studio's decoder's privilege)."""
    try:
        payload = decode(token).payload
    except StateRejected:
        return 600
    return int(payload["exp"]) - int(payload["iat"])


class Lab:
    def __init__(self, target: LabTarget, store: TraceStore, settings: ClientSettings | None = None,
                 respond: Respond = auto_respond) -> None:
        self.target = target
        self.store = store
        self.recorder = Recorder(store)
        self.settings = settings or ClientSettings(era="modern")
        self.respond = respond
        self.ids = IdSource("lab-")
        self._transports: dict[str, ClientTransport] = {}

    def _transport(self, identity: str) -> ClientTransport:
        if identity not in self._transports:
            transport = self.target.connect(identity)
            self.recorder.attach(transport.tap)
            self._transports[identity] = transport
        return self._transports[identity]

    async def _send(self, transport: ClientTransport, message: Message, op_id: str,
                    round_number: int) -> Message | None:
        with self.recorder.at(op_id, round_number):
            return await transport.send(message)

    def _first(self, method: str, target: str, arguments: dict[str, Any]) -> Message:
        params: dict[str, Any] = {"uri": target} if method == "resources/read" else {"name": target,
                                                                                      "arguments": arguments}
        params["_meta"] = self.settings.request_meta()
        return jsonrpc.request(self.ids(), method, params)

    async def run(self, method: str, target: str, arguments: dict[str, Any] | None = None,
                  other_target: str | None = None, attacks: tuple[Attack, ...] = ATTACKS,
                  at_round: int | None = None) -> LabRun:
        """Every attack on the state of round `at_round` (default: the first round that carries one)."""
        run = LabRun(method, target, dict(arguments or {}), at_round=at_round)
        try:
            for attack in attacks:
                result = await self._attack(attack, method, target, run.arguments, other_target, at_round)
                run.results.append(result)
        finally:
            for transport in self._transports.values():
                await transport.close()
            self._transports.clear()
        return run

    async def _attack(self, attack: Attack, method: str, target: str, arguments: dict[str, Any],
                      other_target: str | None, at_round: int | None = None) -> AttackResult:
        first_identity, other_identity = self.target.identities
        if attack.id == "expired" and self.target.advance_clock is None:
            return AttackResult(attack, "skipped", "skipped", "—", detail="the studio cannot move an external "
                                "server's clock; wait out the state's TTL and retry by hand")
        if attack.id == "other-identity" and other_identity is None:
            return AttackResult(attack, "skipped", "skipped", "—", detail="configure a second identity "
                                "(bearer token) for this server to run it")
        op = self.store.begin_operation(method, target, arguments, "modern", self.target.label,
                                        label=f"lab: {attack.title}")
        transport = self._transport(first_identity)
        reached = await self._reach_state(transport, op.id, method, target, arguments, at_round)
        if isinstance(reached, tuple) and len(reached) == 2 and isinstance(reached[0], str):
            answer, why = reached
            self.store.finish_operation(op.id, "protocol_error", why)
            return AttackResult(attack, "broken", "skipped", answer, op.id, why)
        assert not isinstance(reached[0], str)
        machine, asked = reached
        answers = await self.respond(asked.requests, asked.round)
        retry = machine.retry_for(answers, self.ids())
        status, answer, detail = await self._deliver(attack, retry, asked.body, transport, op.id, method, target,
                                                    other_target, asked.round + 1)
        finish_attack(self.store, op.id, attack, status, answer)
        code, reason = self._last_error(op.id)
        return AttackResult(attack, status, judge(attack, status), answer, op.id, detail, code, reason)

    def _last_error(self, op_id: str) -> tuple[int | None, str | None]:
        """The code and reason of the last answer the server sent in this operation, read from the trace."""
        for entry in reversed(self.store.messages_of(op_id)):
            if entry.direction != "server->client" or entry.kind == "auth":
                continue
            error = entry.message.get("error") if isinstance(entry.message, dict) else None
            if not isinstance(error, dict):
                return None, None
            code = error.get("code")
            data = error.get("data")
            reason = data.get("reason") if isinstance(data, dict) else None
            return (code if type(code) is int else None), (reason if isinstance(reason, str) else None)
        return None, None

    async def _reach_state(self, transport: ClientTransport, op_id: str, method: str, target: str,
                           arguments: dict[str, Any], at_round: int | None
                           ) -> tuple[RoundTrip, NeedInput] | tuple[str, str]:
        """Drive the operation honestly, through the one round-trip machine, up to the round whose
        requestState is to be attacked: (the machine, that round's input_required), or (what the
        server answered, why there is nothing to attack)."""
        machine = RoundTrip(self._first(method, target, arguments))
        step: Send | Failed = machine.start()
        while isinstance(step, Send):
            reply = await self._send(transport, step.message, op_id, step.round)
            event = machine.receive(reply)
            if not isinstance(event, NeedInput):
                break
            if (at_round is None and event.state is not None) or event.round == at_round:
                if event.state is None:
                    return "input_required without a requestState", f"round {event.round} carried no requestState"
                return machine, event
            step = machine.answer(await self.respond(event.requests, event.round), self.ids())
        last = machine.rounds[-1].response if machine.rounds else None
        where = "the operation did not answer input_required with a requestState"
        if at_round is not None and at_round > 1:
            where = f"the operation ended before round {at_round} ({where})"
        return classify(last)[1], where

    async def _deliver(self, attack: Attack, retry: Message, body: dict[str, Any], transport: ClientTransport,
                       op_id: str, method: str, target: str, other_target: str | None,
                       round_number: int = 2) -> tuple[Status, str, str]:
        send: Callable[[Message], Awaitable[Message | None]] = \
            lambda m: self._send(transport, m, op_id, round_number)  # noqa: E731
        kind = attack.id
        if kind == "invent" and await self._predictable(transport, retry, method, target, round_number - 1):
            forged = self._first(method, target, arguments_of(retry))
            forged["params"]["requestState"] = retry["params"]["requestState"]
            if retry["params"].get("inputResponses"):
                forged["params"]["inputResponses"] = retry["params"]["inputResponses"]
            return (*classify(await send(forged)),
                    f"wrote the state {tamper.state_of(retry)!r} by hand into a fresh request (no earlier round): "
                    "it is plain text and the same in every flow, so anyone can write it")
        if kind in ("flip-signature", "flip-payload", "truncate", "invent", "drop", "other-arguments"):
            change = {"flip-signature": tamper.flip_signature_byte, "flip-payload": tamper.flip_payload_byte,
                      "truncate": tamper.truncate_state, "drop": tamper.drop_state,
                      "invent": lambda m: tamper.invent_state(m, principal=self.target.identities[0]),
                      "other-arguments": tamper.change_arguments}[kind]
            try:
                tampered = change(retry)
            except ValueError:  # not the studio's v1 format: the state is opaque, change one character
                tampered = _opaque_flip(retry, -1 if kind == "flip-signature" else None)
            return (*classify(await send(tampered.message)), tampered.description)
        if kind == "other-tool":
            other = other_target or await self._other_target(transport, method, target)
            if other is None:
                return "skipped", "—", "the server offers no second target to reuse the state on"
            moved = tamper.reuse_on_tool(retry, other) if method != "resources/read" else _reuse_on_uri(retry, other)
            return (*classify(await send(moved.message)), moved.description)
        if kind == "expired":
            assert self.target.advance_clock is not None
            self.target.advance_clock(state_lifetime(str(body["requestState"])) + 1)
            try:
                return (*classify(await send(retry)), "moved the server's clock past the state's expiry")
            finally:
                if self.target.reset_clock:
                    self.target.reset_clock()
        if kind == "other-identity":
            other_transport = self._transport(str(self.target.identities[1]))
            reply = await self._send(other_transport, retry, op_id, round_number)
            return (*classify(reply), f"sent the retry as {self.target.identities[1]!r}")
        if kind == "twice":
            _, first_answer = classify(await send(retry))
            again = tamper.replay(retry, self.ids())
            status, answer = classify(await send(again.message))
            return status, answer, f"first use: {first_answer}; then {again.description}"
        if kind == "parallel":
            other = other_target or await self._other_target(transport, method, target)
            if other is None:
                return "skipped", "—", "the server offers no second target for a parallel request"
            parallel = self._first(method, other, {})
            parallel["params"]["inputResponses"] = retry["params"].get("inputResponses", {})
            parallel["params"]["requestState"] = retry["params"]["requestState"]
            legit, leaked = await asyncio.gather(send(retry), send(parallel))
            status, answer = classify(leaked)
            return status, answer, f"the parallel request to {other!r} carried this flow's state; " \
                                   f"the real retry got: {classify(legit)[1]}"
        raise ValueError(f"unknown attack {kind!r}")

    async def _predictable(self, transport: ClientTransport, retry: Message, method: str, target: str,
                           at_round: int) -> bool:
        """A state the studio cannot read, too plain to carry a MAC, that a second honest flow gets byte for
        byte again: an attacker can write it without the server (`step=confirmed`). A random handle the
        server keeps (different in every flow) or a signed state is not."""
        state = tamper.state_of(retry) or ""
        if not looks_forgeable(state):
            return False
        op = self.store.begin_operation(method, target, arguments_of(retry), "modern", self.target.label,
                                        label="lab: a second flow, to compare its state")
        reached = await self._reach_state(transport, op.id, method, target, arguments_of(retry), at_round)
        again = reached[1].state if isinstance(reached[1], NeedInput) else None
        self.store.finish_operation(op.id, "aborted", "compared its requestState with the attacked flow's")
        return again == state

    async def _other_target(self, transport: ClientTransport, method: str, target: str) -> str | None:
        listing = {"tools/call": ("tools/list", "tools", "name"), "prompts/get": ("prompts/list", "prompts", "name"),
                   "resources/read": ("resources/list", "resources", "uri")}[method]
        reply = await transport.send(jsonrpc.request(self.ids(), listing[0], {"_meta": self.settings.request_meta()}))
        items = (reply or {}).get("result", {}).get(listing[1], []) if isinstance(reply, dict) else []
        names = [str(item.get(listing[2])) for item in items if isinstance(item, dict)]
        return next((n for n in names if n != target), None)


def _opaque_flip(message: Message, index: int | None) -> tamper.Tampered:
    """Change one character of a state in a format the studio does not know (the last, or the middle one)."""
    token = tamper.state_of(message) or ""
    if not token:
        return tamper.drop_state(message)
    at = len(token) // 2 if index is None else index % len(token)
    changed = token[:at] + ("B" if token[at] != "B" else "C") + token[at + 1:]
    moved = json.loads(json.dumps(message))
    moved["params"]["requestState"] = changed
    where = "middle" if index is None else "last"
    return tamper.Tampered(moved, f"changed the {where} character of the (opaque, non-v1) requestState")


def _reuse_on_uri(message: Message, uri: str) -> tamper.Tampered:
    moved = json.loads(json.dumps(message))
    moved["params"]["uri"] = uri
    return tamper.Tampered(moved, f"reused the requestState on resource {uri!r}")


def arguments_of(message: Message) -> dict[str, Any]:
    params = message.get("params") or {}
    arguments = params.get("arguments")
    return dict(arguments) if isinstance(arguments, dict) else {}
