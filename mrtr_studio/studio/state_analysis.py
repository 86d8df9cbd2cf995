"""What the state inspector shows, computed without Qt: the token, its checks, the server's verdict, the diff.

Kept apart from the widget so it can be tested on a plain trace. It also names every payload field
and every check for people (PAYLOAD_FIELDS, CHECK_LABELS): the token's keys are single letters to
keep it short on the wire, which says nothing to someone learning what a requestState binds. `studio` is duck-typed: the
shell's controller offers `engine_secret`, `external_secrets`, `engine_now()` and `identity.user`;
anything missing simply makes the matching check "unknown", with the reason said.
"""

import time
from dataclasses import dataclass, field
from typing import Any

from ..engine.state_inspect import Check, Inspection, inspect_token
from ..engine.state_token import Binding, StateRejected, decode
from ..protocol.errors import INVALID_PARAMS
from ..states import Decoded, detect_format
from ..trace import TraceMessage, TraceStore
from ..trace.diagram_layout import request_state_of
from ..trace.model import params_of
from .foreign_state import as_inspection, decode_foreign

#: key -> (label, what it binds and why), in the order docs/architecture.md lists the payload.
PAYLOAD_FIELDS: dict[str, tuple[str, str]] = {
    "v": ("format version (v)", "The token format's version (1). Any other value is rejected, so a future format "
          "is never misread as this one."),
    "kid": ("key id (kid)", "Which of the server's keys signed the state. The first configured key signs and "
            "all of them verify, so keys can be rotated without breaking flows in progress."),
    "aud": ("audience (aud)", "The server the state was minted by (its name or configured audience). Another "
            "server sharing the secret refuses it, so a state cannot be carried from one service to another."),
    "iat": ("issued at (iat)", "When the server minted the state (unix seconds). A state issued more than 60 s "
            "in the future is rejected: the clocks disagree or the state was forged."),
    "exp": ("expires at (exp)", "iat plus the server's state TTL. After it the retry is rejected as expired, so "
            "an old round cannot be replayed for ever."),
    "m": ("method (m)", "The request method the state was minted for (tools/call, prompts/get, "
          "resources/read). A state cannot be carried over to another kind of request."),
    "n": ("target name (n)", "The tool or prompt name, or the resource URI. A state minted for one tool cannot "
          "authorise a call to another."),
    "a": ("arguments digest (a)", "SHA-256 of the canonical JSON of the request's arguments. The retry must "
          "carry the same arguments, so answers given for one call cannot complete a different one."),
    "p": ("principal (p)", "Who the request was authenticated as. Another user cannot pick up this state and "
          "finish the flow as themselves."),
    "k": ("asked inputs (k)", "The input keys the server asked for, with their methods. Only answers to these "
          "keys are read on the retry; others are ignored."),
    "r": ("round (r)", "Which round of the multi-round flow minted the state, so the handler knows how far "
          "the conversation has come."),
    "nonce": ("nonce", "Random for every state, so two states for the same request are never equal and one "
              "cannot be predicted from another."),
    "s": ("handler state (s)", "The handler's own data carried to the next round. Signed, not encrypted: the "
          "client can read it but cannot change it."),
}
#: The two raw parts of the token, compared in the diff too: a changed byte shows even when the
#: payload no longer decodes or decodes to the same fields.
TOKEN_PARTS: dict[str, tuple[str, str]] = {
    "payload bytes": ("payload bytes", "The base64url payload exactly as sent. The signature covers these bytes, "
                      "so changing any of them breaks it."),
    "signature": ("signature", "HMAC-SHA256 over 'v1.' and the payload bytes, with the server's key. Only the "
                  "server can make one; a changed character means the state was altered."),
}
#: check name (as the engine and data.reason say it) -> (label, what it verifies).
CHECK_LABELS: dict[str, tuple[str, str]] = {
    "malformed": ("shape", "v1.<payload>.<signature>, strict base64url, a JSON payload with every field of the "
                  "right type (the server's reason for a failure: malformed)"),
    "signature": ("signature", "the HMAC over the payload bytes matches one of the server's keys"),
    "audience": ("audience", "the state was minted for this server: its aud is one of the names the server "
                 "answers to (reason: audience)"),
    "expired": ("expiry", "now is before exp, and iat is at most 60 s in the future (reason: expired)"),
    "method": ("method", "the retry's method is the one the state was minted for"),
    "name": ("name", "the retry targets the same tool, prompt or resource"),
    "arguments": ("arguments", "the digest of the retry's arguments equals the bound digest"),
    "principal": ("principal", "the retry comes from the same authenticated principal"),
}


def field_label(key: str) -> tuple[str, str]:
    """(label, tooltip) for a payload key or token part; unknown keys say so."""
    return PAYLOAD_FIELDS.get(key) or TOKEN_PARTS.get(key) or (key, "A field this studio does not know.")


def check_label(name: str) -> tuple[str, str]:
    return CHECK_LABELS.get(name, (name, ""))


def token_parts(token: str | None) -> tuple[str, str] | None:
    """(payload bytes, signature) as sent, or None when the token has no such shape."""
    if not isinstance(token, str) or not token.startswith("v1."):
        return None
    body, dot, signature = token[3:].partition(".")
    return (body, signature) if dot else None


def token_diff(before: str | None, after: str | None) -> list[tuple[str, Any, Any]]:
    """The token's raw payload bytes and signature, before and after (as payload_diff rows)."""
    old, new = token_parts(before), token_parts(after)
    return [(name, old[index] if old else None, new[index] if new else None)
            for index, name in enumerate(("payload bytes", "signature"))]


def first_difference(before: Any, after: Any) -> int | None:
    """Where two texts first differ (None when equal or not both text)."""
    if not isinstance(before, str) or not isinstance(after, str) or before == after:
        return None
    return next((i for i, (x, y) in enumerate(zip(before, after, strict=False)) if x != y),
                min(len(before), len(after)))


NO_SECRET = ("cannot be verified without the server's secret; method, name, arguments and principal are "
             "compared with the request that carried it")


@dataclass
class StateView:
    token: str
    entry: TraceMessage
    inspection: Inspection
    embedded: bool
    #: The check the server named in a -32602 rejection of the request carrying this state.
    rejected: str | None = None
    rejection_detail: str = ""
    #: (field, before, after) for every payload field, and what the state is compared with.
    diff: list[tuple[str, Any, Any]] = field(default_factory=list)
    diff_against: str = ""
    #: The state's format (`states.detect_format`); for any but the studio's, what its decoder said.
    format: str = "studio"
    decoded: Decoded | None = None


def _request_for(store: TraceStore, entry: TraceMessage) -> TraceMessage | None:
    """The client request a state is checked against: the retry carrying it, else the request it answered."""
    messages = store.messages_of(entry.operation_id)
    if entry.kind == "request":
        return entry
    token = request_state_of(entry)
    carrying = [m for m in messages if m.kind == "request" and request_state_of(m) == token]
    if carrying:
        return carrying[0]
    answered = [m for m in messages if m.kind == "request" and m.jsonrpc_id == entry.jsonrpc_id]
    return answered[0] if answered else None


def _response_to(store: TraceStore, request: TraceMessage) -> TraceMessage | None:
    for m in store.messages_of(request.operation_id):
        if m.direction == "server->client" and m.seq > request.seq and m.jsonrpc_id == request.jsonrpc_id \
                and m.kind in ("error", "complete", "input_required"):
            return m
    return None


def rejection_of(response: TraceMessage | None) -> tuple[str | None, str]:
    """The failed check a -32602 "Invalid requestState" names in data.reason (None when accepted)."""
    error = response.message.get("error") if response and isinstance(response.message, dict) else None
    if not isinstance(error, dict) or error.get("code") != INVALID_PARAMS:
        return None, ""
    data = error.get("data")
    if isinstance(data, dict) and isinstance(data.get("reason"), str):
        return data["reason"], str(data.get("detail") or "")
    return None, ""


def _issued_states(store: TraceStore, operation_id: str) -> list[TraceMessage]:
    return [m for m in store.messages_of(operation_id) if m.kind == "input_required" and request_state_of(m)]


def _payload(token: str | None) -> dict[str, Any] | None:
    try:
        return decode(token).payload if token else None
    except StateRejected:
        return None


def payload_diff(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[tuple[str, Any, Any]]:
    """(key, before, after) for every payload field of either side, in the earlier one's order."""
    keys = list((before or {}).keys()) + [k for k in (after or {}) if k not in (before or {})]
    return [(k, (before or {}).get(k), (after or {}).get(k)) for k in keys]


def _previous_state(store: TraceStore, entry: TraceMessage, token: str) -> tuple[str | None, str]:
    """What to diff with: the state issued just before this one; for a retry whose state is not the
    one the server issued (tampered), the issued one."""
    issued = _issued_states(store, entry.operation_id)
    tokens = [request_state_of(m) for m in issued]
    if entry.kind == "request" and token not in tokens:
        earlier = [t for m, t in zip(issued, tokens, strict=True) if m.seq < entry.seq]
        return (earlier[-1], "the state the server issued (this one was changed)") if earlier else (None, "")
    if token in tokens:
        index = tokens.index(token)
        if index > 0:
            return tokens[index - 1], "the previous round's state"
    return None, ""


def analyse(store: TraceStore, entry: TraceMessage, studio: Any = None, state_keys: Any = None) -> StateView | None:
    """Everything the inspector shows for one message, or None when it carries no requestState.

    `state_keys` (studio.state_keys.StateKeys) holds the keys remembered per server for other formats."""
    token = request_state_of(entry)
    if token is None:
        return None
    operation = store.operation(entry.operation_id)
    embedded = operation.server == "embedded"
    if not embedded and _foreign(token):
        return _foreign_view(store, entry, token, studio, operation.server, state_keys)
    secrets = _secrets(studio, embedded)
    now = studio.engine_now() if embedded and hasattr(studio, "engine_now") else time.time()
    request = _request_for(store, entry)
    binding = None
    if request is not None:
        params = params_of(request.message)
        name = params.get("uri") if request.method == "resources/read" else params.get("name")
        binding = Binding(str(request.method), str(name), params.get("arguments") or {}, "")
    engine = getattr(studio, "engine", None) if embedded else None
    ttl = engine.codec.ttl if engine is not None else None  # the embedded engine's TTL bounds exp - iat
    audiences = list(getattr(engine.codec, "audiences", None) or []) or None if engine is not None else None
    inspection = inspect_token(token, secrets=secrets or None, binding=binding, now=now, ttl=ttl, audiences=audiences)
    _explain(inspection, secrets)
    view = StateView(token, entry, inspection, embedded)
    if request is not None and request_state_of(request) == token:
        response = _response_to(store, request)
        view.rejected, view.rejection_detail = rejection_of(response)
        _overlay_verdict(inspection, response, view.rejected, view.rejection_detail)
    before, view.diff_against = _previous_state(store, entry, token)
    if before is not None:
        view.diff = payload_diff(_payload(before), inspection.payload) + token_diff(before, token)
    return view


def _foreign(token: str) -> bool:
    """Another format's state; a damaged `v1.` one keeps the studio's view, which says what is malformed."""
    found = detect_format(token)
    return found != "studio" and not (found == "opaque" and token.startswith("v1."))


def _foreign_view(store: TraceStore, entry: TraceMessage, token: str, studio: Any, server: str,
                  state_keys: Any) -> StateView:
    """Another format's state: its decoder's checks, no studio-specific diff or verdict overlay."""
    decoded = decode_foreign(store, entry, token, _request_for(store, entry), studio, server, state_keys)
    view = StateView(token, entry, as_inspection(token, decoded), False, format=decoded.format, decoded=decoded)
    request = _request_for(store, entry)
    if request is not None and request_state_of(request) == token:
        view.rejected, view.rejection_detail = rejection_of(_response_to(store, request))
    return view


def _secrets(studio: Any, embedded: bool) -> list[str]:
    if studio is None:
        return []
    if embedded:
        secret = getattr(studio, "engine_secret", None)
        return [secret] if isinstance(secret, str) and secret else []
    return [s for s in getattr(studio, "external_secrets", None) or [] if isinstance(s, str)]


def _explain(inspection: Inspection, secrets: list[str]) -> None:
    """Say plainly what could not be checked, and why (the trace does not record who sent a request)."""
    for index, check in enumerate(inspection.checks):
        if check.name == "signature" and check.status == "unknown" and not secrets:
            inspection.checks[index] = Check(check.name, check.status, "the signature " + NO_SECRET)
        if check.name == "principal" and inspection.payload is not None:
            inspection.checks[index] = Check(
                "principal", "unknown", f"bound to {inspection.payload['p']!r}; the trace does not say who sent it")


_SERVER_CHECKS = ("signature", "audience", "method", "name", "arguments", "principal")


def _overlay_verdict(inspection: Inspection, response: TraceMessage | None, rejected: str | None,
                     detail: str) -> None:
    """The server's answer to the request carrying the state settles what the trace alone cannot."""
    if response is None:
        return
    error = response.message.get("error") if isinstance(response.message, dict) else None
    if rejected is None and isinstance(error, dict) and error.get("code") == INVALID_PARAMS:
        return  # rejected without saying why: nothing is settled
    for index, check in enumerate(inspection.checks):
        if rejected is not None and check.name == rejected:
            inspection.checks[index] = Check(check.name, "fail", f"the server rejected it: {detail or rejected}")
        elif rejected is None and check.name == "signature" and check.status == "unknown":
            inspection.checks[index] = Check(check.name, check.status,
                                             check.why + " (the server itself accepted the request carrying it)")
        elif rejected is None and check.name in _SERVER_CHECKS and check.status == "unknown":
            inspection.checks[index] = Check(check.name, "pass", "the server accepted the request carrying it")


def ttl_left(view: StateView, studio: Any = None) -> float | None:
    """Seconds until the state expires (negative once expired), on the engine's clock when embedded."""
    payload = view.inspection.payload
    expires = payload.get("exp") if payload else None
    if isinstance(expires, bool) or not isinstance(expires, int | float):
        return None  # no expiry (an opaque state, a JWT without exp)
    now = studio.engine_now() if view.embedded and hasattr(studio, "engine_now") else time.time()
    return float(expires) - now
