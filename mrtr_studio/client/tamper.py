"""Pure ways to break a pending retry, so the server's requestState checks can be watched failing.

Every function takes the retry message (a JSON-RPC request dict), never changes it, and returns a
`Tampered(message, description)`: the new message and one line for the log. Identity changes and
"wait past expiry" are not message edits; the studio controller does those (transport user, engine
clock). Tokens are taken apart with the wire format's own helpers (protocol/token_format), not
with the engine that mints them: the same edits work on any server's v1 tokens.
"""

import copy
import json
import os
import time
from typing import Any, NamedTuple

from .. import defaults
from ..protocol.token_format import PREFIX, arguments_digest, b64url_decode, b64url_encode, canonical_json
from ..trace.model import params_of

Message = dict[str, Any]


class Tampered(NamedTuple):
    message: Message
    description: str


def state_of(message: Message) -> str | None:
    token = params_of(message).get("requestState")
    return token if isinstance(token, str) else None


def _with_state(message: Message, token: str | None) -> Message:
    new = copy.deepcopy(message)
    params = new.setdefault("params", {})
    if token is None:
        params.pop("requestState", None)
    else:
        params["requestState"] = token
    return new


def _parts(message: Message) -> tuple[str, str]:
    token = state_of(message)
    if token is None or not token.startswith(PREFIX) or token.count(".") != 2:
        raise ValueError("the message carries no v1 requestState")
    payload, signature = token[len(PREFIX):].split(".")
    return payload, signature


def _flip_b64_char(text: str, index: int) -> str:
    """Change one base64url character so the decoded bytes differ but the text stays canonical."""
    index %= len(text)
    # Near the end, the last character's low bits may be padding: change its high bits instead.
    replacement = "Q" if text[index] in "ABCDEFGHIJKLMNOP" else "A"
    return text[:index] + replacement + text[index + 1 :]


def flip_signature_byte(message: Message, index: int = 0) -> Tampered:
    payload, signature = _parts(message)
    token = f"{PREFIX}{payload}.{_flip_b64_char(signature, index)}"
    return Tampered(_with_state(message, token), f"flipped a bit of the requestState signature (char {index})")


def flip_payload_byte(message: Message) -> Tampered:
    """Change one character of the payload's nonce: the JSON stays valid, only the signature breaks."""
    payload, signature = _parts(message)
    data = json.loads(b64url_decode(payload))
    nonce = str(data.get("nonce") or "x")
    data["nonce"] = ("B" if nonce[0] != "B" else "C") + nonce[1:]
    token = f"{PREFIX}{b64url_encode(canonical_json(data))}.{signature}"
    return Tampered(_with_state(message, token), "changed one byte of the requestState payload (its nonce)")


def edit_payload(message: Message, field: str, value: Any) -> Tampered:
    """Rewrite one payload field (say `exp` or `p`) keeping the old signature, as a forger would."""
    payload, signature = _parts(message)
    data = json.loads(b64url_decode(payload))
    data[field] = value
    token = f"{PREFIX}{b64url_encode(canonical_json(data))}.{signature}"
    said = json.dumps(value, default=str)  # JSON, as in the payload
    return Tampered(_with_state(message, token), f"set payload field {field!r} to {said} without re-signing")


def truncate_state(message: Message, keep: int | None = None) -> Tampered:
    token = state_of(message)
    if token is None:
        raise ValueError("the message carries no requestState")
    keep = len(token) // 2 if keep is None else keep
    return Tampered(_with_state(message, token[:keep]), f"truncated the requestState to {keep} characters")


def drop_state(message: Message) -> Tampered:
    return Tampered(_with_state(message, None), "removed the requestState from the retry")


def invent_state(message: Message, principal: str = "", now: float | None = None,
                 ttl: int = defaults.STATE_TTL) -> Tampered:
    """A plausible v1 state for this request, signed with a random key the server does not have."""
    params = message.get("params") or {}
    issued = int(time.time() if now is None else now)
    name = params.get("uri") if message.get("method") == "resources/read" else params.get("name")
    data = {
        "v": 1, "kid": "00000000", "aud": _audience_of(state_of(message)), "iat": issued, "exp": issued + ttl,
        "m": str(message.get("method")),
        "n": str(name), "a": arguments_digest(params.get("arguments")),
        "p": principal, "k": {}, "r": 1, "nonce": b64url_encode(os.urandom(9)), "s": None,
    }
    token = f"{PREFIX}{b64url_encode(canonical_json(data))}.{b64url_encode(os.urandom(32))}"
    return Tampered(_with_state(message, token), "replaced the requestState with a fresh one signed by another key")


def _audience_of(token: str | None) -> str | None:
    """The `aud` of the state being replaced (readable: it is signed, not encrypted), so the invented one
    differs only in its key; None when there is none to copy."""
    if not token or not token.startswith(PREFIX) or len(token) > 64 * 1024:
        return None
    try:
        payload = json.loads(b64url_decode(token[len(PREFIX):].partition(".")[0]))
    except (ValueError, RecursionError):
        return None
    aud = payload.get("aud") if isinstance(payload, dict) else None
    return aud if isinstance(aud, str) else None


def swap_state(message: Message, other_state: str, origin: str = "another operation") -> Tampered:
    return Tampered(_with_state(message, other_state), f"swapped in the requestState from {origin}")


def change_arguments(message: Message, arguments: dict[str, Any] | None = None) -> Tampered:
    """New arguments (default: the old ones plus `tampered: true`); the state is bound to the old ones."""
    new = copy.deepcopy(message)
    params = new.setdefault("params", {})
    old = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
    params["arguments"] = dict(arguments) if arguments is not None else {**old, "tampered": True}
    sent = json.dumps(params["arguments"], ensure_ascii=False, default=str)  # said in JSON, as on the wire
    return Tampered(new, f"changed the arguments to {sent}")


def replay(message: Message, new_id: str | int) -> Tampered:
    """The same retry again under a new id (send it after the first one completed)."""
    new = copy.deepcopy(message)
    new["id"] = new_id
    return Tampered(new, f"replayed the retry with id {new_id!r}")


def reuse_on_tool(message: Message, tool: str, arguments: dict[str, Any] | None = None) -> Tampered:
    """The retry's state and answers sent to another tool (the state is bound to the first)."""
    new = copy.deepcopy(message)
    params = new.setdefault("params", {})
    params["name"] = tool
    if arguments is not None:
        params["arguments"] = dict(arguments)
    return Tampered(new, f"reused the requestState on tool {tool!r}")


#: The message-only tampers a menu can offer without asking for anything (name -> function).
SIMPLE_TAMPERS = {
    "Flip a signature byte": flip_signature_byte,
    "Flip a payload byte": flip_payload_byte,
    "Truncate the state": truncate_state,
    "Drop the state": drop_state,
    "Invent an unsigned state": invent_state,
    "Change the arguments": change_arguments,
}
