"""Compare servers…: two sides picked (the current connection, this window's trace, or a URL,
`stdio:COMMAND`, `memory:` or a file typed in or browsed to), compared with the same interface diff as
`mrtr-studio diff` (studio/server_compare.py), and the result shown grouped by area — discovery,
tools, prompts, resources, templates, skills, flows — each difference with its severity (breaking
first, marked with a sign as well as a colour). "Save report…" writes the readable report, JSON or
SARIF (studio/diff_report_files.py, as `diff --sarif` does), 0600.

The comparison runs as a task on the window's event loop (qasync): the dialog stays responsive, a
slow or dead side ends at the timeout with its error shown under the fields.
"""

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from .. import defaults
from ..protocol.peer_text import printable
from ..studio.diff_report_files import write_report
from ..studio.diff_severity import SEVERITIES
from ..studio.server_compare import (
    CURRENT,
    FORMS,
    THIS_TRACE,
    CompareError,
    CompareSource,
    ServerCompare,
    parse_source,
)
from ..studio.server_diff import DiffReport
from .async_bridge import spawn
from .builders import push_button, text_label
from .file_dialogs import ask_open, ask_save
from .tables import second_level
from .theme import status_colours

if TYPE_CHECKING:
    from .main_window import MainWindow

CHOICES = (("The current connection", "connection"), ("This window's trace", "trace"),
           ("A server or file…", "other"))
MARKS = {"breaking": "✗ breaking", "warning": "! warning", "info": "· info"}
AREAS = {"server": "Discovery", "tools": "Tools", "prompts": "Prompts", "resources": "Resources",
         "resourceTemplates": "Resource templates", "skills": "Skills", "flows": "Flows"}
REPORT_FILTERS = "Readable report (*.txt);;SARIF (*.sarif);;JSON (*.json)"


class SidePicker(QWidget):
    """One side: what it is, and for "a server or file" the text and a Browse button."""

    def __init__(self, name: str, choice: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = QComboBox()
        self.kind.setObjectName(f"compareKind{name}")
        for text, data in CHOICES:
            self.kind.addItem(text, data)
        self.kind.setCurrentIndex(self.kind.findData(choice))
        self.text = QLineEdit()
        self.text.setObjectName(f"compareText{name}")
        self.text.setPlaceholderText("http(s)://…, stdio:COMMAND ARGS, memory:, or a .mrtr.json / list --json file")
        self.text.setAccessibleName(f"Side {name}: server or file")
        self.browse = QPushButton("Browse…")
        self.browse.clicked.connect(self._browse)
        self.kind.currentIndexChanged.connect(lambda _i: self._update())
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.kind)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.browse)
        self._update()

    def _update(self) -> None:
        other = self.kind.currentData() == "other"
        self.text.setEnabled(other)
        self.browse.setEnabled(other)

    def _browse(self) -> None:
        path = ask_open(self, "Compare with a file", "Traces and listings (*.json);;All files (*)", "traces")
        if path:
            self.text.setText(path)

    def set(self, choice: str, text: str = "") -> None:
        self.kind.setCurrentIndex(self.kind.findData(choice))
        self.text.setText(text)

    def source(self) -> CompareSource:
        """What is picked (ValueError for text that is no server nor file)."""
        choice = self.kind.currentData()
        if choice == "connection":
            return CURRENT
        if choice == "trace":
            return THIS_TRACE
        return parse_source(self.text.text())


class CompareServersView(QDialog):
    def __init__(self, window: "MainWindow") -> None:
        super().__init__(window)
        self.setObjectName("compareServers")
        self.setWindowTitle("Compare servers")
        self.window_ = window
        self.service = ServerCompare(window.studio.connection, window.studio.store)
        self.timeout = defaults.COMPARE_TIMEOUT
        self.report: DiffReport | None = None
        self.task: asyncio.Task[None] | None = None
        self.a = SidePicker("A", "connection")
        self.b = SidePicker("B", "other")
        self.run_button = push_button("compareRun", "Compare", self.compare_now)
        self.save_button = push_button("compareSave", "Save report…", self._save_dialog, enabled=False)
        self.error = text_label("compareError", error=True)
        self.summary = text_label("compareSummary",
                                  f"A is the before, B the after: what A has and B lacks is breaking. Sides: {FORMS}.")
        self.tree = QTreeWidget()
        self.tree.setObjectName("compareChanges")
        self.tree.setAccessibleName("Differences")
        self.tree.setHeaderLabels(["Severity", "Subject", "Difference"])
        self.tree.header().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        grid = QGridLayout()
        grid.addWidget(QLabel("A (before)"), 0, 0)
        grid.addWidget(self.a, 0, 1)
        grid.addWidget(QLabel("B (after)"), 1, 0)
        grid.addWidget(self.b, 1, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addLayout(buttons)
        layout.addWidget(self.error)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree, 1)
        self.resize(900, 560)

    # --- comparing -------------------------------------------------------------------------------

    def compare_now(self) -> "asyncio.Task[None] | None":
        """Read both sides and compare them, as a task (returned for tests); a bad side is said at once."""
        self.error.setText("")
        try:
            a, b = self.a.source(), self.b.source()
        except ValueError as exc:
            self.error.setText(printable(str(exc), 2000))
            return None
        self.run_button.setEnabled(False)
        self.summary.setText(f"Comparing {a.label} with {b.label}…")
        self.task = spawn(self._compare(a, b), "comparing servers")
        return self.task

    async def _compare(self, a: CompareSource, b: CompareSource) -> None:
        try:
            report = await self.service.compare(a, b, self.timeout)
        except CompareError as exc:
            self.error.setText(printable(str(exc), 2000))
            self.summary.setText("Not compared.")
            return
        finally:
            self.run_button.setEnabled(True)
        self.show_report(report)

    def show_report(self, report: DiffReport) -> None:
        self.report = report
        self.save_button.setEnabled(True)
        self.tree.clear()
        colours = status_colours()
        order = {name: n for n, name in enumerate(SEVERITIES)}
        areas: dict[str, QTreeWidgetItem] = {}
        for change in sorted(report.changes, key=lambda c: (list(AREAS).index(c.area) if c.area in AREAS
                                                            else len(AREAS), order[c.severity])):
            parent = areas.get(change.area)
            if parent is None:
                parent = areas[change.area] = QTreeWidgetItem(self.tree, ["", AREAS.get(change.area, change.area), ""])
                parent.setExpanded(True)
            item = QTreeWidgetItem(parent, [MARKS[change.severity], printable(change.subject, 300),
                                            printable(change.what + ("" if change.counted else " (not counted)"),
                                                      2000)])
            colour = colours.get("error") if change.severity == "breaking" else None
            if colour:
                item.setForeground(0, QBrush(QColor(colour)))
        for area, parent in areas.items():
            kinds = [c.severity for c in report.changes if c.area == area and c.counted]
            tally = ", ".join(f"{kinds.count(s)} {s}" for s in SEVERITIES if s in kinds)
            parent.setText(2, tally or "shown only")
        for note in report.notes:
            QTreeWidgetItem(self.tree, ["note", "", printable(note, 2000)])
        counts = report.counts()
        total = sum(counts.values())
        self.summary.setText(f"{printable(report.a, 300)} → {printable(report.b, 300)}: "
                             + (f"{total} difference(s): " + ", ".join(f"{n} {name}" for name, n in counts.items())
                                if total else "no differences"))
        self.tree.resizeColumnToContents(0)
        self.tree.resizeColumnToContents(1)

    def changes_shown(self) -> list[tuple[str, str, str]]:
        """(severity, subject, difference) of every row under an area (what the tests read)."""
        return [(item.text(0).split()[-1], item.text(1), item.text(2)) for _area, item in second_level(self.tree)]

    # --- saving ----------------------------------------------------------------------------------

    def _save_dialog(self) -> None:
        path = ask_save(self, "Save the comparison", "interface-diff.txt", REPORT_FILTERS, "exports")
        if path:
            self.save_report(path)

    def save_report(self, path: str) -> bool:
        if self.report is None:
            return False
        try:
            written = write_report(path, self.report)
        except (OSError, ValueError) as exc:
            self.error.setText(f"Cannot save the report: {exc}")
            return False
        self.window_.show_info(f"Saved the comparison to {written}")
        return True


def show_compare_servers(window: "MainWindow") -> CompareServersView:
    from .focus_order import present

    view = getattr(window, "compare_servers", None)
    if view is None:
        view = window.compare_servers = CompareServersView(window)
    present(view)
    return view
