"""An official-SDK (mcp==2.3.0) server whose tools, prompt and resource template ask for input.

Run as a script: `python sdk_server.py http PORT` serves Streamable HTTP on 127.0.0.1 (both eras),
`python sdk_server.py sse PORT` the legacy HTTP+SSE transport, `python sdk_server.py stdio` stdio.
The tools use the SDK's own MRTR machinery (`Resolve` markers), so the same code asks with
InputRequiredResult when modern and with classic server-initiated requests when legacy.
"""

import sys
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp_types import (
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListRootsResult,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel

server = MCPServer("sdk-interop")


class Confirm(BaseModel):
    confirm: bool


def ask_confirm(path: str) -> Elicit[Confirm]:
    return Elicit(f"Delete {path}?", Confirm)


@server.tool()
def sdk_delete(path: str, answer: Annotated[Confirm, Resolve(ask_confirm)]) -> str:
    """Delete a file once the user confirms (elicitation)."""
    return f"deleted {path}" if answer.confirm else f"kept {path}"


def ask_llm(text: str) -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))],
                  max_tokens=50)


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def sdk_summarize_roots(text: str, summary: Annotated[CreateMessageResult, Resolve(ask_llm)],
                        roots: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    """Sampling and roots in the same round."""
    said = summary.content.text if isinstance(summary.content, TextContent) else "?"
    return f"{said} | roots: {', '.join(str(r.uri) for r in roots.roots)}"


def _form(message: str) -> ElicitRequest:
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema={
        "type": "object", "properties": {"focus": {"type": "string"}}, "required": ["focus"]}))


class Focus(BaseModel):
    focus: str


def _modern(ctx: Context) -> bool:
    return (ctx.protocol_version or "") >= "2026-07-28"


@server.prompt()
async def sdk_review(code: str, ctx: Context) -> str | InputRequiredResult:
    """A prompt that asks what to focus on (hand-rolled InputRequiredResult; ctx.elicit when legacy)."""
    if not _modern(ctx):
        asked = await ctx.elicit("Focus on?", Focus)
        return f"Review {code} focusing on {asked.data.focus if asked.action == 'accept' else '?'} (legacy)"
    answer = (ctx.input_responses or {}).get("focus")
    if answer is None:
        return InputRequiredResult(input_requests={"focus": _form("Focus on?")}, request_state="prompt-1")
    focus = (getattr(answer, "content", None) or {}).get("focus", "?")
    return f"Review {code} focusing on {focus} (state {ctx.request_state})"


@server.resource("notes://{name}")
async def sdk_note(name: str, ctx: Context) -> str | InputRequiredResult:
    """A resource template that asks before revealing a note."""
    if not _modern(ctx):
        asked = await ctx.elicit(f"Reveal {name}?", Focus)
        return f"note {name}: {asked.data.focus if asked.action == 'accept' else '?'} (legacy)"
    answer = (ctx.input_responses or {}).get("reveal")
    if answer is None:
        return InputRequiredResult(input_requests={"reveal": _form(f"Reveal {name}?")})
    return f"note {name}: {(getattr(answer, 'content', None) or {}).get('focus')}"


def _exit_with_parent() -> None:
    """The test process holds our stdin; when it goes away (even killed), so do we."""
    import os
    import threading

    def watch() -> None:
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        import uvicorn

        _exit_with_parent()

        # `sse PORT`: the legacy HTTP+SSE transport (GET /sse, POST /messages/), as the Inspector's --transport sse
        app = server.sse_app() if sys.argv[1] == "sse" else server.streamable_http_app()
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
