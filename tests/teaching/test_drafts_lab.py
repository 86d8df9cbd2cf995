"""The secure-parameters lab (draft SEP-3221): against the studio's own server (a real `serve --draft sep-3221`
on loopback) a retry whose secureArguments are dropped, altered, replayed or moved into arguments is refused;
against an engine whose state does not bind them, the altered and replayed retries go through and are flagged."""

import asyncio
from typing import Any

import pytest

from mrtr_studio.engine import ServerOptions
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.teaching.drafts_lab import ATTACKS, DraftsLabRun, SecureParamsLab
from mrtr_studio.transport.http_client import HttpClientTransport
from mrtr_studio.transport.memory import MemoryTransport
from tests.transport.serve_process import serve

SECURE = {"project_id": "shop", "instance": "db-checkout-04"}


def run(lab: SecureParamsLab) -> DraftsLabRun:
    return asyncio.run(lab.run("run_sql", {"query": "SELECT 1"}, SECURE))


def test_the_studio_server_refuses_every_broken_retry() -> None:
    with serve("--draft", "sep-3221") as served:
        lab = SecureParamsLab(lambda: HttpClientTransport(served.url))
        result = run(lab)
    assert [r.attack.id for r in result.results] == [a.id for a in ATTACKS]
    verdicts = {r.attack.id: (r.status, r.verdict, r.answer) for r in result.results}
    assert all(status == "rejected" and verdict == "pass" for status, verdict, _ in verdicts.values()), verdicts
    assert "-32602" in verdicts["secure-dropped"][2] and "-32602" in verdicts["secure-in-arguments"][2]
    assert "Invalid requestState" in verdicts["secure-altered"][2]
    # Every attack is a recorded flow of two rounds.
    assert all(len({m.round for m in lab.store.messages_of(r.operation_id or "")}) == 2 for r in result.results)


def test_a_state_that_does_not_bind_the_secure_arguments_is_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    import mrtr_studio.engine.server as engine_server

    def arguments_only(arguments: dict[str, Any], secure: dict[str, Any] | None) -> dict[str, Any]:
        return arguments
    monkeypatch.setattr(engine_server, "bound_arguments", arguments_only)
    server = build_demo_server(ServerOptions(drafts=frozenset({"sep-3221"})))
    result = run(SecureParamsLab(lambda: MemoryTransport(server)))
    verdicts = {r.attack.id: (r.status, r.verdict) for r in result.results}
    assert verdicts["secure-altered"] == ("accepted", "warn") and verdicts["secure-replayed"] == ("accepted", "warn")
    assert verdicts["secure-dropped"] == ("rejected", "pass")  # still required by the schema


def test_a_tool_that_asks_nothing_cannot_be_attacked_and_says_so() -> None:
    server = build_demo_server(ServerOptions(drafts=frozenset({"sep-3221"})))
    lab = SecureParamsLab(lambda: MemoryTransport(server))
    result = asyncio.run(lab.run("run_sql", {"query": "q"}, {"project_id": "p"}))  # invalid: refused at once
    assert all(r.status == "broken" and "did not ask" in r.detail for r in result.results)
