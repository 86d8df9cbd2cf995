"""The replay page's "task across nodes" run: one row per request, with the node that served it.

Thin: `teaching.replay_lab.ReplayLab.task_across` starts a redis-server and three `serve` nodes sharing
it (optionally behind HAProxy), follows `long_report` from node 0 through node 1 to node 2 with
the tasks extension declared, and stops everything; this box only shows the hops.
"""

from PySide6.QtWidgets import QPushButton

from ...teaching.task_across import TaskAcrossReport
from .common import ReportBox

COLUMNS = ("Step", "Request", "Node", "Task")


class TaskAcrossBox(ReportBox):
    def __init__(self) -> None:
        run_button = QPushButton("▶ Run long_report as a task across the nodes")
        super().__init__("Task across nodes (shared Redis store)",
                         "Created on node 0, polled on node 1, answered on node 2: not run yet.", COLUMNS,
                         "Task steps across the nodes", above=run_button)
        self.run_button = run_button
        self.setToolTip("long_report becomes a task on node 0, is polled on node 1 and answered and followed "
                        "to its end on node 2 (or wherever HAProxy sends each request)")

    def show_report(self, report: TaskAcrossReport | None, note: str = "") -> None:
        if report is None:
            self.show_nothing(note)
            return
        self.verdict.setText(" ".join(filter(None, [report.summary(), note])))
        self.fill([(str(row + 1), hop.method, hop.served_by.replace("node", "node "), hop.status)
                   for row, hop in enumerate(report.hops)], range(3))
