"""A small modern-only MCP server on stdio that gets one MRTR rule wrong, for `mrtr-studio check`.

`accept-tampered`: its requestState is plain text, never verified: any state completes the call.
`forget-caps`: states are checked (only those it issued), but a missing elicitation capability gets
-32021 without `requiredCapabilities`. Reads one JSON-RPC message per line; exits at end of input.
"""

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
    if state is None or "inputResponses" not in params:
        token = f"plain-{secrets.token_hex(4)}"
        ISSUED.add(token)
        return {**reply, "result": {"resultType": "input_required", "requestState": token, "inputRequests": {
            "confirm": {"method": "elicitation/create",
                        "params": {"mode": "form", "message": "Sure?", "requestedSchema": SCHEMA}}}}}
    if MODE != "accept-tampered" and state not in ISSUED:
        return {**reply, "error": {"code": -32602, "message": "Invalid requestState"}}
    return {**reply, "result": {"resultType": "complete", "content": [{"type": "text", "text": "done"}]}}


for line in sys.stdin:
    try:
        out = answer(json.loads(line))
    except ValueError:
        out = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    if out is not None:
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
