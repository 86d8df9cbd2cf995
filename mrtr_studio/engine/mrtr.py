"""One MRTR-capable request (tools/call, prompts/get, resources/read) from params to wire result.

The order matters and is the protocol's: parse and validate params, verify the echoed
requestState (before any handler code runs), run the handler, then either complete or turn its
input requests into `input_required` after checking era and declared capabilities.
"""

import inspect
from dataclasses import dataclass
from typing import Any

from ..protocol import capabilities
from ..protocol.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    McpError,
)
from ..protocol.token_format import arguments_digest
from ..protocol.versions import Era
from .handler_api import Request, RequestParams, Response
from .once import once
from .server_session import Session
from .state_token import StateCodec, StateRejected

LEGACY_INPUT_MESSAGE = "input_required needs protocol 2026-07-28"
_CAPABILITY_WORDS = {"elicitation": "elicitation", "sampling": "sampling", "roots": "roots"}


@dataclass
class Call:
    """Everything about the incoming request the engine has established before the handler runs;
    also what its requestState is bound to (`state_token.Bound`: method, target, principal and the
    arguments' digest), read by verification and minting alike."""

    method: str
    #: The tool or prompt name, or the resource URI (the state's `n`).
    target: str
    arguments: dict[str, Any]
    era: Era
    protocol_version: str
    client_capabilities: dict[str, Any]
    principal: str
    raw: dict[str, Any]
    #: What the state binds when it is more than the arguments (draft SEP-3221: the secure arguments too).
    bound: dict[str, Any] | None = None

    @once
    def digest(self) -> str:
        """The bound arguments' digest, computed once per request however often it is compared or minted."""
        return arguments_digest(self.arguments if self.bound is None else self.bound)


def input_responses_of(params: dict[str, Any]) -> dict[str, dict[str, Any]]:
    if "inputResponses" not in params:
        return {}
    value = params["inputResponses"]
    if isinstance(value, dict):
        for answer in value.values():  # a loop, not all() over a generator: this runs on every retry
            if not isinstance(answer, dict):
                break
        else:
            return value
    raise McpError(INVALID_PARAMS, "Invalid params: inputResponses must be an object of objects")


@dataclass(slots=True)
class Verified:
    """What a verified requestState tells the engine (all None/empty on a first call)."""

    state: str | None = None
    round: int = 1
    asked: dict[str, Any] | None = None
    nonce: str | None = None
    expires: int | None = None


def verify_state(codec: StateCodec, call: Call, explain: bool) -> Verified:
    """Verify the echoed requestState, if any, before any handler code runs."""
    params = call.raw.get("params") or {}
    if "requestState" not in params:
        return Verified()
    token = params["requestState"]
    if not isinstance(token, str):
        raise McpError(INVALID_PARAMS, "Invalid params: requestState must be a string")
    try:
        payload = codec.verify(token, call)
    except StateRejected as rejected:
        raise invalid_state(rejected.reason, rejected.detail, explain) from rejected
    previous = payload.get("r")
    asked = payload.get("k")
    # positional (state, round, asked, nonce, expires): keywords cost a third more in a dataclass's __init__
    return Verified(payload.get("s"), previous + 1 if isinstance(previous, int) else 2,
                    asked if isinstance(asked, dict) else {}, str(payload.get("nonce")), payload["exp"])


def invalid_state(reason: str, detail: str, explain: bool) -> McpError:
    return McpError(INVALID_PARAMS, "Invalid requestState", {"reason": reason, "detail": detail} if explain else None)


async def run_handler(handler: Any, session: Session, request: Request, response: Response) -> None:
    try:
        outcome = handler(session, request, response)
        if outcome is not None and inspect.isawaitable(outcome):  # a plain function returns None: no ABC check
            await outcome
    except McpError:
        raise
    except Exception as exc:  # a handler bug must not take the engine down or leak details
        raise McpError(INTERNAL_ERROR, "Internal error: the handler failed") from exc


def input_required_result(
    codec: StateCodec, call: Call, response: Response, round_number: int
) -> dict[str, Any]:
    builder = response.input_required
    if call.era is Era.LEGACY:
        raise McpError(INTERNAL_ERROR, LEGACY_INPUT_MESSAGE)
    lacking = capabilities.missing(call.client_capabilities, builder.requests)
    if lacking:
        words = " and ".join(_describe(lacking))
        raise McpError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            f"Server requires the {words} capability for this request",
            {"requiredCapabilities": lacking},
        )
    asked = {key: entry["method"] for key, entry in builder.requests.items()}
    result: dict[str, Any] = {"resultType": "input_required"}
    if builder.meta:
        result["_meta"] = dict(builder.meta)
    if builder.requests:
        result["inputRequests"] = builder.requests
    try:
        result["requestState"] = codec.mint(call, builder.request_state, asked, round_number)
    except ValueError as exc:  # the handler's state (or the request it is bound to) is too large to carry
        raise McpError(INTERNAL_ERROR, f"Internal error: {exc}") from exc
    return result


def _describe(lacking: dict[str, Any]) -> list[str]:
    words = []
    for name, sub in lacking.items():
        words += [f"{name}.{s}" for s in sub] if sub else [name]
    return words


def make_request(call: Call, verified: Verified, bind_inputs: bool) -> Request:
    """The handler's view; with `bind_inputs`, only answers to questions the verified state asked count."""
    params = call.raw.get("params") or {}
    responses = input_responses_of(params)
    if bind_inputs and responses:
        asked = verified.asked or {}
        responses = {key: value for key, value in responses.items() if key in asked}
    method = call.method
    # positional: keyword arguments cost a third more in a dataclass's __init__, on every request
    return Request(method, RequestParams(call.target, call.arguments, verified.state,
                                         call.target if method == "resources/read" else None),
                   call.era, call.client_capabilities, call.principal, call.protocol_version, verified.round,
                   responses, call.raw)
