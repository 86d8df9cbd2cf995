"""A client with a broken retry loop, for `mrtr-studio check-client`: it alters the requestState,
reuses the first call's id and answers a boolean with a string. The URL is in $MRTR_STUDIO_URL."""

import os

import httpx

URL = os.environ["MRTR_STUDIO_URL"]
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bad", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
           "Mcp-Method": "tools/call", "Mcp-Name": "delete_file"}
params = {"name": "delete_file", "arguments": {"path": "/tmp/x"}, "_meta": META}
with httpx.Client(timeout=30, trust_env=False) as http:
    first = http.post(URL, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params},
                      headers=HEADERS).json()
    state = first["result"]["requestState"]
    altered = state[:-1] + ("A" if state[-1] != "A" else "B")
    retry = {**params, "requestState": altered,
             "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": "yes"}}}}
    http.post(URL, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": retry}, headers=HEADERS)
