"""SEP-2643 (draft) denial checks: the studio's `list_folder` (a real `serve --draft sep-2643`) passes each;
a server that answers the denial with no envelope, or rejects a retry without the handle, fails them."""

import asyncio
from typing import Any

from mrtr_studio.engine import Request, Response, ServerOptions, Session
from mrtr_studio.protocol.errors import INVALID_PARAMS, McpError
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.scenarios.draft_tools import list_folder
from mrtr_studio.teaching.denial_lab import check_denial
from mrtr_studio.transport.http_client import HttpClientTransport
from mrtr_studio.transport.memory import MemoryTransport
from tests.transport.serve_process import serve


def test_the_studio_denial_meets_each_requirement() -> None:
    with serve("--draft", "sep-2643") as served:
        checks = asyncio.run(check_denial(lambda: HttpClientTransport(served.url), "list_folder", {}))
    assert [c.id for c in checks if not c.ok] == [], checks
    assert {c.id for c in checks} >= {"envelope", "url-hint", "retry-echoed", "retry-without-handle"}


def test_a_careless_server_fails_the_checks_it_breaks() -> None:
    server = build_demo_server(ServerOptions(drafts=frozenset({"sep-2643"})))

    def strict(session: Session, request: Request, response: Response) -> None:
        meta: Any = (request.raw.get("params") or {}).get("_meta") or {}
        if request.params.request_state and "io.modelcontextprotocol/authorization-context-id" not in meta:
            raise McpError(INVALID_PARAMS, "no authorization context id")  # what the SEP forbids
        list_folder(session, request, response)
        response.input_required.meta.clear()  # and no envelope at all
    server.registry.tools["list_folder"].handler = strict
    checks = {c.id: c.ok for c in asyncio.run(check_denial(lambda: MemoryTransport(server), "list_folder", {}))}
    assert not checks["envelope"] and not checks["url-hint"] and not checks["retry-without-handle"]
    assert checks["url-elicitation"] and checks["request-state"]
