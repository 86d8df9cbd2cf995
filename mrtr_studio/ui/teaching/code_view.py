"""Handler source beside a lesson: a gutter ("▶ 34 │ ") then the code, wrapped to the width.

Lines wrap only between words, never inside one: the default "at a word boundary or anywhere"
cut identifiers in two ("add_elicita" / "tion(") at presentation size. A dotted name may also
break before one of its dots (a zero-width space marks the place; copied text and toPlainText()
leave it out), so "response.input_required.add_elicitation(" continues ".add_elicitation(" on the
next line instead of running past the edge. A word wider than the whole view still runs past the
right edge, and the view scrolls sideways to it.

A line longer than the view wraps, and a wrapped line that started again at the left edge would
sit under the gutter and read as a new, unindented line (the code of a lesson at presentation
size wraps often). Each line therefore hangs: its continuation starts under its own code, after
the gutter and the line's indentation. QPlainTextEdit ignores block margins, hence a QTextEdit.
The gutter and the indentation are joined by non-breaking spaces, so a line never breaks right
after them (which left the gutter alone on a line); toPlainText() gives ordinary spaces back.
"""

import re

from PySide6.QtCore import QEvent, QMimeData
from PySide6.QtGui import QFontDatabase, QTextCursor, QTextOption
from PySide6.QtWidgets import QTextEdit, QWidget

GUTTER_END = "│ "
NBSP = "\u00a0"
SOFT_BREAK = "\u200b"  # zero-width space: a place a line may break, drawn as nothing
_DOT_IN_NAME = re.compile(r"(?<=[\w)\]])(?=\.[A-Za-z_])")  # before the dot of a.b, f().b, x[0].b


def hang_of(line: str) -> int:
    """How many characters a wrapped continuation of `line` is indented: gutter plus indentation."""
    line = line.replace(NBSP, " ")
    cut = line.find(GUTTER_END)
    gutter = cut + len(GUTTER_END) if cut >= 0 else 0
    code = line[gutter:]
    return gutter + len(code) - len(code.lstrip(" "))


def unbreakable_margin(line: str) -> str:
    """`line` with the spaces of its gutter and indentation made non-breaking, and a soft break
    before each dot inside a dotted name of its code."""
    hang = hang_of(line)
    return line[:hang].replace(" ", NBSP) + _DOT_IN_NAME.sub(SOFT_BREAK, line[hang:])


def plain(text: str) -> str:
    """The code as written: no soft breaks, ordinary spaces."""
    return text.replace(SOFT_BREAK, "").replace(NBSP, " ")


class CodeView(QTextEdit):
    """Read-only monospaced source whose wrapped lines hang under their own code."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setAcceptRichText(False)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)  # no line hidden past the edge
        self.setWordWrapMode(QTextOption.WrapMode.WordWrap)  # between words only: identifiers stay whole
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))

    def setPlainText(self, text: str) -> None:
        super().setPlainText("")  # not with the text: setPlainText turns non-breaking spaces into spaces
        cursor = QTextCursor(self.document())
        code, soft = cursor.charFormat(), cursor.charFormat()
        soft.setFontPointSize(1)  # the code font has no glyph for it: a fallback's tall line, unless tiny
        pieces = "\n".join(unbreakable_margin(line) for line in text.split("\n")).split(SOFT_BREAK)
        for index, piece in enumerate(pieces):
            if index:
                cursor.insertText(SOFT_BREAK, soft)
            cursor.insertText(piece, code)
        self.moveCursor(QTextCursor.MoveOperation.Start)
        self.hang_lines()

    def toPlainText(self) -> str:
        return plain(super().toPlainText())

    def createMimeDataFromSelection(self) -> QMimeData:
        """What is copied is the code as written, without the soft breaks."""
        data = QMimeData()
        data.setText(plain(self.textCursor().selection().toPlainText()))
        return data

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # zoomed: the indents are in pixels
            self.hang_lines()

    def hang_lines(self) -> None:
        """Give every line a hanging indent as wide as its gutter and indentation."""
        space = self.fontMetrics().horizontalAdvance(" ")
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        block = self.document().begin()
        while block.isValid():
            hang = hang_of(block.text()) * space
            layout = block.blockFormat()
            if layout.leftMargin() != hang or layout.textIndent() != -hang:
                layout.setLeftMargin(hang)
                layout.setTextIndent(-hang)
                cursor.setPosition(block.position())
                cursor.setBlockFormat(layout)
            block = block.next()
        cursor.endEditBlock()
