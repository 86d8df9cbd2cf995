"""Every lesson played through the LessonView: run, then walked with Step, reading what the widget shows."""

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument

from mrtr_studio.teaching.lessons import LESSONS, step_key
from mrtr_studio.ui.teaching.lesson_view import LessonView
from tests.ui.test_teaching_loop import qt_loop, run_until


@pytest.fixture
def loop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    with qt_loop(qapp) as running:
        yield running


@pytest.fixture
def view(qtbot, loop) -> LessonView:
    widget = LessonView()
    qtbot.addWidget(widget)
    widget.resize(1300, 800)
    widget.show()
    return widget


def plain(rich: str) -> str:
    document = QTextDocument()
    document.setHtml(rich)
    return " ".join(document.toPlainText().split())


def run_to_end(qtbot, loop, view: LessonView) -> None:
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    assert view.running
    run_until(loop, lambda: not view.running, timeout=30, what=f"lesson {view.lesson().id}")
    run_until(loop, lambda: view.task is not None and view.task.done(), timeout=5, what="the lesson task")
    assert view.task is not None and view.task.exception() is None
    # Finished: it can run again and be exported.
    assert view.run_button.isEnabled() and view.html_button.isEnabled() and view.markdown_button.isEnabled()


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.id for lesson in LESSONS])
def test_each_lesson_runs_and_every_step_is_explained(qtbot, loop, view, lesson) -> None:
    view.select_lesson(lesson.id)
    assert view.lessons.currentItem().text() == lesson.title
    run_to_end(qtbot, loop, view)
    assert view.status.text().startswith("✔ Finished")
    report = view.reports[lesson.id]
    assert [r.outcome for r in report.runs] == [run.expect for run in lesson.runs]
    messages = view.messages()
    assert len(messages) == sum(len(r.messages) for r in report.runs)
    assert view.position == len(messages) - 1  # a finished run shows its last step
    seen = []
    for index in range(len(messages)):
        qtbot.mouseClick(view.step_button, Qt.MouseButton.LeftButton)  # from the end, Step starts over
        assert view.position == index
        entry = messages[index]
        run = lesson.runs[view.run_index(entry)]
        step = run.steps[step_key(entry.round, entry.kind)]
        shown = view.explanation.text()
        assert plain(shown).startswith(" ".join(step.text.replace("`", "").split())), (entry.kind, shown)
        assert f'href="{step.spec}"' in shown
        assert f"Step {index + 1} of {len(messages)}" in view.step_label.text()
        # The diagram follows: the step's arrow is the highlighted one.
        assert view.diagram.operation_id == entry.operation_id
        assert view.diagram.arrow_items[entry.seq].highlighted
        ran = report.runs[view.run_index(entry)].lines[entry.round]
        assert len(view.highlighted_code()) == len(ran), f"round {entry.round}: {view.highlighted_code()}"
        if not ran:  # a rejected retry never reaches the handler, and the view says so
            assert "did not run" in view.source_label.text()
        seen.append((entry.operation_id, entry.seq))  # a task polls several times in one round
    assert len(set(seen)) == len(messages)


def test_round_one_of_delete_highlights_the_add_elicitation_line(qtbot, loop, view) -> None:
    view.select_lesson("confirm-delete")
    run_to_end(qtbot, loop, view)
    messages = view.messages()
    view.show_step(1)  # round 1: the server's input_required answer
    assert messages[1].kind == "input_required" and messages[1].round == 1
    round_one = view.highlighted_code()
    assert any("add_elicitation(" in line for line in round_one)
    assert not any("add_text" in line for line in round_one)
    assert "ran in round 1" in view.source_label.text()
    view.show_step(3)
    assert any("add_text" in line for line in view.highlighted_code())
    # Clicking an arrow moves the lesson to that message.
    view.diagram.arrow_clicked(view.diagram.arrow_items[messages[1].seq].arrow)
    assert view.position == 1
    assert any("add_elicitation(" in line for line in view.highlighted_code())


def test_step_before_running_plays_the_lesson_and_stops_on_the_first_message(
        qtbot, loop, view) -> None:
    view.select_lesson("wizard")
    assert view.messages() == []
    assert "Press Run" in view.step_label.text()
    assert view.source.toPlainText()  # the handler is shown before anything runs
    qtbot.mouseClick(view.step_button, Qt.MouseButton.LeftButton)
    run_until(loop, lambda: not view.running and view.lesson().id in view.reports, timeout=30)
    assert view.position == 0
    qtbot.mouseClick(view.step_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(view.back_button, Qt.MouseButton.LeftButton)
    assert view.position == 0


def test_html_export_holds_the_svg_diagram_and_every_explanation(qtbot, loop, view, tmp_path: Path) -> None:
    view.select_lesson("legacy-client")
    run_to_end(qtbot, loop, view)
    page = view.export(str(tmp_path / "lesson.html")).read_text(encoding="utf-8")
    assert page.count("<svg") == len(view.lesson().runs)
    assert "<script" not in page
    import html
    for run in view.reports["legacy-client"].runs:
        for step in run.steps.values():
            assert html.escape(step.text) in page
    markdown = view.export(str(tmp_path / "lesson.md")).read_text(encoding="utf-8")
    assert markdown.startswith("# " + view.lesson().title)
    assert markdown.count("```mermaid") == len(view.lesson().runs)
    assert re.search(r"\(\[spec\]\(https://modelcontextprotocol\.io/specification/2026-07-28/", markdown)


def test_exports_wait_for_a_run(qtbot, loop, view, tmp_path: Path) -> None:
    view.select_lesson("roots")
    assert not view.html_button.isEnabled()
    with pytest.raises(RuntimeError):
        view.export(str(tmp_path / "x.html"))


def test_switching_lessons_shows_each_lessons_own_status(qtbot, loop, view) -> None:
    view.select_lesson("confirm-delete")
    run_to_end(qtbot, loop, view)
    assert view.status.text().startswith("✔ Finished")
    view.select_lesson("wizard")  # not run yet: nothing of the previous lesson's "Finished"
    assert "Finished" not in view.status.text()
    assert "Press Run" in view.step_label.text()
    view.select_lesson("confirm-delete")
    assert view.status.text().startswith("✔ Finished")


def test_a_lesson_finishing_while_another_is_shown_keeps_its_status_to_itself(qtbot, loop, view) -> None:
    view.select_lesson("confirm-delete")
    view.start()
    view.select_lesson("roots")
    run_until(loop, lambda: not view.running, timeout=30, what="the lesson in the background")
    assert "Finished" not in view.status.text()
    view.select_lesson("confirm-delete")
    assert view.status.text().startswith("✔ Finished")


def test_step_forward_and_step_back_are_the_presenters_slots(qtbot, loop, view) -> None:
    view.select_lesson("confirm-delete")
    run_to_end(qtbot, loop, view)
    last = len(view.messages()) - 1
    assert view.position == last
    view.step_forward()  # from the end, back to the start
    assert view.position == 0
    view.step_forward()
    view.step_forward()
    assert view.position == 2
    view.step_back()
    assert view.position == 1 and view.diagram.arrow_items[view.messages()[1].seq].highlighted


def test_a_wrapped_source_line_continues_under_its_own_code_not_under_the_gutter(qtbot, view) -> None:
    view.select_lesson("wizard")
    view.source.setFixedWidth(320)  # narrow: long handler lines wrap, as at presentation size
    qtbot.wait(10)
    document = view.source.document()
    document.adjustSize()
    space = view.source.fontMetrics().horizontalAdvance(" ")
    wrapped = 0
    block = document.begin()
    while block.isValid():
        layout = block.layout()
        text = block.text().replace("\u00a0", " ")  # the margin's spaces are non-breaking
        if layout is not None and layout.lineCount() > 1:
            wrapped += 1
            gutter = text.index("│ ") + 2
            indent = len(text[gutter:]) - len(text[gutter:].lstrip(" "))
            first, second = layout.lineAt(0), layout.lineAt(1)
            assert first.x() < space  # the gutter starts at the edge
            assert first.textLength() > gutter + indent, text  # and is never left alone on its line
            assert second.x() >= (gutter + indent) * space - 1, (text, second.x())  # the rest hangs under the code
        block = block.next()
    assert wrapped > 0


def test_before_a_run_the_intro_is_shown_once(qtbot, view) -> None:
    view.select_lesson("wizard")
    intro = view.lesson().intro
    assert view.intro.isVisibleTo(view) and plain(view.intro.text()) == plain(intro)
    assert plain(view.explanation.text()) != plain(intro)  # not repeated under the diagram
    assert not view.explanation.isVisibleTo(view)  # nor an empty line left in its place
    view.set_presentation(True)  # the intro line hides: the explanation carries it
    assert not view.intro.isVisibleTo(view) and plain(view.explanation.text()) == plain(intro)
    view.set_presentation(False)
    assert plain(view.explanation.text()) != plain(intro)


def test_leaving_presentation_mode_gives_the_title_and_status_their_size_back(qtbot, view) -> None:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    normal = app.font()
    before = (view.title.font().pointSizeF(), view.status.font().pointSizeF())
    bigger = app.font()
    bigger.setPointSizeF(normal.pointSizeF() * 1.6)
    try:  # as Presentation does: the application's font first, then the views are told
        app.setFont(bigger)
        view.set_presentation(True)
        assert view.title.font().pointSizeF() > before[0]
        app.setFont(normal)
        view.set_presentation(False)
        qtbot.wait(10)
        assert (view.title.font().pointSizeF(), view.status.font().pointSizeF()) == before
    finally:
        app.setFont(normal)
