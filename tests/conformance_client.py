"""The studio's client under the official conformance suite's client scenarios.

The suite spawns `python tests/conformance_client.py <mock server URL>` (the URL is the last argv)
with MCP_CONFORMANCE_SCENARIO set; every call goes through ClientSession + HttpClientTransport, so
what is tested is the studio's own client. Exit 0 when every operation completed.

- `sep-2322-client-request-state`: the round-trip driver: requestState echoed exactly, a new id on
  retry, no state when none was sent, nothing leaking into an unrelated call made mid-flow, an
  absent resultType read as complete.
- `sse-retry` (2025-11-25): the tool call's stream is primed with an event id and closed before the
  response; the client waits the server's `retry` and resumes with GET and `Last-Event-ID`.
- `elicitation-sep1034-client-defaults` (2025-11-25): the mock (the official TypeScript SDK) sends its
  elicitation/create on the standalone GET stream; the client answers with the schema's defaults.
"""

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.transport.http_client import HttpClientTransport

SCENARIO = "sep-2322-client-request-state"


async def request_state_scenario(url: str) -> list[str]:
    """The minimal passing sequence (research notes §4); returns the problems found."""
    session: ClientSession

    async def confirm(key: str, request: dict[str, Any], round_number: int) -> dict[str, Any]:
        # Mid-flow, between the first round and its retry: an unrelated call must carry no MRTR data.
        unrelated = await session.run("tools/call", "test_mrtr_unrelated", {})
        if not unrelated.drive.ok:
            problems.append(f"test_mrtr_unrelated: {unrelated.drive.outcome} {unrelated.drive.problem}")
        return {"action": "accept", "content": {"confirmed": True}}

    problems: list[str] = []
    fired = False

    async def confirm_once(key: str, request: dict[str, Any], round_number: int) -> dict[str, Any]:
        nonlocal fired
        if not fired:
            fired = True
            return await confirm(key, request, round_number)
        return {"action": "accept", "content": {"confirmed": True}}

    session = ClientSession(HttpClientTransport(url), ClientSettings(era="auto"),
                            R.compose(elicitation=confirm_once), server_label=url)
    try:
        tools = [tool["name"] for tool in await session.list_tools()]
        print(f"tools: {', '.join(tools)}", file=sys.stderr)
        for name in ("test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_no_result_type"):
            run = await session.run("tools/call", name, {})
            print(f"{name}: {run.drive.outcome} after {len(run.drive.rounds)} round(s)", file=sys.stderr)
            if not run.drive.ok:
                problems.append(f"{name}: {run.drive.outcome} {run.drive.problem or run.drive.error}")
    finally:
        await session.close()
    return problems


async def legacy_tool_scenario(url: str, tool: str) -> list[str]:
    """Initialize as a 2025-11-25 client (which opens the standalone GET stream), call `tool`, answer forms
    with their defaults; returns the problems found."""
    defaults = R.compose(elicitation=R.from_callback(R.schema_defaults))
    transport = HttpClientTransport(url)
    session = ClientSession(transport, ClientSettings(era="legacy"), defaults, server_label=url)
    problems: list[str] = []
    try:
        run = await session.run("tools/call", tool, {})
        print(f"{tool}: {run.drive.outcome} after {len(run.drive.rounds)} round(s); GET stream "
              f"{transport.listening}; result {run.drive.result}", file=sys.stderr)
        if not run.drive.ok:
            problems.append(f"{tool}: {run.drive.outcome} {run.drive.problem or run.drive.error}")
        elif isinstance(run.drive.result, dict) and run.drive.result.get("isError"):
            problems.append(f"{tool}: the tool reported an error: {run.drive.result.get('content')}")
    finally:
        await session.close()
    return problems


SCENARIOS = {
    SCENARIO: request_state_scenario,
    "sse-retry": lambda url: legacy_tool_scenario(url, "test_reconnection"),
    "elicitation-sep1034-client-defaults": lambda url: legacy_tool_scenario(url, "test_client_elicitation_defaults"),
}


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", SCENARIO)
    if scenario not in SCENARIOS:
        print(f"conformance_client: scenario {scenario!r} is not implemented", file=sys.stderr)
        return 2
    problems = asyncio.run(SCENARIOS[scenario](url))
    for problem in problems:
        print(f"conformance_client: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
