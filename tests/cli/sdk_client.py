"""A real client for `mrtr-studio check-client`: the official Python SDK (mcp 2.x), answering the
server's questions only through the SDK's callbacks, so the grade judges the SDK's own loop.

Usage: `python sdk_client.py URL ERA` with ERA `legacy` (the initialize handshake: the server asks with
classic elicitation/create, roots/list requests) or `2026-07-28` (input_required and retries).
It calls test_elicitation (elicitation) and count_roots (roots), and prints what came back.
"""

import asyncio
import sys

import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext


async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})


async def roots(context: ClientRequestContext) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work")])


async def main(url: str, mode: str) -> int:
    async with Client(url, mode=mode, elicitation_callback=elicit, list_roots_callback=roots,
                      read_timeout_seconds=30) as client:
        for name, arguments in (("test_elicitation", {"message": "Who are you?"}), ("count_roots", {})):
            result = await client.call_tool(name, arguments)
            text = " ".join(getattr(block, "text", "") for block in result.content)
            print(f"{name}: {'error ' if result.is_error else ''}{text}", flush=True)
            if result.is_error:
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
