"""Replay across nodes, side by side: per-node memory lets a single-use state complete again, a shared
Redis store refuses it on every node.

A thin adapter over `teaching.replay_lab.ReplayLab`, which starts two `serve` clusters (and a real
redis-server, and optionally a real HAProxy in front of each), replays a completed `delete_file`
retry to the nodes and stops everything when done; the panel only shows the answers. Where
redis-server or haproxy is missing it says which package to install, and what can run still runs.
"""

import asyncio
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...teaching.cluster_services import PACKAGES, install_hint, missing_programs
from ...teaching.replay_across import Attempt, ReplayReport
from ...teaching.replay_lab import LabOutcome, ReplayLab
from ..async_bridge import in_flight, spawn
from .common import ReportBox
from .task_across_box import TaskAcrossBox

COLUMNS = ("Send", "Node", "Answer")


def availability_text(missing: dict[str, str]) -> str:
    """One line: what is installed, and the command that installs what is not."""
    parts = [f"{name}: {'not installed' if name in missing else 'installed'}" for name in PACKAGES]
    text = " · ".join(parts)
    if missing:
        text += f" — install with `{install_hint(missing)}`; the rest still runs."
    return text


class ReplaySide(ReportBox):
    """One side of the comparison: a verdict and one row per send of the completing retry."""

    def __init__(self, title: str) -> None:
        super().__init__(title, "Not run yet.", COLUMNS, f"{title}: sends")
        self.table.setWordWrap(False)

    def show_report(self, report: ReplayReport | None, skipped: str = "") -> None:
        if report is None:
            self.show_nothing(skipped)
            return
        self.verdict.setText(report.summary())
        rows: list[tuple[str, Attempt]] = []
        if report.first is not None:
            rows.append(("completion", report.first))
        rows += [(f"replay {n}", attempt) for n, attempt in enumerate(report.replays, 1)]
        cells: list[tuple[str, str, str]] = []
        for label, attempt in rows:
            node = attempt.served_by.replace("node", "node ") or attempt.url
            answer = f"✔ {attempt.answer}" if attempt.accepted else f"✖ {attempt.answer}"
            if attempt.reason:  # the reason first: it is what a narrow column must still show
                answer = f"✖ {attempt.reason} ({attempt.answer.split(' ', 1)[0]})"
            cells.append((label, node, answer))
        self.fill(cells, (0, 1))  # the answer takes the rest, elided, whole in its tooltip


class ReplayPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lab = ReplayLab()
        self.task: asyncio.Task[Any] | None = None
        self.outcome: LabOutcome | None = None
        self.run_button = QPushButton("▶ Replay delete_file on every node")
        self.run_button.clicked.connect(self.run)
        self.balancer = QCheckBox("Through HAProxy")
        self.balancer.setToolTip("Round-robin behind one URL: each cluster behind a real HAProxy on a loopback "
                                 "port; the client sends every "
                                 "request to its one URL and HAProxy picks the node (shown in X-Served-By).")
        row = QHBoxLayout()
        row.addWidget(self.run_button)
        row.addWidget(self.balancer)
        row.addStretch(1)
        self.available = QLabel(availability_text(missing_programs()))
        self.available.setObjectName("replayAvailability")
        self.available.setWordWrap(True)
        self.available.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status = QLabel("Two clusters of three nodes with one secret: each node's own memory, then one "
                             "shared Redis (serve --store redis://…). Started for the comparison, stopped after it.")
        self.status.setWordWrap(True)
        self.memory = ReplaySide("Per-node memory")
        self.memory.setToolTip("serve --store memory on each node (the default)")
        self.shared = ReplaySide("Shared Redis store")
        self.shared.setToolTip("serve --store redis://127.0.0.1:PORT/0 on every node, one redis-server")
        sides = QSplitter(Qt.Orientation.Horizontal)
        sides.addWidget(self.memory)
        sides.addWidget(self.shared)
        sides.setChildrenCollapsible(False)
        self.task_box = TaskAcrossBox()
        self.task_box.run_button.clicked.connect(self.run_task)
        stack = QSplitter(Qt.Orientation.Vertical)
        stack.addWidget(sides)
        stack.addWidget(self.task_box)
        stack.setChildrenCollapsible(False)
        box = QVBoxLayout(self)
        box.addLayout(row)
        box.addWidget(self.available)
        box.addWidget(self.status)
        box.addWidget(stack, 1)

    @property
    def busy(self) -> bool:
        return in_flight(self.task)

    def run(self) -> "asyncio.Task[Any] | None":
        return self._start(self._run(self.balancer.isChecked()), "replay across nodes")

    def run_task(self) -> "asyncio.Task[Any] | None":
        """The "task across nodes" run (shares the HAProxy box and the one-run-at-a-time rule)."""
        return self._start(self._run_task(self.balancer.isChecked()), "task across nodes")

    def _start(self, work: Any, name: str) -> "asyncio.Task[Any] | None":
        if self.busy:
            work.close()
            return None
        self.task = spawn(work, name)
        self.task.add_done_callback(lambda _t: self._enable(True))
        self._enable(False)
        return self.task

    def _enable(self, enabled: bool) -> None:
        self.run_button.setEnabled(enabled)
        self.task_box.run_button.setEnabled(enabled)

    async def _run_task(self, through_balancer: bool) -> None:
        where = "through HAProxy" if through_balancer else "node 0 → node 1 → node 2"
        self.task_box.verdict.setText(f"Starting redis-server and three nodes; running long_report {where}…")
        try:
            report, note = await self.lab.task_across(3, through_balancer)
        except Exception as exc:
            self.task_box.verdict.setText(f"✖ The run did not happen: {type(exc).__name__}: {exc}")
            raise
        self.task_box.show_report(report, note)

    async def _run(self, through_balancer: bool) -> LabOutcome:
        self.available.setText(availability_text(missing_programs()))
        where = "behind HAProxy" if through_balancer else "node by node"
        self.status.setText(f"Starting the clusters and replaying {where}…")
        try:
            outcome = await self.lab.compare(3, through_balancer)
        except Exception as exc:
            self.status.setText(f"✖ The comparison did not run: {type(exc).__name__}: {exc}")
            raise
        self.outcome = outcome
        skipped = next((n for n in outcome.notes if n.startswith("redis-server")), "")
        self.memory.show_report(outcome.memory)
        self.shared.show_report(outcome.shared, skipped)
        done = "Done; every process started for it has stopped."
        self.status.setText(" ".join([done, *outcome.notes]))
        return outcome

    def shutdown(self) -> None:
        """Stop every process of a comparison still running, without waiting."""
        self.lab.terminate()
        if self.busy and self.task is not None:
            self.task.cancel()
