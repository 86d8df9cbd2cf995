"""The replay server: the engine (eras, initialize, discovery, listings, legacy sessions and their
server-initiated requests, the HTTP and stdio hosts) with its MRTR entry answered from a recording.

Each tools/call, prompts/get or resources/read is matched to a recorded round (`matcher`) and answered
with the recorded response under the request's own id. An input_required answer's requestState is
either the recorded token, byte for byte (`verbatim`: what the original server sent, expiry and
principal as they were then), or a fresh one the engine's StateCodec signs (`resign`: valid now,
bound to this request's method, target, arguments and principal, carrying the recorded position),
and the result's `_meta` says which (`REPLAY_META`), as does a line on stderr per answer.

The listings (tools/list, prompts/list, resources/list) are synthesized from the recorded targets,
since a trace keeps only MRTR operations: each tool accepts any object.
"""

import copy
import json
from collections.abc import Callable
from typing import Any, Literal

from ..engine import McpServer, ServerOptions, Session
from ..engine.handler_api import Notify, Request, Response
from ..engine.mrtr import input_responses_of, invalid_state
from ..engine.state_token import Binding, StateRejected
from ..engine.values import check_params
from ..protocol.errors import INVALID_PARAMS, McpError
from ..protocol.versions import Era
from .matcher import Incoming, Matcher, Mismatch, Position
from .recording import RecordedFlow, RecordedRound

StateMode = Literal["verbatim", "resign"]
#: The result `_meta` key of the replay note: which recorded round answered and how its state was made.
REPLAY_META = "mrtr-studio/replay"
Log = Callable[[str], None]


def _placeholder(session: Session, request: Request, response: Response) -> None:
    raise McpError(INVALID_PARAMS, "replayed targets are answered from the recording")


class ReplayServer(McpServer):
    def __init__(self, flows: list[RecordedFlow], mode: StateMode = "verbatim", strict: bool = True,
                 options: ServerOptions | None = None, log: Log | None = None,
                 name: str = "mrtr-studio-replay") -> None:
        super().__init__(name=name, options=options)
        self.options.mrtr.explain_rejections = True
        self.mode: StateMode = mode
        self.matcher = Matcher(flows, strict=strict)
        self.log = log
        self._states: dict[str, Position] = {}
        for index, flow in enumerate(flows):
            for recorded in flow.rounds:
                if recorded.state is not None:
                    self._states.setdefault(recorded.state, Position(index, recorded.number))
            self._register(flow)

    def _register(self, flow: RecordedFlow) -> None:
        note = f"replayed from the recording ({flow.label})"
        if flow.method == "tools/call" and flow.target not in self.registry.tools:
            self.tool(flow.target, note, {"type": "object"})(_placeholder)
        elif flow.method == "prompts/get" and flow.target not in self.registry.prompts:
            self.prompt(flow.target, note)(_placeholder)
        elif flow.method == "resources/read" and flow.target not in self.registry.resources:
            self.resource(flow.target, description=note)(_placeholder)

    def get_request_principal(self, session: Session) -> str:
        return session.user

    async def _serve_mrtr(self, method: str, params: dict[str, Any], message: dict[str, Any], session: Session,
                          era: Era, version: str, caps: dict[str, Any], notify: Notify | None) -> dict[str, Any]:
        check_params(params, self.options.max_argument_depth)
        input_responses_of(params)  # -32602 for answers that are not an object of objects
        incoming = Incoming.of(message)
        binding = Binding(method, incoming.target, incoming.arguments, self.get_request_principal(session))
        found = self._position(params, incoming, binding)
        if isinstance(found, Mismatch):
            self._say(f"{method} {incoming.target}: no match ({found.message})")
            raise McpError(found.code, found.message, found.data)
        recorded = self.matcher.round_at(found)
        if era is Era.LEGACY:
            for exchange in recorded.exchanges:  # the recorded server-initiated requests, asked again
                request = exchange.request
                await self.send_request(session.id, str(request.get("method")), request.get("params") or {})
        body, state = self._answer(recorded, found, binding)
        flow = self.matcher.flows[found.flow]
        self._say(f"{flow.label} round {found.round}: {recorded.kind}" + ("" if state == "none" else
                                                                          f" (requestState {state})"))
        return body

    def _position(self, params: dict[str, Any], incoming: Incoming, binding: Binding) -> Position | Mismatch:
        if "requestState" not in params:
            return self.matcher.retry_without_state(incoming) if incoming.answered else self.matcher.first(incoming)
        token = params["requestState"]
        if not isinstance(token, str):
            raise McpError(INVALID_PARAMS, "Invalid params: requestState must be a string")
        previous = self._resigned(token, binding) if self.mode == "resign" else self._states.get(token)
        if previous is None:
            if not self.matcher.strict:  # loose: a state the recording never issued, matched by its answers
                return self.matcher.retry_without_state(incoming, any_state=True)
            raise invalid_state("unknown", "this requestState is not one the recording issued", True)
        return self.matcher.after(previous, incoming)

    def _resigned(self, token: str, binding: Binding) -> Position:
        try:
            payload = self.codec.verify(token, binding)
        except StateRejected as rejected:
            raise invalid_state(rejected.reason, rejected.detail, True) from rejected
        try:
            where = json.loads(payload.get("s") or "")
            position = Position(int(where["flow"]), int(where["round"]))
            self.matcher.round_at(position)
        except (ValueError, KeyError, TypeError, IndexError):
            raise invalid_state("malformed", "the state names no recorded round", True) from None
        return position

    def _answer(self, recorded: RecordedRound, position: Position, binding: Binding) -> tuple[dict[str, Any], str]:
        response = recorded.response
        if not isinstance(response, dict):
            raise McpError(INVALID_PARAMS, f"Replay: the recording has no answer to round {position.round}")
        if "error" in response:
            error = response["error"] if isinstance(response["error"], dict) else {}
            code = error.get("code")
            raise McpError(code if type(code) is int else INVALID_PARAMS, str(error.get("message", "error")),
                           error.get("data"))
        body = copy.deepcopy(response.get("result"))
        if not isinstance(body, dict):
            raise McpError(INVALID_PARAMS, f"Replay: the recorded answer to round {position.round} has no result")
        state = "none"
        if isinstance(body.get("requestState"), str):
            if self.mode == "resign":
                body["requestState"] = self.codec.mint(binding, json.dumps({"flow": position.flow,
                                                                            "round": position.round}),
                                                       recorded.asked, position.round)
                state = "resigned"
            else:
                state = "verbatim"
        meta = body.get("_meta")
        meta = meta if isinstance(meta, dict) else {}
        body["_meta"] = {**meta, REPLAY_META: {"operation": self.matcher.flows[position.flow].operation_id,
                                               "round": position.round, "requestState": state}}
        return body, state

    def _say(self, line: str) -> None:
        if self.log is not None:
            self.log(f"replay: {line}")
