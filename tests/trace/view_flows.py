"""Real traces for the diagram, log and state-inspector tests: flows run through ClientSession over the
in-memory engine (secret known, rejections explained), plus a synthetic 10k-message trace."""

import asyncio
from collections.abc import Callable
from typing import Any

from mrtr_studio.client.session import ClientSession, StepHook
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.engine import MrtrOptions, ServerOptions
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.trace import Operation, TraceStore
from mrtr_studio.transport.memory import MemoryTransport
from tools.synthetic_trace import synthetic_trace  # noqa: F401 - re-exported for the view tests

SECRET = "test-secret"


async def respond(requests: dict[str, Any], round_number: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, request in requests.items():
        method = request["method"]
        if method == "elicitation/create":
            out[key] = {"action": "accept", "content": {"confirm": True}}
        elif method == "roots/list":
            out[key] = {"roots": [{"uri": "file:///a"}]}
    return out


def demo_server() -> Any:
    return build_demo_server(ServerOptions(mrtr=MrtrOptions(secret=SECRET, explain_rejections=True)))


def run_flow(store: TraceStore, tool: str, era: str = "modern", arguments: dict[str, Any] | None = None,
             step: StepHook | None = None, server: Any = None, user: str = "",
             server_label: str = "embedded", setup: Callable[[MemoryTransport], None] | None = None) -> Operation:
    """Run one tool call to its end, recording into `store`; returns its operation."""
    engine = server or demo_server()
    transport = MemoryTransport(engine, user=user)
    if setup:
        setup(transport)

    async def main() -> Operation:
        session = ClientSession(transport, ClientSettings(era=era), respond, store,  # type: ignore[arg-type]
                                server_label=server_label)
        result = await session.call_tool(tool, arguments if arguments is not None else {"path": "/x"}, step=step)
        await asyncio.sleep(0)
        return result.operation

    return asyncio.run(main())


def on_round(round_number: int, change: Callable[[dict[str, Any]], dict[str, Any]]) -> StepHook:
    """A step hook editing the message sent in one round (the retry, for round 2)."""

    async def step(message: dict[str, Any], current: int) -> dict[str, Any] | None:
        return change(message) if current == round_number else message

    return step


