"""Every lesson runs to its expected end, explains every message and shows the code that ran."""

import pytest

from mrtr_studio.teaching.lesson_runner import run_lesson
from mrtr_studio.teaching.lessons import LESSONS, LESSONS_BY_ID
from mrtr_studio.teaching.line_recorder import LineRecorder, handler_source

pytestmark = pytest.mark.anyio

REQUIRED_TOPICS = {"confirm-delete", "wizard", "sampling", "roots", "url-consent", "several-inputs",
                   "missing-capability", "legacy-client", "expired-state", "another-user", "prompt-and-resource",
                   "long-job"}


def test_the_library_covers_every_topic() -> None:
    assert set(LESSONS_BY_ID) >= REQUIRED_TOPICS


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.id for lesson in LESSONS])
async def test_lesson_runs_and_explains_every_step(lesson) -> None:  # type: ignore[no-untyped-def]
    report = await run_lesson(lesson)
    assert [r.outcome for r in report.runs] == [run.expect for run in lesson.runs]
    for run_report in report.runs:
        assert run_report.messages, "the run put nothing on the wire"
        unexplained = [(m.round, m.kind) for m in run_report.messages if m.seq not in run_report.steps]
        assert unexplained == []
        for step in run_report.steps.values():
            assert step.text and step.spec.startswith(("https://modelcontextprotocol.io/specification/2026-07-28/",
                                                       "https://modelcontextprotocol.io/extensions/tasks/",
                                                       # a draft SEP is a pull request of the spec until merged
                                                       "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/"))
        first_round = run_report.lines[1]
        assert first_round, "no handler line recorded for round 1"
        assert all(run_report.first_line <= n < run_report.first_line + len(run_report.source)
                   for n in first_round)


async def test_highlighted_lines_are_the_ones_that_asked_and_answered() -> None:
    report = await run_lesson(LESSONS_BY_ID["confirm-delete"])
    run = report.runs[0]

    def text(n: int) -> str:
        return run.source[n - run.first_line].strip()

    asked = [text(n) for n in run.lines[1]]
    answered = [text(n) for n in run.lines[2]]
    assert any("add_elicitation(" in line for line in asked)
    assert not any("add_text" in line for line in asked)
    assert any("add_text" in line for line in answered)
    assert not any("add_elicitation(" in line for line in answered)


async def test_async_handlers_are_traced_across_awaits() -> None:
    import asyncio

    from mrtr_studio.engine.handler_api import Request

    async def handler(session, request, response):  # type: ignore[no-untyped-def]
        first = 1
        await asyncio.sleep(0)
        second = first + 1
        return second

    recorder = LineRecorder()
    wrapped = recorder.wrap(handler)
    request = Request.__new__(Request)
    request.round = 3
    assert await wrapped(None, request, None) == 2
    source, start = handler_source(wrapped)
    ran = [source[n - start].strip() for n in recorder.lines_for_round(3)]
    assert ran == ["first = 1", "await asyncio.sleep(0)", "second = first + 1", "return second"]


async def test_scaling_out_replays_the_completed_state_accepted_by_memory_refused_by_the_shared_store() -> None:
    from mrtr_studio.teaching.lessons import SEED_LOAD_BALANCER, SPEC_SINGLE_USE

    lesson = LESSONS_BY_ID["scaling-out"]
    assert SEED_LOAD_BALANCER in lesson.intro and SPEC_SINGLE_USE in lesson.intro
    report = await run_lesson(lesson)
    retries = [next(m for m in r.messages if m.round == 2 and m.direction == "client->server") for r in report.runs]
    states = [m.message["params"]["requestState"] for m in retries]
    assert states[1] == states[0] == states[2]  # the very state that completed on node 1
    answers = [next(m for m in r.messages if m.round == 2 and m.direction == "server->client") for r in report.runs]
    assert answers[0].message["result"]["content"][0]["text"] == "File deleted"
    assert answers[1].message["result"]["content"][0]["text"] == "File deleted"  # per-node memory: twice
    assert answers[2].message["error"]["data"]["reason"] == "replayed"  # the shared store refuses


async def test_the_token_lesson_binds_states_to_the_verified_iss_and_sub() -> None:
    import base64
    import json

    from mrtr_studio.auth.local_issuer import LESSON_ISSUER

    report = await run_lesson(LESSONS_BY_ID["another-user-tokens"])
    [run] = report.runs
    asked = next(m for m in run.messages if m.kind == "input_required")
    state = asked.message["result"]["requestState"]
    part = state.split(".")[1]
    payload = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    assert payload["p"] == f"{LESSON_ISSUER}#alice"
    refused = next(m for m in run.messages if m.kind == "error")
    assert refused.message["error"]["data"]["reason"] == "principal"
