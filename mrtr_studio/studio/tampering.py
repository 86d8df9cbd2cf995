"""The tamper actions the studio offers, by short name.

Message edits come from `client/tamper.py` (pure, each returns a new message and a sentence);
`expire` and `identity` act outside the message (the engine's clock, the transport's user) and
are done by the Studio itself.
"""

from collections.abc import Callable
from typing import Any

from ..client import tamper as edits

Message = dict[str, Any]

TAMPERS: dict[str, str] = {
    "signature": "flip one character of the requestState signature",
    "payload": "change one byte of the requestState payload (keeping the old signature)",
    "malformed": "truncate the requestState so it is no longer a token",
    "drop": "remove the requestState from the retry",
    "invent": "replace the requestState with one signed by another key",
    "arguments": "change the arguments the state was minted for",
    "expire": "move the engine's clock past the state's lifetime",
    "identity": "send the retry as someone else",
}

MESSAGE_TAMPERS: dict[str, Callable[[Message], edits.Tampered]] = {
    "signature": edits.flip_signature_byte,
    "payload": edits.flip_payload_byte,
    "malformed": edits.truncate_state,
    "drop": edits.drop_state,
    "invent": edits.invent_state,
    "arguments": edits.change_arguments,
}


def carries_state(message: Any) -> bool:
    return edits.state_of(message) is not None


def tamper_message(kind: str, message: Message) -> edits.Tampered:
    """A new message with `kind` applied (the input is not changed)."""
    if kind not in MESSAGE_TAMPERS:
        raise ValueError(f"{kind!r} does not edit the message")
    return MESSAGE_TAMPERS[kind](message)
