"""The scenario library: a lesson's wire beside the handler code that produced it, explained step by step.

Lessons run on their own fresh engine (teaching.lesson_runner) and are recorded in a trace store, so the
same diagram widget as the studio's draws them. The view keeps a cursor over the lesson's messages:
Step moves it, a click on an arrow moves it, and each position shows the explanation with its spec
link and the handler lines that ran in that message's round.

Readable on a laptop and on a projector: the diagram sits beside the code when there is room and
above it when not; Ctrl+wheel and Ctrl+= / Ctrl+- / Ctrl+0 zoom the diagram, the code and the
explanation; `set_presentation(True)` hides the lesson list and shows code and diagram side by side
at a larger size. `step_forward()` and `step_back()` are the slots a presenter's keys drive.
"""

import asyncio
import html
import re
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Slot
from PySide6.QtGui import QFont, QKeyEvent, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from ...protocol.spec_links import spec_section
from ...teaching.lesson_runner import LessonReport, find_handler, lesson_server, run_lesson
from ...teaching.lessons import LESSONS, LESSONS_BY_ID, Lesson, Step, step_key
from ...teaching.line_recorder import handler_source
from ...trace import StoreEvent, TraceMessage, TraceStore
from ...trace.private_files import write_private
from ..async_bridge import spawn
from ..diagram import SequenceDiagramView, TextZoom
from ..diagram.palette import PALETTE_EVENTS, line_highlight
from ..diagram.zoom import forward_zoom_keys
from ..selection import Selection
from ..store_bridge import StoreBridge
from .code_view import CodeView, plain
from .common import OwnTracePage, mermaid_for

#: An operation id no store holds: the diagram then shows "No operation yet" instead of the newest one.
NOT_RUN = "(lesson not run yet)"
#: Below this width (px) the diagram goes above the code instead of beside it.
SIDE_BY_SIDE_MIN = 980
PRESENTATION_TEXT = 1.6  # how much larger the code and explanation read in presentation mode


def step_html(step: Step) -> str:
    """The explanation as rich text: `code` spans become <code>, the spec section a link."""
    text = re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(step.text))
    return f'<p>{text}</p><p>Spec: <a href="{html.escape(step.spec)}">{html.escape(spec_section(step.spec))}</a></p>'


class LessonView(OwnTracePage):
    def __init__(self, store: TraceStore | None = None, shared: Selection | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(store, parent)
        #: The window's selection (with `store` the window's store), mirrored so the JSON and state
        #: inspectors show the lesson's current message.
        self.shared = shared
        self.reports: dict[str, LessonReport] = {}
        self._statuses: dict[str, str] = {}  # lesson id -> its own status line ("Finished", "Running"…)
        self.presenting = False
        self.operations: dict[str, list[str]] = {}  # lesson id -> its operations, in run order
        self.position = -1
        self.task: asyncio.Task[LessonReport | None] | None = None
        self._running: Lesson | None = None
        self._sources: dict[tuple[str, str], tuple[list[str], int]] = {}
        self._build()
        self._bridge = StoreBridge(self.store, self)
        self._bridge.storeEvent.connect(self._on_store)
        self.selection.messageChanged.connect(self._on_message)
        self.lessons.setCurrentRow(0)

    # --- building ----------------------------------------------------------------------------

    def _build(self) -> None:
        self.lessons = QListWidget()
        self.lessons.setAccessibleName("Lessons")
        self.lessons.setWordWrap(True)  # whole titles, on two lines when the list is narrow
        self.lessons.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.lessons.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.lessons.setSpacing(2)
        for lesson in LESSONS:
            item = QListWidgetItem(lesson.title)
            item.setData(Qt.ItemDataRole.UserRole, lesson.id)
            item.setToolTip(lesson.intro)
            self.lessons.addItem(item)
        self.lessons.currentRowChanged.connect(lambda _row: self._lesson_changed())
        self.title = QLabel()
        self.title.setObjectName("lessonTitle")
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.run_button = QPushButton("▶ Run")
        self.back_button = QPushButton("◀ Back")
        self.step_button = QPushButton("Step ▶")
        self.html_button = QPushButton("HTML…")
        self.html_button.setToolTip("Export the lesson's run as an HTML page (diagrams, code, explanations)")
        self.markdown_button = QPushButton("Markdown…")
        self.markdown_button.setToolTip("Export the lesson's run as Markdown with Mermaid diagrams")
        self.run_button.clicked.connect(lambda: self.start(step=False))
        self.step_button.clicked.connect(self.step)
        self.back_button.clicked.connect(self.back)
        self.html_button.clicked.connect(lambda: self._export_dialog("HTML page (*.html)", ".html"))
        self.markdown_button.clicked.connect(lambda: self._export_dialog("Markdown (*.md)", ".md"))
        buttons = QHBoxLayout()
        for button in (self.run_button, self.back_button, self.step_button, self.html_button, self.markdown_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.status = QLabel()
        self.status.setObjectName("lessonStatus")
        self.status.setWordWrap(True)
        self.diagram = SequenceDiagramView(self.store, self.selection)
        self.step_label = QLabel()
        self.step_label.setObjectName("lessonStep")
        self.step_label.setWordWrap(True)
        self.explanation = QLabel()
        self.explanation.setObjectName("lessonExplanation")
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.TextFormat.RichText)
        self.explanation.setOpenExternalLinks(True)
        self.explanation.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.source = CodeView()  # wrapped lines hang under their own code, not under the gutter
        self.source.setAccessibleName("Handler source; ▶ marks the lines that ran in this round")
        self.source_label = QLabel()
        self.source_label.setWordWrap(True)
        self.text_zoom = TextZoom([self.step_label, self.explanation, self.source_label, self.source], self)
        side = QWidget()
        side_box = QVBoxLayout(side)
        side_box.setContentsMargins(0, 0, 0, 0)
        for widget in (self.step_label, self.explanation, self.source_label, self.source):
            side_box.addWidget(widget)
        side_box.setStretch(3, 1)
        self.content = split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(self.diagram)
        split.addWidget(side)
        split.setSizes([560, 520])
        self.main = main = QWidget()
        main_box = QVBoxLayout(main)
        main_box.setContentsMargins(0, 0, 0, 0)
        for widget in (self.title, self.intro):
            main_box.addWidget(widget)
        main_box.addLayout(buttons)
        main_box.addWidget(self.status)
        main_box.addWidget(split, 1)
        self.title.setWordWrap(True)
        self.outer = outer = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(self.lessons)
        outer.addWidget(main)
        outer.setStretchFactor(1, 1)
        outer.setSizes([200, 1000])
        main.installEventFilter(self)  # re-arrange diagram and code when the room changes
        box = QHBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(outer)

    # --- which lesson ------------------------------------------------------------------------

    def lesson(self) -> Lesson:
        item = self.lessons.currentItem()
        return LESSONS_BY_ID[item.data(Qt.ItemDataRole.UserRole)] if item else LESSONS[0]

    def select_lesson(self, lesson_id: str) -> None:
        for row in range(self.lessons.count()):
            if self.lessons.item(row).data(Qt.ItemDataRole.UserRole) == lesson_id:
                self.lessons.setCurrentRow(row)
                return
        raise KeyError(lesson_id)

    @property
    def running(self) -> bool:
        return self._running is not None

    def messages(self) -> list[TraceMessage]:
        """The current lesson's messages across its runs, in the order they crossed the wire."""
        return [m for op in self.operations.get(self.lesson().id, []) for m in self.store.messages_of(op)]

    def _lesson_changed(self) -> None:
        lesson = self.lesson()
        self.title.setText(f"<b>{html.escape(lesson.title)}</b>")
        self.intro.setText(lesson.intro)
        self.position = -1
        self.status.setText(self._statuses.get(lesson.id, ""))  # this lesson's own, never the previous one's
        ops = self.operations.get(lesson.id)
        if ops:
            self.show_step(len(self.messages()) - 1)
        else:
            self.selection.select_operation(NOT_RUN)
            self.step_label.setText("Press Run to play the lesson, or Step to walk it message by message.")
            self._show_intro()
            self._show_source(0, None)
        self._update_buttons()

    # --- running -----------------------------------------------------------------------------

    def start(self, step: bool = False) -> "asyncio.Task[LessonReport | None] | None":
        """Run the selected lesson on the loop; with `step`, stop the cursor on its first message."""
        if self.running:
            return None
        self._running = self.lesson()
        self.task = spawn(self._run(self.lesson(), step), "lesson")
        self._update_buttons()
        return self.task

    async def _run(self, lesson: Lesson, step: bool) -> LessonReport | None:
        self._running = lesson
        self.operations[lesson.id] = []
        self.reports.pop(lesson.id, None)
        self._set_status(lesson.id, f"Running “{lesson.title}”…")
        try:
            report = await run_lesson(lesson, store=self.store)
        except Exception as exc:
            self._set_status(lesson.id, f"✖ The lesson failed: {type(exc).__name__}: {exc}")
            raise
        finally:
            self._running = None
            self._update_buttons()
        self.reports[lesson.id] = report
        self._update_buttons()  # now that the report exists, it can be exported
        ends = ", ".join(str(r.outcome) for r in report.runs)
        self._set_status(lesson.id, f"{'✔' if report.as_expected else '✖'} Finished: {ends}"
                         + ("" if report.as_expected else " (not what the lesson expects)"))
        if self.lesson().id == lesson.id:
            self.show_step(0 if step else len(self.messages()) - 1)
        return report

    def _set_status(self, lesson_id: str, text: str) -> None:
        """Remember `text` as that lesson's status; show it only while that lesson is the one shown."""
        self._statuses[lesson_id] = text
        if self.lesson().id == lesson_id:
            self.status.setText(text)

    def _on_store(self, event: StoreEvent) -> None:
        lesson = self._running
        if lesson is None:
            return
        if event.kind == "operation_added" and event.operation is not None:
            self.operations[lesson.id].append(event.operation.id)
            if self.lesson().id == lesson.id:
                self.selection.select_operation(event.operation.id)
        elif event.kind == "message_added" and event.message is not None and self.lesson().id == lesson.id \
                and event.message.operation_id in self.operations[lesson.id]:
            self.show_step(len(self.messages()) - 1)  # follow the live run

    # --- stepping ----------------------------------------------------------------------------

    def step(self) -> None:
        """Next message; runs the lesson first when it has not run; from the end, back to the start."""
        count = len(self.messages())
        if count == 0:
            if not self.running:
                self.start(step=True)
            return
        self.show_step(self.position + 1 if self.position + 1 < count else (self.position if self.running else 0))

    def back(self) -> None:
        if self.position > 0:
            self.show_step(self.position - 1)

    @Slot()
    def step_forward(self) -> None:
        """The presenter's "next" (Right, Page Down): the Step button."""
        self.step()

    @Slot()
    def step_back(self) -> None:
        """The presenter's "previous" (Left, Page Up): the Back button."""
        self.back()

    def show_step(self, index: int) -> None:
        messages = self.messages()
        if not 0 <= index < len(messages):
            return
        self.position = index
        entry = messages[index]
        self.selection.select_message(entry.seq, entry.operation_id)
        self._render(entry, index, len(messages))

    def _on_message(self, seq: int) -> None:
        messages = self.messages()
        index = next((i for i, m in enumerate(messages) if m.seq == seq), None)
        if index is not None and index != self.position:
            self.position = index
            self._render(messages[index], index, len(messages))

    def run_index(self, entry: TraceMessage) -> int:
        ops = self.operations.get(self.lesson().id, [])
        return ops.index(entry.operation_id) if entry.operation_id in ops else 0

    def step_of(self, entry: TraceMessage) -> Step | None:
        run = self.lesson().runs[self.run_index(entry)]
        return run.steps.get(step_key(entry.round, entry.kind))

    def _render(self, entry: TraceMessage, index: int, count: int, share: bool = True) -> None:
        arrow = "client → server" if entry.direction == "client->server" else "server → client"
        self.step_label.setText(f"<b>Step {index + 1} of {count}</b> · round {entry.round} · {arrow} · "
                                f"{entry.kind}")
        step = self.step_of(entry)
        self.explanation.setText(step_html(step) if step else "<p>(no explanation for this message)</p>")
        self.explanation.setVisible(True)
        run = self.run_index(entry)
        report = self.reports.get(self.lesson().id)
        lines = report.runs[run].lines_for(entry) if report and run < len(report.runs) else None
        self._show_source(run, lines, entry.round)
        if self.shared is not None and share:  # the window's views read the same store
            self.shared.select_message(entry.seq, entry.operation_id)
        self._update_buttons()

    # --- the handler's code ------------------------------------------------------------------

    def _source(self, run_index: int) -> tuple[list[str], int]:
        lesson = self.lesson()
        report = self.reports.get(lesson.id)
        if report and run_index < len(report.runs):
            return report.runs[run_index].source, report.runs[run_index].first_line
        run = lesson.runs[run_index]
        key = (run.method, run.target)
        if key not in self._sources:
            self._sources[key] = handler_source(find_handler(lesson_server(run.drafts), *key)[0])
        return self._sources[key]

    def _show_source(self, run_index: int, lines: list[int] | None, round_number: int | None = None) -> None:
        """The handler of run `run_index`; `lines` ran in `round_number` (None: not known until the run ends)."""
        source, first = self._source(run_index)
        lit = set(lines or [])
        run = self.lesson().runs[run_index]
        where = ""
        if round_number is not None and lit:
            where = f" — ▶ the lines that ran in round {round_number}"
        elif round_number is not None and lines is not None:
            where = f" — the handler did not run in round {round_number}: the engine answered before it"
        self.source_label.setText(f"Handler of {run.method} {run.target}{where}")
        width = len(str(first + len(source)))
        self.source.setPlainText("\n".join(
            f"{'▶' if first + i in lit else ' '} {first + i:>{width}} │ {text}" for i, text in enumerate(source)))
        selections = []
        for number in sorted(lit):
            block = self.source.document().findBlockByNumber(number - first)
            if not block.isValid():
                continue
            selection = QTextEdit.ExtraSelection()
            selection.format.setBackground(line_highlight(self.palette()))
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            selection.cursor = QTextCursor(block)  # the whole line, its wrapped continuations too
            selection.cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
            selections.append(selection)
        self.source.setExtraSelections(selections)
        if selections:  # the first ran line in view (the cursor at its start: no selection shown)
            self.source.setTextCursor(QTextCursor(selections[0].cursor.block()))
            self.source.ensureCursorVisible()

    def highlighted_code(self) -> list[str]:
        """The code of the highlighted lines, read back from the editor's extra selections."""
        return [plain(s.cursor.block().text()).split("│", 1)[1].strip()
                for s in self.source.extraSelections()]

    # --- export ------------------------------------------------------------------------------

    def _export_dialog(self, filter_text: str, suffix: str) -> None:
        lesson = self.lesson()
        if lesson.id not in self.reports:
            self._set_status(lesson.id, "Run the lesson before exporting it.")
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export lesson", f"lesson-{lesson.id}{suffix}", filter_text)
        if path:
            self.export(path)

    def export(self, path: str) -> Path:
        """Write the current lesson's run as HTML (.html/.htm) or Markdown (anything else)."""
        from ...teaching.lesson_export import lesson_html, lesson_markdown  # the page writers: at the first export

        report = self.reports.get(self.lesson().id)
        if report is None:
            raise RuntimeError("the lesson has not run yet")
        target = Path(path)
        if target.suffix.lower() in (".html", ".htm"):
            text = lesson_html(report)
        else:
            text = lesson_markdown(report, mermaid_for(report))
        write_private(target, text)  # the lesson's traffic: 0600
        self._set_status(self.lesson().id, f"Exported to {target}")
        return target

    def _update_buttons(self) -> None:
        running = self.running
        has_report = self.lesson().id in self.reports
        self.run_button.setEnabled(not running)
        self.back_button.setEnabled(self.position > 0)
        self.html_button.setEnabled(has_report and not running)
        self.markdown_button.setEnabled(has_report and not running)

    # --- size, zoom and presentation ---------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.main and event.type() == QEvent.Type.Resize:
            self._arrange()
        return False

    def _arrange(self) -> None:
        """Diagram beside the code when both keep a readable width, else the diagram above the code."""
        wide = self.presenting or self.main.width() >= SIDE_BY_SIDE_MIN
        wanted = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if self.content.orientation() != wanted:
            self.content.setOrientation(wanted)
            extent = self.content.width() if wide else self.content.height()
            self.content.setSizes([extent * 55 // 100, extent * 45 // 100])

    def changeEvent(self, event: QEvent) -> None:
        """Light/dark switch: the ran lines' highlight is re-picked for the new background (drawn
        again only: the window's selection stays on whatever the person picked since)."""
        super().changeEvent(event)
        if event.type() in PALETTE_EVENTS and hasattr(self, "source"):
            messages = self.messages()
            if 0 <= self.position < len(messages):
                self._render(messages[self.position], self.position, len(messages), share=False)
            else:
                self._show_source(0, None)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The zoom keys pressed anywhere else in the lesson (its buttons, its list) zoom it all."""
        if not forward_zoom_keys(event, self.text_zoom, self.diagram.canvas):
            super().keyPressEvent(event)

    def _show_intro(self) -> None:
        """Before a run the explanation repeats the intro only where the intro line is hidden
        (presentation mode); beside it, the same sentence twice is only noise."""
        lesson = self.lesson()
        self.explanation.setText(html.escape(lesson.intro) if self.presenting else "")
        self.explanation.setVisible(self.presenting)  # empty, it would still leave a gap

    def set_presentation(self, on: bool) -> None:
        """Presentation mode: no lesson list or export buttons; code and diagram side by side, larger."""
        self.presenting = on
        self.lessons.setVisible(not on)
        self.intro.setVisible(not on)
        for button in (self.html_button, self.markdown_button):
            button.setVisible(not on)
        scale = PRESENTATION_TEXT if on else 1.0
        for label in (self.title, self.status):
            if on:
                font = QApplication.font(label)
                font.setPointSizeF(font.pointSizeF() * 1.3)
                label.setFont(font)
            else:  # inherit again: the window's font may not have reached this view yet
                label.setFont(QFont())
        self.text_zoom.set_default(scale)
        self.diagram.set_presentation(on)
        if self.position < 0 and not self.operations.get(self.lesson().id):
            self._show_intro()
        self._arrange()
