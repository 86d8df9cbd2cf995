"""The Cluster view's Load page against a real cluster of `serve` processes: the load runs off the GUI
thread with a live progress, and the figures drawn (the chart's bars, the per-node and error tables,
flows/s) are the numbers of the load report object. Directly to each node, and through a real HAProxy
where a flow's rounds land on different nodes (random secrets: the errors by code and reason)."""

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt

from mrtr_studio.ui.teaching.cluster_view import ClusterView
from mrtr_studio.ui.teaching.load_chart import PERCENTILES, Bar
from tests.services import require
from tests.ui.test_teaching_cluster import alive, click_and_wait
from tests.ui.test_teaching_loop import click_in_loop, qt_loop, run_until

pytestmark = pytest.mark.slow


@pytest.fixture
def loop(qapp: Any) -> Iterator[asyncio.AbstractEventLoop]:
    with qt_loop(qapp) as running:
        yield running


@pytest.fixture
def view(qtbot: Any, loop: asyncio.AbstractEventLoop) -> Iterator[ClusterView]:
    widget = ClusterView()
    qtbot.addWidget(widget)
    widget.resize(1366, 768)
    widget.show()
    yield widget
    widget.shutdown()


def start(qtbot: Any, loop: asyncio.AbstractEventLoop, view: ClusterView, nodes: int, shared: bool = True) -> None:
    view.node_count.setValue(nodes)
    view.shared.setChecked(shared)
    click_and_wait(qtbot, loop, view, view.start_button, "start the cluster")
    qtbot.mouseClick(view.load_button, Qt.MouseButton.LeftButton)
    assert view.pages.currentWidget() is view.load


def run_load(qtbot: Any, loop: asyncio.AbstractEventLoop, view: ClusterView, concurrency: int,
             duration: float) -> dict[str, Any]:
    panel = view.load
    panel.concurrency.setValue(concurrency)
    panel.duration.setValue(duration)
    seen: list[str] = []
    panel.progress.valueChanged.connect(lambda _v: seen.append(panel.progress.format()))
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert panel.busy and panel.stop_button.isEnabled() and not panel.run_button.isEnabled()
    run_until(loop, lambda: not panel.busy, timeout=duration + 60, what="the load")
    assert panel.result is not None, panel.status.text()
    assert any(" of " in text and " flows, " in text for text in seen)  # the live progress was shown
    return panel.result.report.to_json()


def cells(table: Any) -> list[list[str]]:
    return [[table.item(row, column).text() for column in range(table.columnCount())]
            for row in range(table.rowCount())]


def expected_bars(document: dict[str, Any]) -> list[Bar]:
    groups = [(f"round {n}", stats) for n, stats in document["rounds"].items()] + [("flow", document["flow"])]
    return [Bar(name, p, stats[p]) for name, stats in groups for p in PERCENTILES]


def test_load_directly_to_each_node_draws_the_report(qtbot: Any, loop: asyncio.AbstractEventLoop,
                                                     view: ClusterView) -> None:
    start(qtbot, loop, view, nodes=2)
    assert view.load.status.text().startswith("Run MRTR flows against the running cluster")  # the hint follows
    document = run_load(qtbot, loop, view, concurrency=4, duration=1.0)
    panel = view.load
    assert document["failed"] == 0 and document["completed"] >= 4
    assert set(document["rounds"]) == {"1", "2"}  # delete_file: asks, then completes
    assert panel.chart.bars == expected_bars(document)
    assert f"{document['flows_per_second']:.1f} flows/s" in panel.status.text()
    assert "2 node(s) directly" in panel.status.text()
    nodes = cells(panel.nodes)
    assert [row[0] for row in nodes] == ["node0", "node1"]
    for row in nodes:
        tally = document["nodes"][row[0]]
        assert row[1] == str(tally["flow"]["count"]) and int(row[1]) > 0
        assert row[2] == f"{tally['flow']['count'] / document['seconds']:.1f}"
        assert row[4:7] == [f"{tally['flow'][p]:.2f}" for p in PERCENTILES]
        assert row[3] == "0" and row[7] == "none"
    assert sum(document["nodes"][n]["flow"]["count"] for n in ("node0", "node1")) == document["completed"]
    assert panel.errors.rowCount() == 0


def test_through_haproxy_random_secrets_are_counted_by_reason(qtbot: Any, loop: asyncio.AbstractEventLoop,
                                                              view: ClusterView) -> None:
    require("haproxy")
    start(qtbot, loop, view, nodes=2, shared=False)
    view.load.balanced.setChecked(True)
    document = run_load(qtbot, loop, view, concurrency=2, duration=1.0)
    panel = view.load
    assert document["failed"] > 0 and document["errors"], document
    assert cells(panel.errors) == [[label, str(count)] for label, count in document["errors"].items()]
    assert any(label.startswith("-32602") for label in document["errors"])  # a state the other node signed
    assert "HAProxy at http://127.0.0.1:" in panel.status.text()
    assert [row[0] for row in cells(panel.nodes)] == sorted(document["nodes"])  # named by x-served-by
    assert set(document["nodes"]) <= {"node0", "node1"}
    balancer = panel.load.balancer if panel.load is not None else None
    assert balancer is not None and not balancer.running  # stopped with the run


def test_stop_ends_the_load_with_the_figures_so_far(qtbot: Any, loop: asyncio.AbstractEventLoop,
                                                    view: ClusterView) -> None:
    start(qtbot, loop, view, nodes=1)
    panel = view.load
    panel.duration.setValue(120)
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    run_until(loop, lambda: panel.load is not None and panel.load.progress().completed >= 3, timeout=60,
              what="some flows")
    click_in_loop(qtbot, loop, panel.stop_button)
    run_until(loop, lambda: not panel.busy, timeout=30, what="the load to stop")
    assert panel.result is not None and panel.result.stopped, panel.status.text()
    assert panel.result.report.completed >= 3 and "(stopped)" in panel.status.text()
    assert panel.chart.bars == expected_bars(panel.result.report.to_json())
    pids = [node.process.pid for node in view.cluster.nodes] if view.cluster else []
    click_and_wait(qtbot, loop, view, view.stop_button, "stop the cluster")
    assert pids and not any(alive(pid) for pid in pids)


def test_a_bad_setting_is_said_inline(qtbot: Any, loop: asyncio.AbstractEventLoop, view: ClusterView) -> None:
    panel = view.load
    assert not panel.run_button.isEnabled()  # no cluster yet
    assert panel.status.text().startswith("Start the cluster, then")
    assert panel.start() is None and panel.status.text() == "✖ Start the cluster first."
    start(qtbot, loop, view, nodes=1)
    assert panel.run_button.isEnabled() and not panel.status.text().startswith("✖")  # no stale refusal
    panel.arguments.setText("[1]")
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert not panel.busy and panel.status.text().startswith("✖ Arguments: a JSON object")
    panel.arguments.setText("{")
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert panel.status.text().startswith("✖ Arguments: not JSON")
