"""The log's filter bar in the window: an expression filters the log (the same messages as
`compile_filter().messages()`), a mistake is shown inline with its column while the last filter stays,
completion comes from complete() through the QCompleter, saved filters come back from QSettings, the
operations list and the diagram dim what does not match; Expert info groups the findings."""

from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from mrtr_studio.trace.filter import compile_filter
from mrtr_studio.trace.model import Finding
from mrtr_studio.ui.filter_bar import FilterBar
from mrtr_studio.ui.filter_links import DIMMED
from mrtr_studio.ui.main_window import MainWindow
from tests.trace.view_flows import run_flow

from .recorded_window import opened, recorded  # noqa: F401 - fixtures


def shown_seqs(window: MainWindow) -> list[int]:
    log = window.log
    return [log.model.message_at(log.proxy.mapToSource(log.proxy.index(r, 0)).row()).seq
            for r in range(log.proxy.rowCount())]


def type_into(qtbot: Any, bar: FilterBar, text: str) -> None:
    bar.edit.setFocus()
    qtbot.keyClicks(bar.edit, text)


def test_an_expression_filters_the_log_and_a_mistake_keeps_the_last_filter(qtbot: Any, opened: MainWindow) -> None:  # noqa: F811
    store = opened.studio.store
    bar = opened.log.filter_bar
    everything = shown_seqs(opened)
    type_into(qtbot, bar, "round:>1 dir:c2s")
    expected = [m.seq for m in compile_filter("round:>1 dir:c2s").messages(store.operations, store.messages)]
    assert expected and shown_seqs(opened) == expected and len(expected) < len(everything)
    assert bar.error.isHidden()
    qtbot.keyClicks(bar.edit, " (kind:")
    assert not bar.error.isHidden() and bar.error.text().startswith("column ")
    assert shown_seqs(opened) == expected  # still the last valid filter
    bar.edit.clear()
    assert shown_seqs(opened) == everything and bar.error.isHidden()


def test_completion_offers_fields_then_the_traces_tools(qtbot: Any, opened: MainWindow) -> None:  # noqa: F811
    bar = opened.log.filter_bar
    type_into(qtbot, bar, "too")
    qtbot.waitUntil(lambda: bar.completer.popup().isVisible())
    popup = bar.completer.popup()
    labels = [popup.model().index(r, 0).data() for r in range(popup.model().rowCount())]
    assert labels == ["the operation's tool"]
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert bar.edit.text() == "tool:"
    qtbot.keyClicks(bar.edit, "del")
    qtbot.waitUntil(lambda: bar.completer.popup().isVisible()
                    and bar.completer.popup().model().rowCount() == 1)
    assert bar.completer.popup().model().index(0, 0).data() == "tool:delete_file"
    qtbot.keyClick(bar.completer.popup(), Qt.Key.Key_Return)
    assert bar.edit.text() == "tool:delete_file " and bar.filter is not None


def test_saved_filters_come_back_in_the_next_session(qtbot: Any, opened: MainWindow, tmp_path: Any) -> None:  # noqa: F811
    bar = opened.log.filter_bar
    bar.set_text("kind:input_required")
    bar.saved_menu.aboutToShow.emit()
    next(a for a in bar.saved_menu.actions() if a.objectName() == "saveFilter").trigger()
    opened.settings.sync()
    later = FilterBar(opened.studio.store, QSettings(opened.settings.fileName(), QSettings.Format.IniFormat))
    qtbot.addWidget(later)
    later.saved_menu.aboutToShow.emit()
    entry = next(a for a in later.saved_menu.actions() if a.text() == "kind:input_required")
    entry.trigger()
    assert later.edit.text() == "kind:input_required" and later.filter is not None


def test_the_operations_list_and_the_diagram_dim_what_does_not_match(qtbot: Any, opened: MainWindow) -> None:  # noqa: F811
    store = opened.studio.store
    other = run_flow(store, "count_roots")
    qtbot.waitUntil(lambda: opened.operations.model.rowCount() == 2)
    recorded_op = store.operations[0]
    opened.selection.select_operation(recorded_op.id)
    qtbot.waitUntil(lambda: bool(opened.diagram.arrow_items) and opened.diagram.operation_id == recorded_op.id)
    opened.log.filter_bar.set_text("tool:delete_file kind:input_required")
    model = opened.operations.model
    row_of = model.index_.row_of
    assert model.index(row_of(other.id), 1).data(Qt.ItemDataRole.ForegroundRole) is not None
    assert model.index(row_of(recorded_op.id), 1).data(Qt.ItemDataRole.ForegroundRole) is None
    arrows = opened.diagram.arrow_items
    kinds = {m.seq: m.kind for m in store.messages}
    qtbot.waitUntil(lambda: any(item.opacity() == DIMMED for item in arrows.values()))
    assert {seq for seq, item in arrows.items() if item.opacity() == 1.0} == {
        seq for seq in arrows if kinds[seq] == "input_required"}
    opened.log.filter_bar.set_text("")
    qtbot.waitUntil(lambda: all(item.opacity() == 1.0 for item in arrows.values()))
    assert model.index(row_of(other.id), 1).data(Qt.ItemDataRole.ForegroundRole) is None


def test_expert_info_groups_findings_and_a_click_selects_the_message(qtbot: Any, opened: MainWindow) -> None:  # noqa: F811
    store = opened.studio.store
    panel = opened.expert_info
    tabs = opened.workbench.bottom
    assert tabs.tabText(opened.workbench.page_index(tabs, opened.errors) + 1) == "Expert info"
    first, second = store.messages[1], store.messages[2]
    store.add_findings(first, [Finding("retry-new-id", "error", "the retry reuses id 2"),
                               Finding("state-echo", "warning", "requestState not echoed")])
    store.add_findings(second, [Finding("retry-new-id", "error", "the retry reuses id 3")])
    qtbot.waitUntil(lambda: panel.tally.counts.get("error") == 2)
    assert panel.tally.counts.get("warning") == 1
    top = panel.tree.topLevelItem(0)
    assert (top.text(0), top.text(1)) == ("Errors", "2")
    assert (top.child(0).text(0), top.child(0).text(1)) == ("retry-new-id", "2")
    assert "2 errors · 1 warnings" in opened.findChild(type(panel.status_label), "expertCounts").text()
    leaf = next(item for item in panel.leaves() if item.text(2) == "the retry reuses id 3")
    tabs.setCurrentIndex(opened.workbench.page_index(tabs, panel))
    panel.tree.scrollToItem(leaf)
    QApplication.processEvents()
    rect = panel.tree.visualItemRect(leaf)
    qtbot.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert opened.selection.message_seq == second.seq


def test_completion_offers_the_traces_principals(qtbot: Any, opened: MainWindow) -> None:  # noqa: F811
    bar = opened.log.filter_bar
    type_into(qtbot, bar, "principal:al")
    labels = [c.label for c in bar.offer_completions()]
    assert labels == ["principal:alice"]  # who the recorded call ran as (its bearer token's principal)
