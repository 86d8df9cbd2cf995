"""A legacy (2025-11-25) client for `mrtr-studio check-client` that answers a roots/list it never declared:
its initialize declares elicitation only, then count_roots's server-initiated roots/list gets a result.
The URL is in $MRTR_STUDIO_URL."""

import json
import os

import httpx

URL = os.environ["MRTR_STUDIO_URL"]
ACCEPT = {"Accept": "application/json, text/event-stream"}
with httpx.Client(timeout=30, trust_env=False) as http:
    opened = http.post(URL, headers=ACCEPT, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "liar", "version": "1"}}})
    session = {**ACCEPT, "Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
    http.post(URL, headers=session, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "count_roots", "arguments": {}}}
    with http.stream("POST", URL, headers=session, json=call) as response:
        for line in response.iter_lines():
            message = json.loads(line[5:]) if line.startswith("data:") else {}
            if message.get("method") == "roots/list":
                http.post(URL, headers=session, json={"jsonrpc": "2.0", "id": message["id"],
                                                      "result": {"roots": [{"uri": "file:///secret"}]}})
            elif message.get("id") == 2:
                print(json.dumps(message["result"]["content"][0]["text"]))
                break
    http.delete(URL, headers=session)
