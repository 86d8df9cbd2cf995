"""Ways to break a retry so the server's requestState checks can be watched failing.

`expire` and `identity` act outside the message (the engine's clock, the transport's user); the
others edit the held retry in place and say what they did.
"""

from typing import Any

Message = dict[str, Any]

TAMPERS: dict[str, str] = {
    "signature": "flip one character of the requestState signature",
    "malformed": "replace the requestState with text that is not a token",
    "arguments": "change the arguments the state was minted for",
    "expire": "move the engine's clock past the state's lifetime",
    "identity": "send the retry as someone else",
}


def carries_state(message: Any) -> bool:
    params = message.get("params") if isinstance(message, dict) else None
    return isinstance(params, dict) and isinstance(params.get("requestState"), str)


def _flip(char: str) -> str:
    return "A" if char != "A" else "B"


def tamper_message(kind: str, message: Message) -> str:
    """Edit `message` (a retry carrying a requestState) in place; returns a sentence for the log."""
    params = message["params"]
    token: str = params["requestState"]
    if kind == "signature":
        params["requestState"] = token[:-1] + _flip(token[-1]) if token else "A"
        return "flipped the last character of the requestState signature"
    if kind == "malformed":
        params["requestState"] = "not-a-request-state"
        return "replaced the requestState with text that is not a token"
    if kind == "arguments":
        arguments = params.get("arguments")
        if isinstance(arguments, dict):
            params["arguments"] = {**arguments, "tampered": True}
        else:
            params["arguments"] = {"tampered": True}
        return "added an argument the state was not minted for"
    raise ValueError(f"{kind!r} does not edit the message")
