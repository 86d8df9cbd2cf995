"""Three real engine processes from the ClusterView: a shared secret completes, random secrets are rejected."""

import asyncio
import os
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt

from mrtr_studio.ui.teaching.cluster_view import ClusterView
from tests.ui.test_teaching_loop import qt_loop, run_until

pytestmark = pytest.mark.slow


@pytest.fixture
def loop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    with qt_loop(qapp) as running:
        yield running


@pytest.fixture
def view(qtbot, loop) -> Iterator[ClusterView]:
    widget = ClusterView()
    qtbot.addWidget(widget)
    widget.resize(1300, 800)
    widget.show()
    yield widget
    widget.shutdown()  # never leave a process behind, even when an assertion failed


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def click_and_wait(qtbot, loop, view: ClusterView, button, what: str, timeout: float = 60) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert view.busy, f"{what} did not start a task"
    run_until(loop, lambda: not view.busy, timeout=timeout, what=what)
    assert view.task is not None and view.task.exception() is None, view.status.text()


def rounds(view: ClusterView) -> list[tuple[str, str, str]]:
    out = []
    for row in range(view.rounds.rowCount()):
        cells = [view.rounds.item(row, column) for column in (0, 1, 3)]
        out.append(tuple(c.text() if c is not None else "" for c in cells))
    return out  # type: ignore[return-value]


def test_three_nodes_shared_secret_completes_random_secrets_are_rejected(qtbot, loop, view) -> None:
    assert view.node_count.value() == 3 and view.shared.isChecked()
    assert not view.run_button.isEnabled()
    pids: list[int] = []

    click_and_wait(qtbot, loop, view, view.start_button, "start (shared secret)")
    assert view.cluster is not None and len(view.cluster.nodes) == 3
    assert len(set(view.cluster.urls)) == 3
    pids += [node.process.pid for node in view.cluster.nodes]
    assert all(alive(pid) for pid in pids)
    assert view.nodes.count() == 3 and all("running" in view.nodes.item(i).text() for i in range(3))
    click_and_wait(qtbot, loop, view, view.run_button, "shared-secret run")
    assert view.last is not None and view.last.drive.outcome == "complete"
    shown = rounds(view)
    assert [(r, node) for r, node, _ in shown] == [("1", "node 0"), ("2", "node 1")]  # different nodes
    assert shown[0][2].startswith("input_required") and shown[1][2].startswith("complete")
    assert view.verdict.text().startswith("✔ complete")
    arrows = [item.arrow.kind for item in view.diagram.arrow_items.values()]
    assert arrows == ["request", "input_required", "request", "complete"]

    click_and_wait(qtbot, loop, view, view.stop_button, "stop")
    assert view.cluster is None
    view.shared.setChecked(False)
    click_and_wait(qtbot, loop, view, view.start_button, "start (random secrets)")
    assert view.cluster is not None and view.cluster.secret is None
    pids += [node.process.pid for node in view.cluster.nodes]
    click_and_wait(qtbot, loop, view, view.run_button, "random-secret run")
    assert view.last is not None and view.last.drive.outcome == "error"
    assert view.last.drive.error is not None and view.last.drive.error["code"] == -32602
    shown = rounds(view)
    assert [(r, node) for r, node, _ in shown] == [("1", "node 0"), ("2", "node 1")]
    assert shown[1][2].startswith("error: -32602")
    assert view.verdict.text().startswith("✖ -32602 Invalid requestState (signature)")
    assert "same secret" in view.verdict.text()

    click_and_wait(qtbot, loop, view, view.stop_button, "stop")
    assert len(set(pids)) == 6
    run_until(loop, lambda: not any(alive(pid) for pid in pids), timeout=10, what="every process gone")


def test_closing_the_view_stops_the_processes(qtbot, loop, view) -> None:
    view.node_count.setValue(2)
    click_and_wait(qtbot, loop, view, view.start_button, "start")
    assert view.cluster is not None
    processes = [node.process for node in view.cluster.nodes]
    view.close()
    assert view.cluster is None
    run_until(loop, lambda: all(p.returncode is not None for p in processes), timeout=15, what="nodes exited")
    assert not any(alive(p.pid) for p in processes)
