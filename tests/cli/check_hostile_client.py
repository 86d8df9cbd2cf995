"""A hostile client for `mrtr-studio check-client`: its retry answers a key that is all terminal control
sequences (and characters XML 1.0 forbids), and with `--junk` it prints junk to stdout and stderr, so
the reports must stay safe and `--json`'s stdout must stay one document. The URL is in $MRTR_STUDIO_URL."""

import os
import sys

import httpx

HOSTILE_KEY = "\x1b[2J\x1b[31mowned\x07\x00\u202e"
URL = os.environ["MRTR_STUDIO_URL"]
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "hostile", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
           "Mcp-Method": "tools/call", "Mcp-Name": "delete_file"}
if "--junk" in sys.argv:
    print('{"passed": true, "junk": "not the report"}\n\x1b[2Jjunk on stdout', flush=True)
    print("junk on stderr", file=sys.stderr, flush=True)
params = {"name": "delete_file", "arguments": {"path": "/tmp/x"}, "_meta": META}
with httpx.Client(timeout=30, trust_env=False) as http:
    first = http.post(URL, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params},
                      headers=HEADERS).json()
    answer = {"action": "accept", "content": {"confirm": True}}
    retry = {**params, "requestState": first["result"]["requestState"],
             "inputResponses": {"confirm": answer, HOSTILE_KEY: answer}}
    http.post(URL, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": retry}, headers=HEADERS)
