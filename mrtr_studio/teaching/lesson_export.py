"""A lesson run as a page to share: every run's diagram, messages, explanations and the code that ran."""

from ..trace import html_export
from .lesson_runner import LessonReport


def sections(report: LessonReport) -> list[html_export.Section]:
    return [
        html_export.Section(
            title=f"{index}. {run.run.method} {run.run.target} ({run.run.era})",
            operation=run.operation,
            messages=run.messages,
            explanations={seq: (step.text, step.spec) for seq, step in run.steps.items()},
            source=run.source,
            first_line=run.first_line,
            lines=run.lines,
        )
        for index, run in enumerate(report.runs, 1)
    ]


def lesson_html(report: LessonReport) -> str:
    return html_export.page(report.lesson.title, sections(report), report.lesson.intro)


def lesson_markdown(report: LessonReport, mermaid: dict[str, str] | None = None) -> str:
    return html_export.markdown(report.lesson.title, sections(report), report.lesson.intro, mermaid)
