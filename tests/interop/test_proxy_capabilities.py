"""The capability lint in the legacy era, between a real pair through `mrtr-studio proxy`: the SDK
server's `ctx.elicit` pushes `elicitation/create` to a legacy SDK client that declared no elicitation
in its initialize (as FastMCP does to an Inspector that never declared it), and the recorded
initialize is what the lint reads to flag it; a client that declared it is not flagged."""

from pathlib import Path

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from mrtr_studio.trace import lint
from tests.interop.proxy_process import proxy
from tests.interop.test_sdk_client_http import elicit, run

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def review(url: str, declares: bool) -> str:
    async def go() -> str:
        transport = streamable_http_client(url, http_client=create_mcp_http_client())
        async with Client(transport, mode="legacy", cache=None,  # type: ignore[arg-type]
                          elicitation_callback=elicit if declares else None) as client:
            try:
                return str(await client.get_prompt("sdk_review", {"code": "x = 1"}))
            except MCPError as exc:
                return f"error {exc}"

    return str(run(go))


def test_an_elicitation_the_legacy_client_never_declared_is_flagged(sdk_url: str, tmp_path: Path) -> None:
    with proxy(sdk_url, tmp_path / "caps.mrtr.json") as proxied:
        refused = review(proxied.url, declares=False)
        answered = review(proxied.url, declares=True)
        proxied.stop()
    assert refused.startswith("error") and not answered.startswith("error")
    asks = [m for m in proxied.store.messages if m.kind == "server_request" and m.method == "elicitation/create"]
    assert len(asks) == 2
    flagged = [[f.rule for f in m.findings if f.rule == lint.CAPABILITY_NOT_DECLARED] for m in asks]
    assert flagged == [[lint.CAPABILITY_NOT_DECLARED], []]
    (finding,) = [f for f in asks[0].findings if f.rule == lint.CAPABILITY_NOT_DECLARED]
    assert "did not declare in initialize" in finding.message
