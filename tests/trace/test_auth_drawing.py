"""Auth messages from a trace file are whatever the file says: the diagram, the log summary and the
exports draw any of them without failing, and mark refusals and failed checks."""

import pytest

from mrtr_studio.trace import TraceStore
from mrtr_studio.trace.auth_arrows import AUTH_LANE
from mrtr_studio.trace.diagram_layout import layout_operation, message_summary
from mrtr_studio.trace.html_export import svg_diagram
from mrtr_studio.trace.lint import lint_message
from mrtr_studio.trace.mermaid import to_mermaid

ODD = [None, [], "text", 7, {"phase": {"x": 1}, "method": ["GET"], "status": {"a": 1}, "checks": "all good"},
       {"phase": "token request", "checks": [None, 3, {"name": "x"}]}, {"checks": [{"passed": False}]}]


@pytest.mark.parametrize("message", ODD)
def test_any_auth_message_is_drawn(message: object) -> None:
    store = TraceStore()
    op = store.begin_operation("tools/call", "t", {}, "modern", "http://127.0.0.1:1/mcp")
    entry = store.record(op.id, 0, "client->server", message, auth_phase="token request")
    assert entry.kind == "auth" and entry.jsonrpc_id is None
    layout = layout_operation(op, store.messages_of(op.id))
    [arrow] = [a for a in layout.arrows if a.seq == entry.seq]
    assert arrow.kind in ("auth", "auth_failed") and arrow.label
    assert isinstance(message_summary(entry), str)
    assert lint_message(entry, []) == []
    assert "<svg" in svg_diagram(layout) and "sequenceDiagram" in to_mermaid(op, store.messages_of(op.id))


def test_refusals_and_failed_checks_are_drawn_failing_but_the_challenge_is_not() -> None:
    store = TraceStore()
    op = store.begin_operation("tools/call", "t", {}, "modern", "http://127.0.0.1:1/mcp")
    exchanges = [
        ("server->client", {"phase": "challenge", "method": "POST", "status": 401, "checks": [],
                            "response_headers": {"www-authenticate": 'Bearer scope="mcp"'}}),
        ("client->server", {"phase": "authorization server metadata", "method": "GET", "status": 200,
                            "checks": [{"name": "issuer matches the metadata URL", "passed": False}]}),
        ("client->server", {"phase": "token request", "method": "POST", "status": 400, "checks": []}),
        ("client->server", {"phase": "client registration", "method": "POST", "status": None,
                            "error": "ConnectTimeout", "checks": []}),
    ]
    for direction, exchange in exchanges:
        store.record(op.id, 0, direction, exchange, auth_phase=exchange["phase"])
    layout = layout_operation(op, store.messages_of(op.id))
    arrows = [a for a in layout.arrows if a.seq is not None]
    assert [a.kind for a in arrows] == ["auth", "auth_failed", "auth_failed", "auth_failed"]
    assert (arrows[0].src, arrows[0].dst) == ("Server", "Client") and 'scope="mcp"' in arrows[0].sublabel
    assert arrows[1].dst == AUTH_LANE and "✖ issuer matches the metadata URL" in arrows[1].sublabel
    assert "ConnectTimeout" in arrows[3].label
    assert [s.label for s in layout.separators] == ["Authorization · before round 1"]
