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
- `initialize`, `tools_call`, `request-metadata`, `http-*-headers`, `json-schema-*` (EXERCISED): a plain
  session, era auto: discovery or the initialize handshake, per-request `_meta` and version header (with
  the retry after an unsupported-version 400), Mcp-Method/Mcp-Name and mirrored Mcp-Param-* headers,
  tools with invalid x-mcp-header annotations left out, schemas kept verbatim and no network `$ref`
  fetched; the calls come from the scenario's context when it names them, else from the tools' schemas.
"""

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrtr_studio.auth.enterprise import EnterpriseLogin
from mrtr_studio.auth.flow import OAuthClient, OAuthSettings
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.client import responders as R
from mrtr_studio.client.forms.validation import validate_content
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.client.skills import SkillRejected, SkillsClient
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


#: The Client ID Metadata Document URL the suite's CIMD scenario expects the client to present.
CIMD_URL = "https://conformance-test.local/client-metadata.json"


async def auth_scenario(url: str, scenario: str) -> list[str]:
    """The OAuth flow, headless: list the tools and call one (each request may meet its own 401/403).

    The suite's context carries pre-registered credentials where a scenario has them; an extension's
    client-credentials scenarios are machine clients. A scenario that expects a refusal (`allowClientError`)
    passes on the suite's own checks whatever the exit code."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25")
    grant = "client_credentials" if scenario.startswith("auth/client-credentials") else \
        "jwt_bearer" if scenario == "auth/wif-jwt-bearer" else \
        "enterprise" if scenario == "auth/enterprise-managed-authorization" else "authorization_code"
    # Enterprise-managed authorization: the suite's IdP and the ID token its sign-in would have given.
    login = EnterpriseLogin(context["idp_token_endpoint"], context["idp_client_id"], context["idp_id_token"]) \
        if grant == "enterprise" else None
    settings = OAuthSettings(client_id=context.get("client_id"), client_secret=context.get("client_secret"),
                             private_key_pem=context.get("private_key_pem"),
                             signing_alg=context.get("signing_algorithm") or "RS256",
                             client_metadata_url=CIMD_URL, assertion=context.get("valid_jwt"), grant=grant,
                             enterprise=login, protocol_version=version)
    flow = OAuthClient(url, HeadlessRedirect(), settings)
    transport = HttpClientTransport(url, auth=flow)
    era = "modern" if version >= "2026-07-28" else "legacy"
    session = ClientSession(transport, ClientSettings(era=era), R.compose(), server_label=url)
    problems: list[str] = []
    try:
        tools = [tool["name"] for tool in await session.list_tools()]
        print(f"tools: {', '.join(tools)}", file=sys.stderr)
        run = await session.run("tools/call", tools[0] if tools else "test-tool", {})
        print(f"call: {run.drive.outcome}", file=sys.stderr)
        if not run.drive.ok:
            problems.append(f"tools/call: {run.drive.outcome} {run.drive.problem or run.drive.error}")
    except Exception as exc:
        problems.append(f"{type(exc).__name__}: {exc}")
    finally:
        for exchange in flow.exchanges:
            checks = ", ".join(f"{c.name}: {'pass' if c.passed else 'FAIL'}" for c in exchange.checks)
            print(f"  [{exchange.phase}] {exchange.method} {exchange.url} -> {exchange.status} {checks}",
                  file=sys.stderr)
        await session.close()
        await flow.aclose()
    return problems


async def exercise_scenario(url: str, scenario: str) -> list[str]:
    """A client as an application drives it: discover the era (auto), list what the server offers, call
    the tools the scenario's context names (or each listed tool with arguments read from its schema), read
    each resource and get each prompt; returns the problems found."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    transport = HttpClientTransport(url)
    session = ClientSession(transport, ClientSettings(era="auto"), R.compose(), server_label=url)
    problems: list[str] = []

    async def call(name: str, arguments: dict[str, Any]) -> None:
        # As the arguments panel does: check the arguments against the listed inputSchema first.
        notes = validate_content((by_name.get(name) or {}).get("inputSchema") or {}, arguments)
        if notes:
            print(f"{name}: the arguments do not check against its schema: {notes}", file=sys.stderr)
        run = await session.run("tools/call", name, arguments)
        print(f"{name}: {run.drive.outcome} after {len(run.drive.rounds)} round(s)", file=sys.stderr)
        if run.drive.outcome == "error" and run.drive.error is not None and run.drive.problem is None:
            # A well-formed JSON-RPC error is the server's answer (a mock that only lists its tools),
            # which the client received and reported as such: not a client failure.
            print(f"{name}: the server answered with error {run.drive.error}", file=sys.stderr)
        elif not run.drive.ok:
            problems.append(f"{name}: {run.drive.outcome} {run.drive.problem or run.drive.error}")

    by_name: dict[str, dict[str, Any]] = {}
    try:
        tools = await session.list_tools()
        print(f"era {session.era}; tools: {', '.join(t['name'] for t in tools)}", file=sys.stderr)
        by_name.update((tool["name"], tool) for tool in tools)
        if isinstance(context.get("toolCalls"), list):
            for planned in context["toolCalls"]:
                await call(planned["name"], planned.get("arguments") or {})
        else:
            for tool in tools:
                await call(tool["name"], example_arguments(tool, by_name))
        for resource in await optional(session.list_resources()):
            run = await session.run("resources/read", resource["uri"])
            print(f"read {resource['uri']}: {run.drive.outcome}", file=sys.stderr)
        for prompt in await optional(session.list_prompts()):
            run = await session.run("prompts/get", prompt["name"], {})
            print(f"prompt {prompt['name']}: {run.drive.outcome}", file=sys.stderr)
    except Exception as exc:
        problems.append(f"{type(exc).__name__}: {exc}")
    finally:
        await session.close()
    return problems


async def optional(listing: Any) -> list[dict[str, Any]]:
    """A listing the server may not offer at all (no such capability): empty then."""
    try:
        return list(await listing)
    except (RuntimeError, ConnectionError) as exc:
        print(f"listing skipped: {exc}", file=sys.stderr)
        return []


def example_arguments(tool: dict[str, Any], tools: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Arguments a user would type: a small value per property; an object property named `schema` gets
    the first other tool's inputSchema, exactly as listed (what a schema-echo tool asks for)."""
    schema = tool.get("inputSchema") or {}
    props = schema.get("properties") or {}
    samples = {"number": 2, "integer": 3, "string": "text", "boolean": True, "array": [], "object": {}}
    arguments: dict[str, Any] = {}
    for name in props:
        kind = (props.get(name) or {}).get("type", "object")
        arguments[name] = samples.get(kind, {}) if isinstance(kind, str) else "text"
        if name == "schema" and kind == "object":
            other = next((t for n, t in tools.items() if n != tool["name"]), None)
            arguments[name] = other.get("inputSchema") if other else {}
    return arguments


async def skills_scenario(url: str, load: bool) -> list[str]:
    """The skills extension (SEP-2640) as a host uses it: list the skills (reading none of their files);
    with `load`, the person picks the first: SKILL.md is read and verified (size, digest, frontmatter),
    and only a verified skill's supporting files are read. A rejected skill is reported, not used."""
    session = ClientSession(HttpClientTransport(url), ClientSettings(era="auto"), R.compose(), server_label=url)
    skills = SkillsClient(session)
    try:
        listed = await skills.list()
        print(f"skills: {', '.join(s.name for s in listed)}", file=sys.stderr)
        if load and listed:
            try:
                loaded = await skills.load(listed[0])
            except SkillRejected as exc:
                print(f"skill rejected, not used: {exc}", file=sys.stderr)
                return []
            for entry in loaded.skill.files:
                if entry.uri != loaded.skill.uri:
                    await skills.read(loaded.skill, entry.uri)
            print(f"loaded {loaded.skill.name} and its {len(loaded.skill.files)} file(s)", file=sys.stderr)
    except SkillRejected as exc:
        return [str(exc)]
    finally:
        await session.close()
    return []


SCENARIOS = {
    SCENARIO: request_state_scenario,
    "sep-2640-client-no-prefetch": lambda url: skills_scenario(url, load=False),
    "sep-2640-client-verify-digest": lambda url: skills_scenario(url, load=True),
    "sep-2640-client-verify-size": lambda url: skills_scenario(url, load=True),
    "sep-2640-client-verify-frontmatter": lambda url: skills_scenario(url, load=True),
    "sse-retry": lambda url: legacy_tool_scenario(url, "test_reconnection"),
    "elicitation-sep1034-client-defaults": lambda url: legacy_tool_scenario(url, "test_client_elicitation_defaults"),
}

#: Scenarios a plain session passes through: the client's ordinary behaviour is what they check.
EXERCISED = ("initialize", "tools_call", "request-metadata", "http-standard-headers", "http-custom-headers",
             "http-invalid-tool-headers", "json-schema-ref-no-deref", "json-schema-2020-12-preservation")


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", SCENARIO)
    if scenario.startswith("auth/"):
        problems = asyncio.run(auth_scenario(url, scenario))
        for problem in problems:
            print(f"conformance_client: {problem}", file=sys.stderr)
        return 1 if problems else 0
    if scenario in EXERCISED:
        problems = asyncio.run(exercise_scenario(url, scenario))
        for problem in problems:
            print(f"conformance_client: {problem}", file=sys.stderr)
        return 1 if problems else 0
    if scenario not in SCENARIOS:
        print(f"conformance_client: scenario {scenario!r} is not implemented", file=sys.stderr)
        return 2
    problems = asyncio.run(SCENARIOS[scenario](url))
    for problem in problems:
        print(f"conformance_client: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
