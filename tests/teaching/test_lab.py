"""The tamper-and-replay lab against the embedded engine: every attack rejected, as the spec requires."""

import pytest

from mrtr_studio.engine import MrtrOptions, ServerOptions
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.teaching.lab import ATTACKS, Lab, LabTarget, classify, judge
from mrtr_studio.trace import TraceStore
from mrtr_studio.transport.memory import MemoryTransport

pytestmark = pytest.mark.anyio


def embedded_target(explain: bool = True) -> LabTarget:
    server = build_demo_server(ServerOptions(mrtr=MrtrOptions(explain_rejections=explain)))
    real_clock = server.codec.clock

    def advance(seconds: float) -> None:
        server.codec.clock = lambda: real_clock() + seconds

    def reset() -> None:
        server.codec.clock = real_clock

    return LabTarget(connect=lambda user: MemoryTransport(server, user=user), identities=("alice", "bob"),
                     advance_clock=advance, reset_clock=reset)


async def test_every_attack_on_delete_file_is_rejected() -> None:
    store = TraceStore()
    run = await Lab(embedded_target(), store).run("tools/call", "delete_file", {"path": "/tmp/report.txt"})
    assert [r.attack.id for r in run.results] == [a.id for a in ATTACKS]
    by_id = {r.attack.id: r for r in run.results}
    assert all(r.verdict == "pass" for r in run.results), {r.attack.id: (r.status, r.answer) for r in run.results}
    assert run.all_rejected
    reasons = {k: by_id[k].answer for k in by_id}
    assert reasons["flip-signature"] == "-32602 Invalid requestState (signature)"
    assert reasons["flip-payload"] == "-32602 Invalid requestState (signature)"
    assert reasons["invent"] == "-32602 Invalid requestState (signature)"
    assert reasons["other-arguments"] == "-32602 Invalid requestState (arguments)"
    assert reasons["other-tool"] == "-32602 Invalid requestState (name)"
    assert reasons["expired"] == "-32602 Invalid requestState (expired)"
    assert reasons["other-identity"] == "-32602 Invalid requestState (principal)"
    assert reasons["twice"] == "-32602 Invalid requestState (replayed)"
    assert reasons["parallel"] == "-32602 Invalid requestState (name)"
    assert by_id["drop"].status == "re-asked"
    assert "File deleted" in by_id["twice"].detail and "File deleted" in by_id["parallel"].detail
    # Each attack is its own operation in the trace: a fresh first round, then the attack.
    labels = [op.label for op in store.operations]
    assert labels == [f"lab: {a.title}" for a in ATTACKS]
    rounds = [m.round for m in store.messages_of(store.operations[0].id)]
    assert rounds == [1, 1, 2, 2]


async def test_a_server_that_does_not_verify_fails_the_must_checks() -> None:
    server = build_demo_server(ServerOptions(mrtr=MrtrOptions(bind_inputs_to_state=False)))
    server.codec.signature_ok = lambda decoded: True  # type: ignore[method-assign]
    target = LabTarget(connect=lambda user: MemoryTransport(server, user=user), identities=("", None))
    run = await Lab(target, TraceStore()).run("tools/call", "delete_file", {"path": "/x"},
                                              attacks=tuple(a for a in ATTACKS if a.id in ("invent", "other-identity",
                                                                                            "expired")))
    by_id = {r.attack.id: r for r in run.results}
    assert by_id["invent"].status == "accepted" and by_id["invent"].verdict == "fail"
    assert by_id["other-identity"].verdict == "skipped" and "second identity" in by_id["other-identity"].detail
    assert by_id["expired"].verdict == "skipped" and "clock" in by_id["expired"].detail


async def test_operation_without_state_cannot_be_attacked() -> None:
    run = await Lab(embedded_target(), TraceStore()).run("tools/call", "test_logging_tool", {},
                                                         attacks=ATTACKS[:1])
    assert run.results[0].status == "broken"
    assert run.results[0].verdict == "skipped"


def test_judgement_levels() -> None:
    must, should = ATTACKS[0], next(a for a in ATTACKS if a.id == "other-arguments")
    assert judge(must, "accepted") == "fail" and judge(should, "accepted") == "warn"
    assert judge(must, "re-asked") == "fail"
    assert judge(next(a for a in ATTACKS if a.id == "drop"), "re-asked") == "pass"
    assert classify({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "x"}}) == (
        "rejected", "-32602 x")
