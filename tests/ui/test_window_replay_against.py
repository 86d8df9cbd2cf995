"""Replay against… in the window: a recorded operation (a real `serve` over HTTP, recorded by `call`)
replayed from its context menu against the embedded engine and a fresh `serve` (nothing differs), and
the whole trace against a changed stdio server (the difference listed, in the rounds and in Compare);
the replayed flows are operations of the trace; a bad server name is said inline."""

import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from mrtr_studio.studio.replay_against import REPLAY_LABEL
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.replay_against_view import ReplayAgainstView, open_replay
from tests.cli.test_serve_command import serve
from tests.replay.processes import SDK_TEXTS, record_sdk_flows

from .recorded_window import opened, recorded, window_on  # noqa: F401 - fixtures
from .test_main_window import Runner, arun, until  # noqa: F401 - fixtures
from .test_window_copy_as import click_entry, right_click

CHANGED = Path(__file__).resolve().parents[1] / "replay" / "changed_server.py"


SILENT = "silent-replay-server"


def running(marker: str) -> bool:
    """A process of this user whose command line holds `marker` is alive."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                return True
        except OSError:
            continue
    return False


def open_from_operation(qtbot: Any, window: MainWindow) -> ReplayAgainstView:
    table = window.operations.table
    menu = right_click(qtbot, table.viewport(), table.visualRect(window.operations.model.index(0, 1)).center())
    click_entry(qtbot, menu, "replayAgainst")
    qtbot.waitUntil(lambda: window.findChild(ReplayAgainstView) is not None)
    view = window.findChild(ReplayAgainstView)
    assert isinstance(view, ReplayAgainstView)
    return view


async def replay_to(qtbot: Any, view: ReplayAgainstView, target: str) -> None:
    view.target.setText(target)
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    await until(lambda: not view.busy and view.task is not None, timeout=60)


def column(tree: Any, number: int) -> list[str]:
    return [tree.topLevelItem(i).text(number) for i in range(tree.topLevelItemCount())]


def test_replayed_against_the_embedded_engine_nothing_differs(
        qtbot: Any, opened: MainWindow, arun: Runner) -> None:  # noqa: F811
    store = opened.studio.store
    recorded_op = store.operations[0]

    async def body() -> None:
        view = open_from_operation(qtbot, opened)
        await replay_to(qtbot, view, "embedded")
        assert view.outcome is not None and view.summary.text() == "1 flow(s), 0 differ"
        assert column(view.flows, 0) == [""] and column(view.flows, 2) == ["complete"]
        assert column(view.rounds, 1) == ["1", "2"] and column(view.rounds, 4) == ["same", "same"]
        assert "asks confirm (elicitation/create) · requestState" in view.rounds.topLevelItem(0).text(3)
        replayed = store.operations[-1]
        assert replayed.label == REPLAY_LABEL + recorded_op.id and replayed.outcome == "complete"
        assert replayed.server == "embedded" and replayed.rounds == 2
        kinds = [m.kind for m in store.messages_of(replayed.id)]
        assert kinds == [m.kind for m in store.messages_of(recorded_op.id)]
        compare = view.compare
        assert compare is not None and compare.isVisibleTo(view)
        assert compare.windowTitle().endswith(f"({recorded_op.id}) with delete_file ({replayed.id})")
        assert len(compare.pairs) == len(kinds)

    arun(body(), timeout=60)


def test_replayed_against_a_fresh_served_engine_nothing_differs(
        qtbot: Any, opened: MainWindow, arun: Runner) -> None:  # noqa: F811
    with serve() as (_, url):
        view = open_from_operation(qtbot, opened)
        arun(replay_to(qtbot, view, url), timeout=60)
    assert view.summary.text() == "1 flow(s), 0 differ", view.status.text()
    assert opened.studio.store.operations[-1].server == url


def test_the_whole_trace_against_a_changed_server_lists_the_difference(
        qtbot: Any, opened: MainWindow, arun: Runner) -> None:  # noqa: F811
    store = opened.studio.store
    action = next(a for a in opened.serve_menu.actions() if a.objectName() == "replayTraceAgainst")
    action.trigger()
    view = opened.findChild(ReplayAgainstView)
    assert isinstance(view, ReplayAgainstView) and view.operation_id is None
    arun(replay_to(qtbot, view, f"stdio:{sys.executable} {CHANGED}"), timeout=60)
    assert view.summary.text() == "1 flow(s), 1 differ", view.status.text()
    assert column(view.flows, 0) == ["≠"] and column(view.flows, 2) == ["aborted"]
    assert column(view.rounds, 0) == ["≠", "≠"]
    assert 'inputs asked {"sure":"elicitation/create"}, recorded {"confirm":"elicitation/create"}' in \
        view.rounds.topLevelItem(0).text(4)
    assert "the server asks for ['sure'], the recording answered only ['confirm']" in \
        view.rounds.topLevelItem(1).text(4)
    replayed = store.operations[-1]
    assert replayed.outcome == "aborted" and "sure" in (replayed.problem or "")
    compare = view.compare
    assert compare is not None and compare.marked_rows()  # the changed inputRequests, side by side
    sure = [p for p in compare.pairs if any("sure" in d.dotted for d in p.differences)]
    assert sure, [d.dotted for p in compare.pairs for d in p.differences]
    QApplication.processEvents()
    # a second whole-trace replay leaves the first replay's operation out
    assert [f.operation_id for f in view.replay.recorded_flows()] == [store.operations[0].id]


def test_a_bad_server_name_is_said_inline(qtbot: Any, opened: MainWindow, arun: Runner) -> None:  # noqa: F811
    before = len(opened.studio.store.operations)
    view = open_from_operation(qtbot, opened)
    arun(replay_to(qtbot, view, "ftp://example"))
    assert view.status.text() == "Cannot replay: replay against http(s)://…, stdio:COMMAND or embedded, not " \
        "'ftp://example'"
    assert view.run_button.isEnabled() and len(opened.studio.store.operations) == before


def test_an_unreachable_server_is_a_difference_of_the_flow(
        qtbot: Any, opened: MainWindow, arun: Runner) -> None:  # noqa: F811
    view = open_from_operation(qtbot, opened)
    arun(replay_to(qtbot, view, f"stdio:{sys.executable} -c pass"), timeout=60)
    assert view.summary.text() == "1 flow(s), 1 differ", view.status.text()
    assert "round 1:" in column(view.rounds, 4)[-1]
    assert opened.studio.store.operations[-1].outcome == "transport_error"


@pytest.fixture(scope="module")
def sdk_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The official Python SDK client's flows, both eras, recorded by the studio's proxy in front of `serve`."""
    path = tmp_path_factory.mktemp("sdk") / "sdk.mrtr.json"
    assert record_sdk_flows(path) == SDK_TEXTS
    return path


def test_the_sdk_clients_flows_replayed_against_a_fresh_serve_are_the_same(
        qtbot: Any, tmp_path: Path, sdk_trace: Path, arun: Runner) -> None:  # noqa: F811
    window = window_on(qtbot, tmp_path, sdk_trace)
    view = open_replay(window, None)
    try:
        with serve() as (_, url):
            arun(replay_to(qtbot, view, url), timeout=90)
    finally:
        arun(window.studio.close())
    assert view.summary.text() == "4 flow(s), 0 differ", (view.status.text(), column(view.rounds, 4))
    assert column(view.flows, 1) == ["tools/call delete_file", "tools/call deploy_wizard", "prompts/get code_review",
                                     "tools/call count_roots"]
    store = window.studio.store
    legacy = store.operation(view.replayed[-1].replayed_id)
    assert legacy.era == "legacy" and legacy.outcome == "complete"
    kinds = [m.kind for m in store.messages_of(legacy.id)]
    assert kinds == ["request", "server_request", "client_response", "complete"]  # roots/list, in its round
    view.flows.setCurrentItem(view.flows.topLevelItem(1))
    assert column(view.rounds, 1) == ["1", "2", "3", "4"] and view.compare is not None
    assert view.compare.windowTitle().endswith(f"with deploy_wizard ({view.replayed[1].replayed_id})")


def test_stop_ends_a_replay_that_waits_on_a_silent_server(qtbot: Any, opened: MainWindow,  # noqa: F811
                                                         arun: Runner) -> None:  # noqa: F811
    store = opened.studio.store
    view = open_from_operation(qtbot, opened)
    view.target.setText(f"stdio:{sys.executable} -c 'import time; time.sleep(60)' {SILENT}")

    async def body() -> None:
        qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
        await until(lambda: store.operations[-1].label.startswith(REPLAY_LABEL))  # round 1 sent, no answer
        assert running(SILENT)
        assert view.busy and view.stop_button.isEnabled() and not view.run_button.isEnabled()
        qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
        await until(lambda: not view.busy)

    arun(body(), timeout=30)
    assert view.status.text().startswith("Stopped:") and view.run_button.isEnabled()
    assert store.operations[-1].outcome == "aborted"
    assert not running(SILENT)  # the stdio server was stopped with the replay
