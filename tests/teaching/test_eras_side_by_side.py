"""The same tool, modern and legacy, recorded side by side."""

import pytest

from mrtr_studio.client.auto_answers import auto_respond
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.teaching.eras import run_side_by_side
from mrtr_studio.trace import TraceStore
from mrtr_studio.transport.memory import MemoryTransport

pytestmark = pytest.mark.anyio


async def test_modern_only_tool_fails_with_32603_for_legacy() -> None:
    server, store = build_demo_server(), TraceStore()
    both = await run_side_by_side("tools/call", "delete_file", {"path": "/a"}, lambda: MemoryTransport(server),
                                  auto_respond, store)
    assert both.modern.drive.outcome == "complete"
    assert both.modern.operation.rounds == 2 and both.modern.operation.era == "modern"
    assert both.legacy.drive.error == {"code": -32603, "message": "input_required needs protocol 2026-07-28"}
    assert both.legacy.operation.era == "legacy"
    assert [op.label for op in store.operations] == ["modern client", "legacy client"]


async def test_dual_era_tool_completes_in_both_eras_differently() -> None:
    server, store = build_demo_server(), TraceStore()
    both = await run_side_by_side("tools/call", "count_roots", {}, lambda: MemoryTransport(server),
                                  auto_respond, store)
    modern_kinds = [m.kind for m in store.messages_of(both.modern.operation.id)]
    legacy_kinds = [m.kind for m in store.messages_of(both.legacy.operation.id)]
    assert modern_kinds == ["request", "input_required", "request", "complete"]
    assert legacy_kinds == ["request", "server_request", "client_response", "complete"]
    assert both.modern.drive.result["content"] == both.legacy.drive.result["content"]  # type: ignore[index]
