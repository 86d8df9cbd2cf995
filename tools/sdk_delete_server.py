"""The benchmark's reference: `delete_file` on the official Python SDK's own server (mcp 2.3.0).

Same behaviour as the demo's tool, written with the SDK's MRTR API (a tool that returns an
InputRequiredResult and reads `ctx.input_responses`), with sealed requestState like ours. Run as
`python tools/sdk_delete_server.py PORT`; prints `listening on URL` once it accepts connections.
"""

import asyncio
import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult

SCHEMA = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
mcp = MCPServer("sdk-bench", request_state_security=RequestStateSecurity(keys=[b"b" * 32]))


@mcp.tool()
async def delete_file(path: str, ctx: Context) -> str | InputRequiredResult:
    """Delete a file after the user confirms."""
    answers = ctx.input_responses or {}
    answer = answers.get("confirm")
    if not isinstance(answer, ElicitResult):
        params = ElicitRequestFormParams(message=f"Delete the file {path}?", requested_schema=SCHEMA)
        return InputRequiredResult(input_requests={"confirm": ElicitRequest(params=params)}, request_state="step=1")
    return "File deleted" if answer.action == "accept" else "Operation cancelled"


async def main(port: int) -> None:
    app = mcp.streamable_http_app(stateless_http=True, json_response=True, host="127.0.0.1")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           access_log=False))
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    print(f"listening on http://127.0.0.1:{port}/mcp", flush=True)
    await task


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
