"""Presentation mode reads cleanly (issue 22, item 11): a round's separator label is drawn in the same
font as every other label, with its line stopping short of the text on both sides; the handler code
wraps between words and never inside an identifier, a word wider than the view scrolls sideways."""

import re
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QApplication

from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.diagram import SequenceDiagramView
from mrtr_studio.ui.diagram.items import LABEL_FONT
from mrtr_studio.ui.diagram.separator_item import GAP, SeparatorItem
from mrtr_studio.ui.presentation import SCALE
from mrtr_studio.ui.selection import Selection
from mrtr_studio.ui.teaching.lesson_view import LessonView
from tests.trace.view_flows import run_flow

IDENTIFIER = re.compile(r"[A-Za-z0-9_]")


def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


@pytest.fixture
def presenting_font(qapp: Any) -> Iterator[None]:
    """The application's font enlarged as Presentation.enter() does, and put back afterwards."""
    normal = qapp.font()
    bigger = qapp.font()
    bigger.setPointSizeF(normal.pointSizeF() * SCALE)
    qapp.setFont(bigger)
    yield
    qapp.setFont(normal)


def separators(view: SequenceDiagramView) -> list[SeparatorItem]:
    return [item for item in view.scene.items() if isinstance(item, SeparatorItem)]


def test_round_labels_scale_with_the_other_labels_and_the_line_leaves_them_room(
        qtbot: Any, presenting_font: None) -> None:
    store = TraceStore()
    run_flow(store, "plan_trip")  # many rounds, so many separators
    view = SequenceDiagramView(store, Selection())
    qtbot.addWidget(view)
    view.resize(1366, 700)
    view.show()
    qtbot.waitExposed(view)
    view.set_presentation(True)
    settle()
    drawn = separators(view)
    assert len(drawn) >= 2 and any(item.label == "Round 2" for item in drawn)
    arrow = next(iter(view.arrow_items.values()))
    label_height = QFontMetricsF(arrow._label_font()).height()
    for item in drawn:
        # The same font as an arrow's label, whatever the application's font is: one zoom scales both.
        assert item.font.pointSizeF() == pytest.approx(LABEL_FONT.pointSizeF())
        assert item.label_rect().height() == pytest.approx(label_height)
        ink = item.ink_rect()
        assert ink.width() > 0 and ink.top() < item.separator.y < ink.bottom()  # the label sits on the line
        pieces = item.segments()
        assert pieces, item.label
        for line in pieces:
            assert line.y1() == line.y2() == item.separator.y
            span = QRectF(line.x1(), line.y1() - 0.5, line.x2() - line.x1(), 1)
            assert not span.intersects(ink.adjusted(-GAP + 1, -1, GAP - 1, 1)), (item.label, line, ink)
        left, right = pieces[0], pieces[-1]
        assert left.x2() <= ink.left() - GAP + 1 and right.x1() >= ink.right() + GAP - 1
        assert right.x2() == pytest.approx(view.geometry_now.width - 10)  # across the diagram after it
        assert item.boundingRect().contains(ink)
    # Spreading the lanes (a wider view) carries the line to the new width, still around the label.
    view.resize(1800, 700)
    settle()
    view.relayout()
    for item in separators(view):
        assert item.segments()[-1].x2() == pytest.approx(view.geometry_now.width - 10)


def presented(qtbot: Any, lesson: str, width: int) -> LessonView:
    """A lesson view in presentation mode showing `lesson`'s handler, its code box `width` wide."""
    view = LessonView()
    qtbot.addWidget(view)
    view.resize(1366, 700)
    view.show()
    qtbot.waitExposed(view)
    view.set_presentation(True)
    view.select_lesson(lesson)
    view.source.setFixedWidth(width)
    return view


def line_breaks(view: LessonView) -> list[tuple[str, int]]:
    """Each wrapped line's text and where a continuation starts in it."""
    breaks = []
    block = view.source.document().begin()
    while block.isValid():
        layout = block.layout()
        for index in range(1, layout.lineCount() if layout is not None else 0):
            breaks.append((block.text(), layout.lineAt(index).textStart()))
        block = block.next()
    return breaks


@pytest.mark.parametrize("width", [420, 640])
def test_presented_code_wraps_between_words_never_inside_an_identifier(
        qtbot: Any, presenting_font: None, width: int) -> None:
    # long lines: response.input_required.add_elicitation(key, message, schema)
    view = presented(qtbot, "wizard", width)
    settle()
    breaks = line_breaks(view)
    assert breaks, "at this width and size the long handler lines wrap"
    for text, at in breaks:
        before, after = text[at - 1], text[at]
        assert not (IDENTIFIER.match(before) and IDENTIFIER.match(after)), (text[:at] + " / " + text[at:])
    words = {word for text, _ in breaks for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)}
    assert "add_elicitation" in words  # the line the issue saw cut ("add_elicita/tion(") is among them
    if width >= 640:  # a dotted name breaks before a dot: no line runs past the right edge
        assert view.source.horizontalScrollBar().maximum() == 0
        assert any(text[at:].startswith(".add_elicitation(") for text, at in breaks)


def test_copied_code_is_the_code_as_written(qtbot: Any, presenting_font: None) -> None:
    view = LessonView()
    qtbot.addWidget(view)
    view.show()
    view.set_presentation(True)
    view.select_lesson("wizard")
    view.source.selectAll()
    view.source.copy()
    copied = QApplication.clipboard().text()
    assert "response.input_required.add_elicitation(key, message, schema)" in copied
    assert "\u200b" not in copied and "\u00a0" not in copied and copied == view.source.toPlainText()


def test_a_word_wider_than_the_code_view_scrolls_sideways(qtbot: Any, presenting_font: None) -> None:
    view = presented(qtbot, "wizard", 260)  # narrower than "response.input_required.add_elicitation(key,"
    settle()
    scroll = view.source.horizontalScrollBar()
    assert scroll.maximum() > 0  # the overlong word is reachable, not cut
    for text, at in line_breaks(view):
        assert not (IDENTIFIER.match(text[at - 1]) and IDENTIFIER.match(text[at])), text


def test_every_code_line_is_as_tall_as_the_code_font_makes_it(qtbot: Any, presenting_font: None) -> None:
    view = presented(qtbot, "wizard", 420)
    settle()
    heights: dict[bool, set[float]] = {True: set(), False: set()}  # holding a soft break or not
    block = view.source.document().begin()
    while block.isValid():
        layout = block.layout()
        heights["\u200b" in block.text()] |= {layout.lineAt(i).height() for i in range(layout.lineCount())}
        block = block.next()
    # Lines holding a soft break (a dotted name) are exactly as tall as the others: no uneven spacing.
    assert len(heights[False]) == 1 and heights[True] == heights[False], heights
    assert abs(heights[False].pop() - view.source.fontMetrics().height()) <= 1


def test_a_ran_line_is_highlighted_on_every_row_it_wraps_to(qtbot: Any, presenting_font: None) -> None:
    from PySide6.QtGui import QColor

    from mrtr_studio.ui.diagram.palette import line_highlight

    view = presented(qtbot, "confirm-delete", 420)
    view._show_source(0, [38, 44], 2)  # the lines a round ran (▶), as a step shows them
    settle()
    assert view.highlighted_code()[0] == 'if not request.has_input_response("confirm"):'  # no soft breaks
    assert not view.source.textCursor().hasSelection()
    wanted = QColor(line_highlight(view.palette())).rgb()
    image = view.source.viewport().grab().toImage()
    document = view.source.document()
    offset = view.source.verticalScrollBar().value()
    checked = 0
    for selection in view.source.extraSelections():
        block = selection.cursor.block()
        top = document.documentLayout().blockBoundingRect(block).top() - offset
        layout = block.layout()
        for index in range(layout.lineCount()):
            line = layout.lineAt(index)
            y = int(top + line.y() + line.height() / 2)
            if 0 <= y < image.height():
                assert image.pixelColor(image.width() - 4, y).rgb() == wanted, (block.text(), index)
                checked += index > 0
    assert checked >= 1  # a continuation row was among them, highlighted too
