"""The replay page's "task across nodes" run: one row per request, with the node that served it.

Thin: `teaching.replay_lab.ReplayLab.task_across` starts a redis-server and three `serve` nodes sharing
it (optionally behind HAProxy), follows `long_report` from node 0 through node 1 to node 2 with
the tasks extension declared, and stops everything; this box only shows the hops.
"""

from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from ...teaching.task_across import TaskAcrossReport

COLUMNS = ("Step", "Request", "Node", "Task")


class TaskAcrossBox(QGroupBox):
    def __init__(self) -> None:
        super().__init__("Task across nodes (shared Redis store)")
        self.setToolTip("long_report becomes a task on node 0, is polled on node 1 and answered and followed "
                        "to its end on node 2 (or wherever HAProxy sends each request)")
        self.run_button = QPushButton("▶ Run long_report as a task across the nodes")
        self.verdict = QLabel("Created on node 0, polled on node 1, answered on node 2: not run yet.")
        self.verdict.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setAccessibleName("Task steps across the nodes")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)
        box = QVBoxLayout(self)
        box.addWidget(self.run_button)
        box.addWidget(self.verdict)
        box.addWidget(self.table, 1)

    def show_report(self, report: TaskAcrossReport | None, note: str = "") -> None:
        if report is None:
            self.table.setRowCount(0)
            self.verdict.setText(note or "Skipped.")
            return
        self.verdict.setText(" ".join(filter(None, [report.summary(), note])))
        self.table.setRowCount(len(report.hops))
        for row, hop in enumerate(report.hops):
            cells = (str(row + 1), hop.method, hop.served_by.replace("node", "node "), hop.status)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(row, column, item)
        for column in range(3):
            self.table.resizeColumnToContents(column)

    def rows(self) -> list[tuple[str, ...]]:
        return [tuple(self.table.item(r, c).text() for c in range(len(COLUMNS))) for r in range(self.table.rowCount())]
