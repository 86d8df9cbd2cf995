"""Small pieces the teaching views share: the demo targets, their default arguments, verdict marks.

Verdicts are shown as a symbol, a word and a colour together, so nobody has to tell red from green.
"""

import asyncio
import json
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QStyle,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...teaching.lesson_runner import LessonReport
from ...teaching.lessons import LESSONS
from ...trace import TraceStore
from ...trace.mermaid import to_mermaid
from ..async_bridge import spawn
from ..diagram.palette import pick
from ..selection import Selection
from ..tables import read_only_table

#: What the pickers offer before a server has been listed (the demo server's askers).
DEMO_TARGETS: tuple[tuple[str, str], ...] = (
    ("tools/call", "delete_file"), ("tools/call", "deploy_wizard"), ("tools/call", "summarize"),
    ("tools/call", "count_roots"), ("tools/call", "connect_account"), ("tools/call", "plan_trip"),
    ("prompts/get", "code_review"), ("resources/read", "config://secrets"),
)

#: word -> (symbol, colour on a light background, colour on a dark one, icon)
_MARKS: dict[str, tuple[str, str, str, QStyle.StandardPixmap]] = {
    "pass": ("✔", "#1e7b34", "#6fd68a", QStyle.StandardPixmap.SP_DialogApplyButton),
    "complete": ("✔", "#1e7b34", "#6fd68a", QStyle.StandardPixmap.SP_DialogApplyButton),
    "warn": ("⚠", "#a05e00", "#f2b05a", QStyle.StandardPixmap.SP_MessageBoxWarning),
    "fail": ("✖", "#c0392b", "#ff8a7a", QStyle.StandardPixmap.SP_MessageBoxCritical),
    "error": ("✖", "#c0392b", "#ff8a7a", QStyle.StandardPixmap.SP_MessageBoxCritical),
    "skipped": ("○", "#666666", "#b0b0b0", QStyle.StandardPixmap.SP_MessageBoxInformation),
}


def default_arguments(method: str, target: str) -> dict[str, Any]:
    """The arguments a lesson uses for this target, so every picker starts from a meaningful call."""
    for lesson in LESSONS:
        for run in lesson.runs:
            if (run.method, run.target) == (method, target):
                return dict(run.arguments)
    return {}


R = TypeVar("R")


class PickedRun(Generic[R]):
    """A teaching view's ▶ Run: the picked call run as one task at a time. `start` returns the task, or
    None when one is running or the arguments are not a JSON object (said through `_refused`)."""

    #: The task's name in logs.
    task_name: ClassVar[str]
    task: "asyncio.Task[R | None] | None"
    picker: "OperationPicker"

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(self) -> "asyncio.Task[R | None] | None":
        if self.running:
            return None
        try:
            method, target, arguments = self.picker.read()
        except ValueError as exc:
            self._refused(f"✖ Arguments: {exc}")
            return None
        self.task = spawn(self._run(method, target, arguments), self.task_name)
        return self.task

    async def _run(self, method: str, target: str, arguments: dict[str, Any]) -> R | None:
        raise NotImplementedError

    def _refused(self, text: str) -> None:
        raise NotImplementedError


class OperationPicker:
    """A tool/prompt/resource combo and its JSON arguments, kept in step: picking fills default arguments."""

    def __init__(self, name: str) -> None:
        self.combo = QComboBox()
        narrow_combo(self.combo)
        self.combo.setAccessibleName(name)
        self.arguments = QLineEdit()
        self.arguments.setAccessibleName("Arguments (JSON)")
        self.combo.currentIndexChanged.connect(lambda _i: self._changed())

    def fill(self, targets: list[tuple[str, str]]) -> None:
        fill_targets(self.combo, targets)

    def pick(self, targets: list[tuple[str, str]], method: str, target: str,
             arguments: dict[str, Any] | None = None) -> None:
        fill_targets(self.combo, [*targets, (method, target)])
        self.combo.setCurrentIndex(find_target(self.combo, (method, target)))
        if arguments is not None:
            self.arguments.setText(json.dumps(arguments))

    def _changed(self) -> None:
        chosen = self.combo.currentData()
        if chosen:
            self.arguments.setText(json.dumps(default_arguments(*chosen)))

    def read(self) -> tuple[str, str, dict[str, Any]]:
        """(method, target, arguments); ValueError says what is wrong with the arguments."""
        try:
            arguments = json.loads(self.arguments.text() or "{}")
        except ValueError as exc:
            raise ValueError(f"the arguments are not JSON: {exc}") from exc
        if not isinstance(arguments, dict):
            raise ValueError("the arguments must be a JSON object")
        method, target = self.combo.currentData() or ("tools/call", self.combo.currentText())
        return method, target, arguments


def narrow_combo(combo: QComboBox, characters: int = 14) -> None:
    """Let a combo shrink to `characters` wide (its list still shows whole names), so a row never forces
    the window wider than a laptop's screen."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(characters)


def target_text(method: str, target: str) -> str:
    prefix = {"prompts/get": "prompt: ", "resources/read": "resource: "}.get(method, "")
    return prefix + target


def find_target(combo: QComboBox, key: tuple[str, str]) -> int:
    """The row holding (method, name); compared in Python, as Qt cannot compare Python tuples."""
    return next((i for i in range(combo.count()) if tuple(combo.itemData(i) or ()) == tuple(key)), -1)


def fill_targets(combo: QComboBox, targets: list[tuple[str, str]],
                 default: tuple[str, str] = ("tools/call", "delete_file")) -> None:
    """Offer `targets` (method, name) in `combo`, keeping the current pick (else `default`) when offered."""
    current = combo.currentData() or default
    combo.blockSignals(True)
    combo.clear()
    for method, target in dict.fromkeys(targets):
        combo.addItem(target_text(method, target), (method, target))
    index = find_target(combo, current)
    if index < 0:
        index = max(find_target(combo, default), 0)
    combo.blockSignals(False)
    combo.setCurrentIndex(-1)
    combo.setCurrentIndex(index)


def symbol(word: str) -> str:
    return _MARKS[word][0] if word in _MARKS else "•"


def mark(word: str) -> str:
    """`✔ pass`, `✖ fail`: the symbol and the word, never colour alone."""
    return f"{symbol(word)} {word}"


def mark_colour(word: str, palette: QPalette | None = None) -> QColor:
    """The verdict's colour, the one of its pair that reads on `palette` (the application's by default)."""
    palette = palette or QApplication.palette()
    if word not in _MARKS:
        return palette.color(QPalette.ColorRole.Text)
    return pick(palette, _MARKS[word][1], _MARKS[word][2])


def mark_icon(word: str, widget: QWidget | None = None) -> QIcon:
    pixmap = _MARKS.get(word, ("", "", "", QStyle.StandardPixmap.SP_MessageBoxInformation))[3]
    style = widget.style() if widget is not None else QApplication.style()
    return style.standardIcon(pixmap)


def mermaid_for(report: LessonReport) -> dict[str, str]:
    """Mermaid diagrams per operation, for a Markdown export."""
    return {run.operation.id: to_mermaid(run.operation, run.messages) for run in report.runs}


class ReportBox(QGroupBox):
    """A titled box showing a run's report: a verdict line over a read-only table, one line per row with
    each cell whole in its tooltip (the replay page's sides and its task across nodes)."""

    def __init__(self, title: str, verdict: str, columns: Sequence[str], name: str,
                 above: QWidget | None = None) -> None:
        super().__init__(title)
        self.columns = tuple(columns)
        self.verdict = QLabel(verdict)
        self.verdict.setWordWrap(True)
        self.table = read_only_table(columns, name)
        self.table.verticalHeader().setVisible(False)
        box = QVBoxLayout(self)
        if above is not None:
            box.addWidget(above)
        box.addWidget(self.verdict)
        box.addWidget(self.table, 1)

    def show_nothing(self, note: str) -> None:
        """No report (the run was skipped or did not happen): no rows, and why (else "Skipped.")."""
        self.table.setRowCount(0)
        self.verdict.setText(note or "Skipped.")

    def fill(self, rows: Sequence[Sequence[str]], fitted: Iterable[int]) -> None:
        """The table's rows; the columns in `fitted` sized to their contents, the last taking the rest."""
        self.table.setRowCount(len(rows))
        for row, cells in enumerate(rows):
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(row, column, item)
        for column in fitted:
            self.table.resizeColumnToContents(column)

    def rows(self) -> list[tuple[str, ...]]:
        return [tuple(self.table.item(r, c).text() for c in range(len(self.columns)))
                for r in range(self.table.rowCount())]


class OwnTracePage(QWidget):
    """A teaching page over its own trace (the window's when given `store`) with its own Selection:
    what it runs is drawn there, and a click moves the window's selection only when the page passes it on."""

    def __init__(self, store: TraceStore | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store if store is not None else TraceStore()
        self.selection = Selection(self)
