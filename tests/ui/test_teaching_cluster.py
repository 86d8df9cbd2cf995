"""Three real engine processes from the ClusterView: a shared secret completes, random secrets are rejected."""

import asyncio
import os
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt

from mrtr_studio.ui.teaching.cluster_view import ClusterView
from tests.services import require
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


def replay_and_wait(qtbot, loop, view: ClusterView, what: str) -> None:  # type: ignore[no-untyped-def]
    panel = view.replay
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert panel.busy, f"{what} did not start a task"
    run_until(loop, lambda: not panel.busy, timeout=120, what=what)
    assert panel.task is not None and panel.task.exception() is None, panel.status.text()


def test_replay_side_by_side_memory_accepts_twice_the_shared_store_refuses_everywhere(qtbot, loop, view) -> None:
    require("redis-server")
    view.pages.setCurrentWidget(view.replay)
    replay_and_wait(qtbot, loop, view, "replay node by node")
    memory, shared = view.replay.memory.rows(), view.replay.shared.rows()
    assert [answer for _, _, answer in memory] == ["✔ File deleted"] * 3  # completed, then on nodes 1 and 2
    assert shared[0][2] == "✔ File deleted"
    assert [answer for _, _, answer in shared[1:]] == ["✖ replayed (-32602)"] * 2
    assert [node for _, node, _ in shared] == ["node 0", "node 1", "node 2"]  # the replays went to the others
    assert "deleted 3 times" in view.replay.memory.verdict.text()
    assert "deleted once; 2 replay(s) refused" in view.replay.shared.verdict.text()
    assert view.replay.lab.processes == []  # everything it started has stopped


def test_replay_through_haproxy_names_the_node_haproxy_chose(qtbot, loop, view) -> None:
    require("redis-server", "haproxy")
    view.replay.balancer.setChecked(True)
    replay_and_wait(qtbot, loop, view, "replay through HAProxy")
    shared = view.replay.shared.rows()
    assert [node for _, node, _ in shared] == ["node 1", "node 2", "node 0", "node 1"]
    assert [answer for _, _, answer in shared[1:]] == ["✖ replayed (-32602)"] * 3
    assert view.replay.lab.processes == []


def test_a_missing_program_names_its_package(qtbot, loop, view, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import mrtr_studio.teaching.cluster_services as services

    real_which = services.shutil.which
    monkeypatch.setattr(services.shutil, "which", lambda name: None if name == "redis-server" else real_which(name))
    replay_and_wait(qtbot, loop, view, "replay without redis-server")
    assert "redis-server: not installed" in view.replay.available.text()
    assert "apt-get install redis-server" in view.replay.available.text()
    assert "apt-get install redis-server" in view.replay.shared.verdict.text()
    assert [answer for _, _, answer in view.replay.memory.rows()] == ["✔ File deleted"] * 3  # the rest still ran


@pytest.mark.parametrize("through_haproxy", [False, True], ids=["node-by-node", "haproxy"])
def test_a_task_moves_across_nodes_and_completes(qtbot, loop, view, through_haproxy: bool) -> None:  # type: ignore[no-untyped-def]
    require("redis-server", *(["haproxy"] if through_haproxy else []))
    panel = view.replay
    view.pages.setCurrentWidget(panel)
    panel.balancer.setChecked(through_haproxy)
    qtbot.mouseClick(panel.task_box.run_button, Qt.MouseButton.LeftButton)
    assert panel.busy and not panel.run_button.isEnabled()
    run_until(loop, lambda: not panel.busy, timeout=120, what="task across nodes")
    assert panel.task is not None and panel.task.exception() is None, panel.task_box.verdict.text()
    rows = panel.task_box.rows()
    assert rows[0][1:3] == ("tools/call", "node 0") and rows[0][3] == "working"
    assert any(request == "tasks/get" and task == "input_required" for _, request, _, task in rows)
    assert any(request == "tasks/update" for _, request, _, _ in rows)
    assert rows[-1][1] == "tasks/get" and rows[-1][3] == "completed"
    nodes = {node for _, _, node, _ in rows}
    assert len(nodes) >= 2, rows
    if not through_haproxy:  # the route the run names: created on 0, polled on 1, answered on 2
        assert [node for _, request, node, _ in rows if request == "tasks/update"] == ["node 2"]
        assert rows[1][2] == "node 1"
    assert "✔ completed" in panel.task_box.verdict.text()
    assert panel.lab.processes == []
