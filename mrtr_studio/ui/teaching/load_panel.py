"""The Cluster view's Load page: `mrtr-studio load` against the running cluster (studio/cluster_load.py),
off the GUI thread, with a live progress, then its figures drawn: flows/s, p50/p90/p99 per round and
for the whole flow (load_chart.py), errors by code and reason, and a table per node.

The settings are the command's: tool, arguments (JSON), concurrency, duration, rate (0: as fast as
the workers go), directly to each node or through a HAProxy in front of them. A bad setting is said
inline; the run ends by itself at its duration, and Stop ends it at once with the figures so far.
"""

import asyncio
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from ... import defaults
from ...protocol.peer_text import printable
from ...teaching.cluster import Cluster
from ...teaching.cluster_services import missing_programs
from ..async_bridge import in_flight, spawn
from ..builders import column_layout, named, push_button, splitter, text_label
from ..tables import read_only_table
from .load_chart import LatencyChart

if TYPE_CHECKING:  # the load's machinery (replay/load.py) is imported at the first run, not with the window
    from ...studio.cluster_load import ClusterLoad, ClusterLoadPlan, ClusterLoadResult

NEED_CLUSTER = "✖ Start the cluster first."
NO_CLUSTER = "Start the cluster, then run MRTR flows against it under load."
READY = ("Run MRTR flows against the running cluster under load: every round of each flow, figures per round "
         "and per node.")
NODE_COLUMNS = ("Node", "Flows", "Flows/s", "Failed", "Flow p50 ms", "p90", "p99", "Errors")
ERROR_COLUMNS = ("Error (code and reason)", "Flows")


def _cell(text: str) -> QTableWidgetItem:
    item = QTableWidgetItem(printable(text, 400))
    item.setToolTip(item.text())
    return item


def _table(columns: tuple[str, ...], name: str, accessible: str) -> QTableWidget:
    table = named(read_only_table(columns, accessible), name)
    table.verticalHeader().setVisible(False)
    table.setWordWrap(False)
    return table


class LoadPanel(QWidget):
    def __init__(self, cluster: Callable[[], Cluster | None], balancer_port: Callable[[], int | None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("clusterLoad")
        self.cluster = cluster
        self.balancer_port = balancer_port
        self.load: ClusterLoad | None = None
        self.result: ClusterLoadResult | None = None
        self.task: asyncio.Task[ClusterLoadResult | None] | None = None
        self.tool = named(QLineEdit("delete_file"), "loadTool", "Tool to call under load")
        self.arguments = named(QLineEdit('{"path": "/tmp/report.txt"}'), "loadArguments", "Arguments (JSON)")
        self.concurrency = named(QSpinBox(), "loadConcurrency", "Concurrency: flows in flight")
        self.concurrency.setRange(1, 256)
        self.concurrency.setValue(defaults.LOAD_CONCURRENCY)
        self.duration = named(QDoubleSpinBox(), "loadDuration", "Duration")
        self.duration.setRange(0.1, defaults.LOAD_MAX_DURATION)
        self.duration.setValue(defaults.LOAD_DURATION)
        self.duration.setSuffix(" s")
        self.rate = named(QDoubleSpinBox(), "loadRate", "Rate: flows started per second")
        self.rate.setRange(0, 100000)
        self.rate.setSpecialValueText("as fast as it goes")
        self.rate.setSuffix(" flows/s")
        self.balanced = named(QCheckBox("Through HAProxy in front of the nodes"), "loadThroughBalancer")
        has_haproxy = "haproxy" not in missing_programs(("haproxy",))
        self.balanced.setEnabled(has_haproxy)
        self.balanced.setToolTip("Each request balanced on its own; the node of each answer from x-served-by."
                                 if has_haproxy else "haproxy is not installed (Debian package: haproxy)")
        self.run_button = push_button("loadRun", "▶ Run load", self.start)
        self.stop_button = push_button("loadStop", "Stop load", self.stop)
        self.progress = named(QProgressBar(), "loadProgress", "Load progress")
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        self.status = text_label("loadStatus", NO_CLUSTER)
        self.chart = LatencyChart()
        self.nodes = _table(NODE_COLUMNS, "loadNodes", "Figures per node")
        self.errors = _table(ERROR_COLUMNS, "loadErrors", "Errors by code and reason")
        errors = self.errors.horizontalHeader()
        errors.setStretchLastSection(False)
        errors.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        errors.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self._timer = QTimer(self)
        self._timer.setInterval(200)
        self._timer.timeout.connect(self._show_progress)
        self._build()
        self.update_controls()

    def _build(self) -> None:
        form = QFormLayout()
        form.addRow("Tool", self.tool)
        form.addRow("Arguments", self.arguments)
        numbers = QHBoxLayout()
        for label, widget in (("Concurrency", self.concurrency), ("Duration", self.duration), ("Rate", self.rate)):
            numbers.addWidget(QLabel(label))
            numbers.addWidget(widget)
        numbers.addStretch(1)
        form.addRow(numbers)
        buttons = QHBoxLayout()
        for button in (self.balanced, self.run_button, self.stop_button):
            buttons.addWidget(button)
        buttons.addWidget(self.progress, 1)
        tables = splitter("loadTables", Qt.Orientation.Horizontal, self.nodes, self.errors, sizes=(640, 300))
        figures = splitter("loadFigures", Qt.Orientation.Vertical, self.chart, tables, sizes=(260, 140))
        column_layout(self, form, buttons, self.status, figures)

    @property
    def busy(self) -> bool:
        return in_flight(self.task)

    def update_controls(self) -> None:
        up = self.cluster() is not None
        if self.status.text() in (NO_CLUSTER, NEED_CLUSTER, READY):  # the hint follows the cluster; results stay
            self.status.setText(READY if up else NO_CLUSTER)
        self.run_button.setEnabled(up and not self.busy)
        self.stop_button.setEnabled(self.busy)

    def plan(self) -> "ClusterLoadPlan":
        """The settings as a plan; ValueError naming the setting that is wrong."""
        from ...studio.cluster_load import ClusterLoadPlan

        try:
            arguments = json.loads(self.arguments.text() or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"Arguments: not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(arguments, dict):
            raise ValueError("Arguments: a JSON object, e.g. {\"path\": \"/tmp/a\"}")
        rate = self.rate.value() or None
        plan = ClusterLoadPlan(self.tool.text().strip(), arguments, self.concurrency.value(), self.duration.value(),
                               rate, through_balancer=self.balanced.isChecked())
        plan.check()
        return plan

    def start(self) -> "asyncio.Task[ClusterLoadResult | None] | None":
        cluster = self.cluster()
        if self.busy:
            return None
        if cluster is None:
            self._say(NEED_CLUSTER)
            return None
        from ...studio.cluster_load import ClusterLoad

        try:
            self.load = ClusterLoad(cluster, self.plan(), self.balancer_port())
        except ValueError as exc:
            self._say(f"✖ {exc}")
            return None
        self.result = None
        self.chart.clear()
        self.nodes.setRowCount(0)
        self.errors.setRowCount(0)
        self.progress.setValue(0)
        self.task = spawn(self._run(self.load), "cluster load")
        self.task.add_done_callback(lambda _t: self.update_controls())
        self._timer.start()
        self.update_controls()
        return self.task

    def stop(self) -> None:
        if self.load is not None and self.busy:
            self.load.stop()

    def shutdown(self) -> None:
        """The view closes or the app quits: the load's task is cancelled (its balancer stopped)."""
        self._timer.stop()
        if self.busy and self.task is not None:
            self.task.cancel()

    def _say(self, text: str) -> None:
        self.status.setText(printable(text, 2000))

    async def _run(self, load: "ClusterLoad") -> "ClusterLoadResult | None":
        plan = load.plan
        self._say(f"Running {plan.tool} under load: {plan.concurrency} concurrent for {plan.duration:g} s…")
        try:
            result = await load.run()
        except (OSError, RuntimeError, ValueError) as exc:  # the balancer did not start, a node is gone
            self._say(f"✖ The load did not run: {type(exc).__name__}: {exc}")
            return None
        finally:
            self._timer.stop()
        self.result = result
        self.show_result(result)
        return result

    def _show_progress(self) -> None:
        if self.load is None:
            return
        now = self.load.progress()
        self.progress.setValue(int(1000 * now.elapsed / now.duration) if now.duration else 0)
        self.progress.setFormat(f"{now.elapsed:.1f} of {now.duration:g} s · {now.completed} flows, "
                                f"{now.failed} failed")

    def show_result(self, result: "ClusterLoadResult") -> None:
        document = result.report.to_json()
        self.progress.setValue(1000)
        self.progress.setFormat(f"{document['completed']} flows, {document['failed']} failed")
        stopped = " (stopped)" if result.stopped else ""
        self._say(f"{document['completed']} flow(s) completed, {document['failed']} failed in "
                  f"{document['seconds']:.2f} s{stopped}: {document['flows_per_second']:.1f} flows/s "
                  f"({result.report.plan.work.concurrency} concurrent, {result.via}).")
        self.chart.show_report(document, f"{document['flows_per_second']:.1f} flows/s · latency, ms")
        self._fill_nodes(document)
        errors = document["errors"]
        self.errors.setRowCount(len(errors))
        for row, (label, count) in enumerate(errors.items()):
            self.errors.setItem(row, 0, _cell(label))
            self.errors.setItem(row, 1, _cell(str(count)))

    def _fill_nodes(self, document: dict[str, Any]) -> None:
        nodes = document["nodes"]
        self.nodes.setRowCount(len(nodes))
        seconds = document["seconds"]
        for row, (node, tally) in enumerate(nodes.items()):
            flow = tally["flow"]
            count = flow.get("count", 0)
            failed = sum(tally["errors"].values())
            figures = [f"{flow[p]:.2f}" if count else "—" for p in ("p50", "p90", "p99")]
            rate = f"{count / seconds:.1f}" if seconds > 0 else "—"
            cells = [node, str(count), rate, str(failed), *figures,
                     ", ".join(f"{label}: {count}" for label, count in tally["errors"].items()) or "none"]
            for column, text in enumerate(cells):
                self.nodes.setItem(row, column, _cell(text))
        self.nodes.resizeColumnsToContents()
