"""The legacy HTTP+SSE transport (GET /sse, POST /messages, as the Inspector's `--transport sse`) through
`mrtr-studio proxy`, between the official Python SDK's client and server: every message is recorded,
the answers that come on the GET stream join the POST they answer, and no operation stays running."""

from pathlib import Path

import pytest
from mcp import Client
from mcp.client.sse import sse_client

from tests.interop.proxy_process import proxy
from tests.interop.test_sdk_client_http import elicit, roots, run, sample, text_of

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def test_the_sse_transport_through_the_proxy_is_recorded_whole(sdk_sse_url: str, tmp_path: Path) -> None:
    with proxy(sdk_sse_url, tmp_path / "sse.mrtr.json") as proxied:
        async def go() -> tuple[str, int]:
            async with Client(sse_client(proxied.url), mode="legacy", elicitation_callback=elicit,  # type: ignore[arg-type]
                              sampling_callback=sample, list_roots_callback=roots, cache=None) as client:
                tools = await client.list_tools()
                deleted = await client.call_tool("sdk_delete", {"path": "/srv/a"})
                return text_of(deleted), len(tools.tools)

        text, listed = run(go)
        proxied.stop()
    assert text == "deleted /srv/a" and listed > 0
    store = proxied.store
    assert [op.outcome for op in store.operations if op.outcome == "running"] == []
    (call,) = [op for op in store.operations if op.method == "tools/call"]
    assert (call.target, call.era, call.rounds, call.outcome) == ("sdk_delete", "legacy", 1, "complete")
    kinds = [(m.kind, m.transport.get("http_method")) for m in store.messages_of(call.id) if m.kind != "invalid"]
    assert kinds == [("request", "POST"), ("server_request", "GET"), ("client_response", "POST"),
                     ("complete", "GET")]  # the question and the answer came on the stream
    accepted = [m.message for m in store.messages_of(call.id) if m.kind == "invalid"]
    assert accepted == ["Accepted", "Accepted"]  # each POST's 202 body (the call's, the answer's)
    (session,) = [op for op in store.operations if op.method == "session"]
    said = [(m.kind, m.method_name) for m in store.messages_of(session.id) if m.message != "Accepted"]
    assert said == [("invalid", None), ("request", "initialize"), ("complete", "initialize"),
                    ("notification", "notifications/initialized"), ("request", "tools/list"),
                    ("complete", "tools/list")], said
    endpoint = store.messages_of(session.id)[0]
    assert endpoint.transport["sse_event"] == "endpoint" and "session_id=***" in endpoint.message
    assert all("sse_session" not in m.transport for m in store.messages)
    assert [(f.rule, f.message) for m in store.messages for f in m.findings if f.severity == "error"] == []
