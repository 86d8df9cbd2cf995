"""A small modern-only MCP server on stdio that gets one MRTR rule wrong, for `mrtr-studio check`.

`accept-tampered`: its requestState is plain text, never verified: any state completes the call.
`forget-caps`: states are checked (only those it issued), but a missing elicitation capability gets
-32021 without `requiredCapabilities`.
`late-plain`: asks first without a state and mints one only in round 2, as plain text the same in every
flow (`step=confirmed`): anyone can write it, so a hand-written state deploys without asking.
`late-signed`: the same flow with an HMAC-signed round-2 state; tampered states are rejected, but with
-32600 instead of -32602 (a rejection is what the spec requires; the code is a SHOULD).
Reads one JSON-RPC message per line; exits at end of input.
"""

import hashlib
import hmac
import json
import secrets
import sys

MODE = sys.argv[1]
ISSUED: set[str] = set()
SCHEMA = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
TOOLS = [{"name": name, "inputSchema": {"type": "object"}} for name in ("confirm_tool", "other_tool")]


def answer(message: dict) -> dict | None:
    if "id" not in message or "method" not in message:
        return None
    reply = {"jsonrpc": "2.0", "id": message["id"]}
    params = message.get("params") or {}
    if message["method"] == "tools/list":
        return {**reply, "result": {"resultType": "complete", "tools": TOOLS}}
    if message["method"] != "tools/call":
        return {**reply, "error": {"code": -32601, "message": "Method not found"}}
    caps = (params.get("_meta") or {}).get("io.modelcontextprotocol/clientCapabilities") or {}
    if "elicitation" not in caps:
        data = {} if MODE == "forget-caps" else {"data": {"requiredCapabilities": {"elicitation": {}}}}
        return {**reply, "error": {"code": -32021, "message": "Missing required client capability", **data}}
    state = params.get("requestState")
    if MODE in ("late-plain", "late-signed"):
        return {**reply, **late(params)}
    if state is None or "inputResponses" not in params:
        token = f"plain-{secrets.token_hex(4)}"
        ISSUED.add(token)
        return {**reply, "result": {"resultType": "input_required", "requestState": token, "inputRequests": {
            "confirm": {"method": "elicitation/create",
                        "params": {"mode": "form", "message": "Sure?", "requestedSchema": SCHEMA}}}}}
    if MODE != "accept-tampered" and state not in ISSUED:
        return {**reply, "error": {"code": -32602, "message": "Invalid requestState"}}
    return {**reply, "result": {"resultType": "complete", "content": [{"type": "text", "text": "done"}]}}


KEY = secrets.token_bytes(32)
ASK = {"confirm": {"method": "elicitation/create",
                   "params": {"mode": "form", "message": "Deploy?", "requestedSchema": SCHEMA}}}


def seal(text: str) -> str:
    return text + "." + hmac.new(KEY, text.encode(), hashlib.sha256).hexdigest()


def late(params: dict) -> dict:
    """Round 1 asks (no state); round 2 mints the state; round 3 deploys if the state says so."""
    state = params.get("requestState")
    answers = params.get("inputResponses") or {}
    if state is None:
        confirmed = (answers.get("confirm") or {}).get("content", {}).get("confirm") is True
        if not confirmed:
            return {"result": {"resultType": "input_required", "inputRequests": ASK}}
        minted = "step=confirmed" if MODE == "late-plain" else seal(f"step=confirmed;n={secrets.token_hex(8)}")
        return {"result": {"resultType": "input_required", "requestState": minted}}
    if MODE == "late-signed":
        text = state.rpartition(".")[0]
        if not text or not hmac.compare_digest(seal(text), state):
            return {"error": {"code": -32600, "message": "bad state"}}
        state = text.split(";")[0]
    if state != "step=confirmed":
        return {"error": {"code": -32600, "message": "bad state"}}
    return {"result": {"resultType": "complete", "content": [{"type": "text", "text": "deployed"}]}}


for line in sys.stdin:
    try:
        out = answer(json.loads(line))
    except ValueError:
        out = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    if out is not None:
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
