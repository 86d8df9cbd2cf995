"""Every lesson runs to its expected end, explains every message and shows the code that ran."""

import pytest

from mrtr_studio.app.lesson_runner import run_lesson
from mrtr_studio.app.lessons import LESSONS, LESSONS_BY_ID
from mrtr_studio.app.line_recorder import LineRecorder, handler_source

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
                                                       "https://modelcontextprotocol.io/extensions/tasks/"))
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
