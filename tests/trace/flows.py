"""Recorded flows for the trace tests: the demo engine in memory, answered by fixed tables."""

from typing import Any

from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession, RunResult, StepHook
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.trace import TraceStore
from mrtr_studio.transport.memory import MemoryTransport

ANSWERS: dict[str, Any] = {
    "confirm": {"action": "accept", "content": {"confirm": True}},
    "environment": {"action": "accept", "content": {"environment": "staging"}},
    "version": {"action": "accept", "content": {"version": "2.0"}},
    "roots/list": {"roots": [{"uri": "file:///w"}]},
    "*": {"action": "accept", "content": {}},
}


def session(era: str = "modern", store: TraceStore | None = None, **settings: Any) -> ClientSession:
    return ClientSession(MemoryTransport(build_demo_server()), ClientSettings(era=era, **settings),  # type: ignore[arg-type]
                         R.table(ANSWERS), store=store)


async def run(client: ClientSession, tool: str, arguments: dict[str, Any] | None = None,
              step: StepHook | None = None) -> RunResult:
    return await client.run("tools/call", tool, arguments or {}, step=step)
