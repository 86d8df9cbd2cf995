"""A cluster of real engine processes: the seed's load-balancer advice, made visible.

N `mrtr-studio serve` processes on loopback ports; each round of delete_file goes to the next node
(teaching.cluster.RoundRobinTransport); the diagram draws one lane per node and the table says which node
answered which round. A click on an arrow selects that message in the window (the JSON inspector). With one
shared secret the second node verifies the first node's state and the flow completes; with random
per-instance secrets it cannot, and round two is rejected. Starting, running and stopping are tasks
on the qasync loop, so the window never waits for a process; closing the view or quitting the app
terminates the processes. The second page replays a completed single-use state across nodes, with
per-node memory and with a shared Redis (replay_panel).
"""

import asyncio
from collections.abc import Coroutine
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...client.session import RunResult
from ...studio.controller import describe_error
from ...teaching.cluster import Cluster, cluster_lanes, node_lane, run_round_robin, start_cluster
from ...teaching.cluster_services import free_port
from ...trace import TraceStore
from ...trace.diagram_layout import message_summary
from ..async_bridge import in_flight, spawn
from ..diagram import SequenceDiagramView
from ..diagram.zoom import forward_zoom_keys
from ..selection import Selection
from .common import OwnTracePage, symbol
from .load_panel import LoadPanel
from .replay_panel import ReplayPanel

ROUND_COLUMNS = ("Round", "Answered by", "Node URL", "Answer")
TOOL, ARGUMENTS = "delete_file", {"path": "/tmp/report.txt"}


class ClusterView(OwnTracePage):
    def __init__(self, store: TraceStore | None = None, parent: QWidget | None = None,
                 window_selection: Selection | None = None) -> None:
        super().__init__(store, parent)
        #: The window's selection (with `store` the window's store): a clicked arrow is selected there too.
        self.window_selection = window_selection
        self.selection.select_operation("(no run yet)")
        self.selection.messageChanged.connect(self._pass_on)
        self.cluster: Cluster | None = None
        #: The loopback port the nodes accept as a Host: where the Load page's HAProxy listens.
        self.balancer_port: int | None = None
        self.last: RunResult | None = None
        self.task: asyncio.Task[Any] | None = None
        self._build()
        self._timer = QTimer(self)
        self._timer.setInterval(500)
        self._timer.timeout.connect(self._show_nodes)
        self._update()

    def _build(self) -> None:
        self.node_count = QSpinBox()
        self.node_count.setRange(1, 8)
        self.node_count.setValue(3)
        self.node_count.setAccessibleName("Number of nodes")
        self.shared = QCheckBox("One shared secret")
        self.shared.setChecked(True)
        self.shared.setToolTip("Unchecked: every node makes up its own random secret, as a server does when "
                               "no secret is configured.")
        self.shared.toggled.connect(lambda _on: self._update())
        self.start_button = QPushButton("Start cluster")
        self.stop_button = QPushButton("Stop cluster")
        self.run_button = QPushButton(f"▶ Run {TOOL} across the nodes")
        self.start_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self.run_button.clicked.connect(self.run)
        self.load_button = QPushButton("Load…")
        self.load_button.setObjectName("clusterLoadButton")
        self.load_button.setToolTip("MRTR flows under load against the cluster: flows/s, latency per round, per node")
        self.load_button.clicked.connect(self.show_load)
        top = QHBoxLayout()
        for widget in (QLabel("Nodes"), self.node_count, self.shared, self.start_button, self.stop_button,
                       self.load_button):
            top.addWidget(widget)
        top.addStretch(1)
        run_row = QHBoxLayout()  # a row of its own: the view stays narrow enough for a laptop's centre
        run_row.addWidget(self.run_button)
        run_row.addStretch(1)
        self.status = QLabel("No cluster running.")
        self.status.setObjectName("clusterStatus")
        self.verdict = QLabel("")
        self.verdict.setObjectName("clusterVerdict")
        self.verdict.setWordWrap(True)
        self.status.setWordWrap(True)
        self.nodes = QListWidget()
        self.nodes.setAccessibleName("Nodes")
        self.rounds = QTableWidget(0, len(ROUND_COLUMNS))
        self.rounds.setAccessibleName("Rounds across the nodes")
        self.rounds.setHorizontalHeaderLabels(list(ROUND_COLUMNS))
        self.rounds.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.rounds.horizontalHeader().setStretchLastSection(True)
        self.rounds.setWordWrap(False)  # one line per round, elided; the whole answer in the cell's tooltip
        self.diagram = SequenceDiagramView(self.store, self.selection, lane_of=node_lane, lanes=cluster_lanes(0))
        tables = QSplitter(Qt.Orientation.Horizontal)
        tables.addWidget(self.nodes)
        tables.addWidget(self.rounds)
        tables.setSizes([420, 600])
        split = QSplitter(Qt.Orientation.Vertical)  # the diagram takes the full width: one lane per node
        split.addWidget(tables)
        split.addWidget(self.diagram)
        split.setChildrenCollapsible(False)
        split.setStretchFactor(1, 1)
        split.setSizes([110, 600])  # the node list and rounds need a few rows; the diagram the rest
        box = QVBoxLayout(self)
        box.addLayout(top)
        box.addLayout(run_row)
        box.addWidget(self.status)
        box.addWidget(self.verdict)
        #: Replay across nodes: per-node memory against a shared Redis store, side by side.
        self.replay = ReplayPanel()
        self.pages = QTabWidget()
        self.pages.addTab(split, "Flow across nodes")
        self.pages.addTab(self.replay, "Replay: memory vs shared store")
        #: `mrtr-studio load` against the running cluster, its figures drawn.
        self.load = LoadPanel(lambda: self.cluster, lambda: self.balancer_port)
        self.pages.addTab(self.load, "Load")
        box.addWidget(self.pages, 1)

    def show_load(self) -> None:
        self.pages.setCurrentWidget(self.load)

    # --- tasks -------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return in_flight(self.task)

    def _spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> "asyncio.Task[Any] | None":
        if self.busy:
            coro.close()
            return None
        self.task = spawn(coro, what)
        self.task.add_done_callback(lambda _t: self._update())
        self._update()
        return self.task

    def start(self) -> "asyncio.Task[Any] | None":
        return self._spawn(self._start(self.node_count.value(), self.shared.isChecked()), "start cluster")

    def stop(self) -> "asyncio.Task[Any] | None":
        return self._spawn(self._stop(), "stop cluster")

    def run(self) -> "asyncio.Task[Any] | None":
        return self._spawn(self._run(), "cluster run")

    async def _start(self, size: int, shared: bool) -> None:
        await self._stop()
        self.status.setText(f"Starting {size} engine process{'es' if size != 1 else ''}…")
        try:
            self.balancer_port = free_port()
            self.cluster = await start_cluster(size, shared_secret=shared, balancer_port=self.balancer_port)
            self.diagram.set_lanes(cluster_lanes(size))
        except Exception as exc:
            self.status.setText(f"✖ The cluster did not start: {type(exc).__name__}: {exc}")
            raise
        self._timer.start()
        self._show_nodes()

    async def _stop(self) -> None:
        cluster, self.cluster = self.cluster, None
        if cluster is None:
            return
        self.status.setText("Stopping the cluster…")
        self.load.stop()
        await cluster.stop()
        self._timer.stop()
        self._show_nodes(cluster)
        self.status.setText("Cluster stopped: every process has exited.")

    async def _run(self) -> RunResult | None:
        cluster = self.cluster
        if cluster is None:
            self.status.setText("Start the cluster first.")
            return None
        mode = "one shared secret" if cluster.secret else "random per-node secrets"
        self.verdict.setText(f"Running {TOOL}, each round on the next node…")
        result = await run_round_robin(cluster, self.store, TOOL, ARGUMENTS, label=f"cluster: {mode}")
        self.last = result
        self.selection.select_operation(result.operation.id)
        self._show_rounds(result, cluster)
        return result

    # --- showing -----------------------------------------------------------------------------

    def _show_rounds(self, result: RunResult, cluster: Cluster) -> None:
        answers = [m for m in self.store.messages_of(result.operation.id) if m.direction == "server->client"]
        self.rounds.setRowCount(len(answers))
        for row, entry in enumerate(answers):
            node = entry.transport.get("node")
            cells = (str(entry.round), f"node {node}" if node is not None else "?",
                     str(entry.transport.get("node_url", "")), f"{entry.kind}: {message_summary(entry)}")
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.rounds.setItem(row, column, item)
        self.rounds.resizeColumnsToContents()
        hops = ", ".join(f"round {m.round} on node {m.transport.get('node')}" for m in answers)
        drive = result.drive
        if drive.outcome == "complete":
            self.verdict.setText(f"{symbol('complete')} complete — {hops}. Every node holds the same secret, so "
                                 "any node verifies a state another node signed.")
        else:
            why = ("the node that got the retry did not sign the state and cannot verify it with its own random "
                   "secret. Behind a load balancer, give every instance the same secret."
                   if not cluster.secret else "see the answer in the table.")
            self.verdict.setText(f"{symbol('error')} {describe_error(drive.error)} — {hops}: {why}")

    def _show_nodes(self, cluster: Cluster | None = None) -> None:
        cluster = cluster or self.cluster
        self.nodes.clear()
        if cluster is None:
            return
        for node in cluster.nodes:
            code = node.process.returncode
            state = "running" if code is None else f"exited ({code})"
            text = f"node {node.index} · {state} · pid {node.process.pid} · {node.url}"  # what matters first
            self.nodes.addItem(text)
            self.nodes.item(self.nodes.count() - 1).setToolTip(text)
        if cluster is self.cluster:
            secret = "one shared secret" if cluster.secret else "a random secret each"
            running = sum(1 for n in cluster.nodes if n.process.returncode is None)
            self.status.setText(f"{running} of {len(cluster.nodes)} nodes running, {secret}.")

    def _update(self) -> None:
        busy, up = self.busy, self.cluster is not None
        self.start_button.setEnabled(not busy)
        self.start_button.setText("Restart cluster" if up else "Start cluster")
        self.stop_button.setEnabled(up and not busy)
        self.run_button.setEnabled(up and not busy)
        self.load.update_controls()
        if up and self.cluster is not None and bool(self.cluster.secret) != self.shared.isChecked():
            self.status.setText("The secret setting applies when the cluster is (re)started.")

    def _pass_on(self, seq: int) -> None:
        if self.window_selection is not None and seq >= 0:
            self.window_selection.select_message(seq, self.selection.operation_id)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The zoom keys pressed on the view's buttons and fields zoom its diagram."""
        if not forward_zoom_keys(event, self.diagram.canvas):
            super().keyPressEvent(event)

    def set_presentation(self, on: bool) -> None:
        self.diagram.set_presentation(on)

    # --- shutting down -----------------------------------------------------------------------

    def shutdown(self) -> None:
        """Terminate every node now, without waiting (the app is quitting or the view is closing)."""
        cluster, self.cluster = self.cluster, None
        self._timer.stop()
        self.replay.shutdown()
        self.load.shutdown()
        if cluster is not None:
            cluster.terminate()
            self._show_nodes(cluster)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)
