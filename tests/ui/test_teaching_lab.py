"""The lab's grid against the embedded engine: every attack rejected (or re-asked), each one clickable."""

import asyncio
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt

from mrtr_studio.studio.controller import Studio
from mrtr_studio.teaching.lab import ATTACKS
from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.selection import Selection
from mrtr_studio.ui.teaching.lab_view import ANSWER, COLUMNS, VERDICT, LabView
from tests.ui.test_teaching_loop import qt_loop, run_until


@pytest.fixture
def loop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    with qt_loop(qapp) as running:
        yield running


def make_view(qtbot, studio: Studio) -> tuple[LabView, Selection]:
    selection = Selection()
    view = LabView(studio, studio.store, selection)
    qtbot.addWidget(view)
    view.resize(1300, 900)
    view.show()
    return view, selection


def test_every_attack_on_delete_file_is_rejected_on_the_embedded_engine(qtbot, loop) -> None:
    studio = Studio(store=TraceStore())
    view, selection = make_view(qtbot, studio)
    assert view.target.embedded and view.operation.currentData() == ("tools/call", "delete_file")
    assert '"path"' in view.arguments.text()
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    run_until(loop, lambda: view.task is not None and view.task.done(), timeout=30, what="the lab run")
    assert view.task is not None and view.task.result() is not None, view.summary.text()
    rows = [view.row_texts(row) for row in range(view.grid.rowCount())]
    assert [r["Attack"] for r in rows] == [a.title for a in ATTACKS]
    for texts in rows:
        assert texts["Status"] in ("rejected", "re-asked"), texts
        assert texts["Verdict"] == "✔ pass", texts
        assert texts["Level"] in ("MUST", "SHOULD") and texts["Requirement"]
        assert texts["Server's answer"]
    # The verdict is an icon and a word, not a colour alone.
    for index in range(view.grid.rowCount()):
        verdict = view.grid.item(index, VERDICT)
        assert verdict is not None and not verdict.icon().isNull()
    assert "✔ pass 11" in view.summary.text()
    by_title = {r["Attack"]: r for r in rows}
    assert by_title["Flip a byte of the signature"]["Server's answer"] == "-32602 Invalid requestState (signature)"
    assert by_title["Drop the state, keep the answers"]["Status"] == "re-asked"
    assert studio.clock_offset == 0.0  # the expiry attack put the clock back

    # A click on a row shows that attack's flow: its operation, its attacked retry.
    row = [r["Attack"] for r in rows].index("Send as another identity")
    rect = view.grid.visualRect(view.grid.model().index(row, 0))
    qtbot.mouseClick(view.grid.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    op_id = view.last.results[row].operation_id if view.last else None
    assert selection.operation_id == op_id
    assert view.diagram.operation_id == op_id
    assert studio.store.operation(op_id).label == "lab: Send as another identity"
    picked = next(m for m in studio.store.messages_of(op_id) if m.seq == selection.message_seq)
    assert picked.kind == "request" and picked.round == 2
    kinds = [item.arrow.kind for item in view.diagram.arrow_items.values()]
    assert kinds[-1] == "error"
    assert COLUMNS[ANSWER] == "Server's answer"


def test_bad_arguments_are_refused_before_anything_is_sent(qtbot, loop) -> None:
    view, _ = make_view(qtbot, Studio(store=TraceStore()))
    view.arguments.setText("[1, 2]")
    assert view.start() is None
    assert "✖ Arguments" in view.summary.text()


def test_the_studio_connection_is_offered_when_it_is_not_the_embedded_engine(qtbot, loop) -> None:
    from mrtr_studio.studio.server_entries import ServerEntry

    studio = Studio(store=TraceStore())
    studio.entry = ServerEntry("http", name="remote", url="http://127.0.0.1:9/mcp")
    view, _ = make_view(qtbot, studio)
    assert view.target.count() == 2
    view.target.setCurrentIndex(1)
    assert not view.target.embedded and view.second.isEnabled()
    assert view.target.entry() is studio.entry
    view.pick("tools/call", "delete_file", {"path": "/x"})
    view.start()
    run_until(loop, lambda: view.task is not None and view.task.done(), timeout=30)
    assert view.task is not None and view.task.result() is None  # nothing listens on port 9
    assert "could not run" in view.summary.text(), view.summary.text()


@pytest.mark.slow
def test_the_grid_runs_against_an_external_server_too(qtbot, loop) -> None:
    from mrtr_studio.studio.server_entries import ServerEntry
    from mrtr_studio.teaching.cluster import start_cluster

    cluster = loop.run_until_complete(start_cluster(1))  # one real `mrtr-studio serve` process
    try:
        studio = Studio(store=TraceStore())
        studio.entry = ServerEntry("http", name="serve", url=cluster.urls[0])
        view, _ = make_view(qtbot, studio)
        view.target.setCurrentIndex(1)
        view.start()
        run_until(loop, lambda: view.task is not None and view.task.done(), timeout=60)
        rows = {view.row_texts(r)["Attack"]: view.row_texts(r) for r in range(view.grid.rowCount())}
    finally:
        loop.run_until_complete(cluster.stop())
    assert rows["Send after expiry"]["Verdict"] == "○ skipped"  # the studio cannot move a remote clock
    assert rows["Send as another identity"]["Verdict"] == "○ skipped"
    assert "second identity" in rows["Send as another identity"]["Detail"]
    others = [r for title, r in rows.items() if title not in ("Send after expiry", "Send as another identity")]
    assert all(r["Verdict"] == "✔ pass" for r in others), others


def test_a_tool_that_becomes_a_task_gets_the_task_attacks(qtbot, loop) -> None:
    from mrtr_studio.teaching.task_lab import TASK_ATTACKS

    studio = Studio(store=TraceStore())
    view, _selection = make_view(qtbot, studio)
    view.pick("tools/call", "confirm_delete", {"filename": "lab.txt"})
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    run_until(loop, lambda: view.task is not None and view.task.done(), timeout=60, what="the lab run")
    assert view.task is not None and view.task.result() is not None, view.summary.text()
    rows = [view.row_texts(row) for row in range(view.grid.rowCount())]
    assert [r["Attack"] for r in rows] == [a.title for a in TASK_ATTACKS]
    assert all(r["Verdict"] == "✔ pass" for r in rows), rows
    assert "✔ pass 3" in view.summary.text()


def test_the_attack_names_read_whole_before_the_first_run(qtbot, loop) -> None:
    view, _ = make_view(qtbot, Studio())
    attack = COLUMNS.index("Attack")
    metrics = view.grid.fontMetrics()
    widest = max(metrics.horizontalAdvance(a.title) for a in ATTACKS)
    assert view.grid.columnWidth(attack) >= widest, (view.grid.columnWidth(attack), widest)
