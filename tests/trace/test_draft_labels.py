"""The diagram marks messages that carry a draft SEP's fields with "draft SEP-NNNN"; nothing else is marked."""

import asyncio

from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.engine import ServerOptions
from mrtr_studio.protocol.drafts import drafts_in
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.trace.diagram_layout import layout_operation
from mrtr_studio.transport.memory import MemoryTransport

YES = R.table({"*": {"action": "accept", "content": {"confirm": True}}})


def labels(tool: str, arguments: dict[str, str], **settings: object) -> list[str]:
    async def go() -> list[str]:
        server = build_demo_server(ServerOptions(drafts=frozenset({"sep-2643", "sep-3221"})))
        session = ClientSession(MemoryTransport(server), ClientSettings(**settings), YES)  # type: ignore[arg-type]
        try:
            run = await session.run("tools/call", tool, arguments)
        finally:
            await session.close()
        layout = layout_operation(run.operation, session.store.messages_of(run.operation.id))
        return [arrow.label for arrow in layout.arrows if arrow.kind in ("request", "input_required", "complete")]
    return asyncio.run(go())


def test_draft_messages_are_labelled_with_their_sep() -> None:
    secure = labels("run_sql", {"query": "SELECT 1"}, drafts=frozenset({"sep-3221"}),
                    secure_arguments={"run_sql": {"project_id": "p", "instance": "i"}})
    assert secure == ["draft SEP-3221 · tools/call #1 · r1", "‖ input_required · tools/call #1 · r1",
                      "draft SEP-3221 · tools/call #2 · r2", "✔ complete · tools/call #2 · r2"]
    denial = labels("list_folder", {}, drafts=frozenset({"sep-2643"}))
    assert denial[1] == "‖ input_required · draft SEP-2643 · tools/call #1 · r1"  # the envelope's answer
    assert denial[2] == "draft SEP-2643 · tools/call #2 · r2"  # the retry echoing the handle
    plain = labels("deploy_wizard", {})
    assert plain and not any("draft" in label for label in plain)


def test_drafts_in_names_each_draft_by_its_fields() -> None:
    assert drafts_in({"params": {"name": "x", "secureArguments": {}}}) == ["sep-3221"]
    assert drafts_in({"result": {"tools": [{"name": "t", "secureInputSchema": {}}]}}) == ["sep-3221"]
    assert drafts_in({"params": {"_meta": {"io.modelcontextprotocol/authorization-context-id": "a"}}}) == ["sep-2643"]
    assert drafts_in({"result": {"_meta": {"io.modelcontextprotocol/authorization": {}}}}) == ["sep-2643"]
    assert drafts_in({"params": {"name": "x"}}) == [] and drafts_in("not a message") == []
