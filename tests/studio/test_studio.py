"""The studio controller without Qt: runs, step gate, tampering, eras, capabilities, identities, clock."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from mrtr_studio.studio.controller import Studio, StudioEvent
from mrtr_studio.studio.demo_runs import DEMO_RUNS
from mrtr_studio.studio.identities import IDENTITY_PRESETS, custom_identity
from mrtr_studio.studio.server_entries import http_entry

DELETE = ("tools/call", "delete_file", {"path": "/tmp/x"})


def run(coro_fn: Callable[[], Awaitable[Any]], timeout: float = 10.0) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(coro_fn(), timeout)

    return asyncio.run(bounded())


async def until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.005)

    await asyncio.wait_for(poll(), timeout)


def kinds(studio: Studio, op_id: str) -> list[tuple[int, str]]:
    return [(m.round, m.kind) for m in studio.store.messages_of(op_id)]


def test_delete_file_runs_two_rounds_with_auto_answers() -> None:
    async def body() -> None:
        studio = Studio()
        result = await studio.run(*DELETE)
        assert result is not None and result.drive.outcome == "complete"
        assert result.drive.result["content"][0]["text"] == "File deleted"
        assert kinds(studio, result.operation.id) == [
            (1, "request"), (1, "input_required"), (2, "request"), (2, "complete")]
        assert studio.state == "idle"
        await studio.close()

    run(body)


def test_connect_lists_the_embedded_catalog() -> None:
    async def body() -> None:
        studio = Studio()
        catalog = await studio.connect()
        assert catalog is not None and catalog.era == "modern"
        assert {"delete_file", "deploy_wizard", "summarize"} <= {t["name"] for t in catalog.tools}
        assert "code_review" in {p["name"] for p in catalog.prompts}
        assert "config://secrets" in {r["uri"] for r in catalog.resources}
        await studio.close()

    run(body)


def test_connection_refused_is_an_error_event() -> None:
    async def body() -> None:
        studio = Studio()
        events: list[StudioEvent] = []
        studio.subscribe(events.append)
        assert await studio.connect(http_entry("http://127.0.0.1:9/mcp")) is None
        errors = [e.text for e in events if e.kind == "error"]
        assert errors and "cannot connect" in errors[0]
        assert studio.state == "idle"

    run(body)


def test_legacy_era_gets_internal_error() -> None:
    async def body() -> None:
        studio = Studio()
        studio.set_era("legacy")
        events: list[StudioEvent] = []
        studio.subscribe(events.append)
        result = await studio.run(*DELETE)
        assert result is not None and result.drive.error["code"] == -32603
        assert any(e.kind == "error" and "-32603" in e.text for e in events)

    run(body)


def test_missing_elicitation_gets_32021() -> None:
    async def body() -> None:
        studio = Studio()
        studio.set_capabilities({"sampling", "roots"})
        result = await studio.run(*DELETE)
        assert result is not None and result.drive.error["code"] == -32021
        assert result.drive.error["data"]["requiredCapabilities"] == {"elicitation": {}}

    run(body)


def test_step_mode_holds_each_send_and_sends_the_edit() -> None:
    async def body() -> None:
        studio = Studio()
        task = studio.start(*DELETE, step=True)
        await until(lambda: studio.state == "paused")
        assert studio.pending is not None and studio.pending.round == 1
        assert studio.pending.message["params"]["name"] == "delete_file"
        studio.step()
        await until(lambda: studio.pending is not None and studio.pending.round == 2)
        edited = studio.pending.message
        edited["params"]["inputResponses"]["confirm"] = {"action": "decline"}
        studio.edit_pending(edited)
        studio.continue_()
        result = await task
        assert result is not None and result.drive.result["content"][0]["text"] == "Operation cancelled"
        sent = [m.message for m in studio.store.messages_of(result.operation.id) if m.kind == "request"]
        assert sent[1]["params"]["inputResponses"]["confirm"] == {"action": "decline"}

    run(body)


def test_stop_while_held_aborts_and_stop_while_answering_cancels() -> None:
    async def body() -> None:
        studio = Studio()
        task = studio.start(*DELETE, step=True)
        await until(lambda: studio.state == "paused")
        studio.stop()
        result = await task
        assert result is not None and result.drive.outcome == "aborted"

        never = asyncio.Event()

        async def slow(requests: dict[str, Any], round_number: int) -> dict[str, Any]:
            await never.wait()
            return {}

        studio.answerer = slow
        task = studio.start(*DELETE)
        await until(lambda: studio.current_operation_id is not None and len(
            studio.store.messages_of(studio.current_operation_id)) == 2)
        studio.stop()
        assert await task is None
        assert studio.store.operation(studio.current_operation_id).outcome == "aborted"
        assert studio.state == "idle"

    run(body)


@pytest.mark.parametrize(("tamper", "reason"), [
    ("signature", "signature"), ("payload", "signature"), ("malformed", "malformed"), ("invent", "signature"),
    ("arguments", "arguments"), ("expire", "expired")])
def test_tampered_retry_is_rejected_with_the_reason(tamper: str, reason: str) -> None:
    async def body() -> None:
        studio = Studio()
        task = studio.start(*DELETE, step=True)
        await until(lambda: studio.pending is not None and studio.pending.round == 1)
        studio.step()
        await until(lambda: studio.pending is not None and studio.pending.round == 2)
        studio.tamper(tamper)
        studio.continue_()
        result = await task
        assert result is not None and result.drive.error["code"] == -32602
        assert result.drive.error["data"]["reason"] == reason

    run(body)


def test_armed_identity_swap_fails_the_principal_check_then_the_next_run_is_alice_again() -> None:
    async def body() -> None:
        studio = Studio()
        studio.set_identity("alice")
        assert "armed" in studio.tamper("identity:bob")
        result = await studio.run(*DELETE)
        assert result is not None and result.drive.error["data"]["reason"] == "principal"
        again = await studio.run(*DELETE)
        assert again is not None and again.drive.outcome == "complete"

    run(body)


def test_inspect_state_names_the_failed_check() -> None:
    async def body() -> None:
        studio = Studio()
        task = studio.start(*DELETE, step=True)
        await until(lambda: studio.pending is not None and studio.pending.round == 1)
        studio.step()
        await until(lambda: studio.pending is not None and studio.pending.round == 2)
        message = studio.pending.message
        token = message["params"]["requestState"]
        assert studio.inspect_state(token, message).verdict == "pass"
        assert studio.inspect_state(token, message, principal="bob").check("principal").status == "fail"
        studio.advance_clock(3600)
        assert studio.inspect_state(token, message).check("expired").status == "fail"
        studio.reset_clock()
        studio.continue_()
        await task

    run(body)


@pytest.mark.parametrize("name", sorted(DEMO_RUNS))
def test_every_demo_run_ends_as_expected(name: str) -> None:
    demo = DEMO_RUNS[name]

    async def body() -> None:
        studio = Studio()
        studio.set_era(demo.era)
        studio.set_capabilities(demo.capabilities)
        studio.set_identity(demo.identity)
        if demo.tamper:
            studio.tamper(demo.tamper)
        result = await studio.run(demo.method, demo.target, demo.arguments)
        assert result is not None
        if demo.expect == "complete":
            assert result.final.outcome == "complete", result.final  # a task's end for long_report
        else:
            assert result.drive.error is not None and result.drive.error["code"] == demo.expect

    run(body)


def test_one_run_at_a_time_and_bad_settings_raise() -> None:
    async def body() -> None:
        studio = Studio()
        task = studio.start(*DELETE, step=True)
        with pytest.raises(RuntimeError):
            studio.start(*DELETE)
        with pytest.raises(ValueError):
            studio.set_capabilities({"telepathy"})
        with pytest.raises(ValueError):
            studio.tamper("nonsense")
        studio.stop()
        await studio.wait()
        assert task.done()

    run(body)


def test_identities() -> None:
    assert IDENTITY_PRESETS["alice"].bearer == "alice-token"
    assert custom_identity("alice") is IDENTITY_PRESETS["alice"]
    carol = custom_identity(" carol ", "t0k")
    assert (carol.user, carol.bearer) == ("carol", "t0k")
    assert custom_identity("").name == "anonymous"


@pytest.mark.tap_failure_expected
def test_a_recorder_failure_is_a_problem_in_the_window_not_only_a_log_line() -> None:
    """Tap.emit keeps the transport going when a listener raises, and says so where a person looks."""
    from mrtr_studio.transport.base import Tap, on_listener_failure

    studio = Studio()
    events: list[StudioEvent] = []
    studio.subscribe(events.append)
    seen: list[BaseException] = []
    stop = on_listener_failure(lambda exc, event: seen.append(exc))
    tap = Tap()

    def broken(event: object) -> None:
        raise KeyError("recorder bug")

    tap.listen(broken)
    tap.emit("server->client", {"jsonrpc": "2.0", "id": 1, "method": "tools/call"})
    stop()
    assert len(seen) == 1
    errors = [e.text for e in events if e.kind == "error"]
    assert errors and "may be missing from the trace" in errors[-1] and "KeyError" in errors[-1], errors
