"""Every lesson that runs a handler asking for roots or sampling says they are deprecated in 2026-07-28
(SEP-2577) and why they are still taught; the lessons that use neither say nothing of it."""

from mrtr_studio.teaching.lessons import LESSONS

#: The demo handlers that ask for roots or sampling (in either era).
USES_DEPRECATED = {"count_roots", "summarize", "plan_trip"}


def test_lessons_using_roots_or_sampling_say_they_are_deprecated_and_why_they_stay() -> None:
    using = [lesson for lesson in LESSONS if any(run.target in USES_DEPRECATED for run in lesson.runs)]
    assert {lesson.id for lesson in using} >= {"sampling", "roots", "several-inputs", "legacy-client"}
    for lesson in using:
        assert "deprecated in 2026-07-28 (SEP-2577)" in lesson.intro, lesson.id
        assert "legacy servers" in lesson.intro, lesson.id
    for lesson in LESSONS:
        if lesson not in using:
            assert "SEP-2577" not in lesson.intro, lesson.id
