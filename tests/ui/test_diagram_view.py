"""The sequence diagram widget: arrows per message, styles, nesting, clicks, incremental growth, export."""

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsRectItem

from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.diagram import ArrowItem, SequenceDiagramView
from mrtr_studio.ui.diagram.items import ACTIVATION_W
from mrtr_studio.ui.selection import Selection
from tests.trace.view_flows import run_flow


def make_view(qtbot, store: TraceStore) -> tuple[SequenceDiagramView, Selection]:  # type: ignore[no-untyped-def]
    selection = Selection()
    view = SequenceDiagramView(store, selection)
    qtbot.addWidget(view)
    view.resize(900, 700)
    return view, selection


def test_two_rounds_draw_four_arrows(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    view, selection = make_view(qtbot, store)
    op = run_flow(store, "delete_file")
    selection.select_operation(op.id)
    assert [item.arrow.kind for item in view.arrow_items.values()] == [
        "request", "input_required", "request", "complete"]
    assert "complete" in view.title_text() and view.header is not None and view.header.title == view.title_text()


def test_newest_operation_is_shown_when_none_is_selected(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    view, _selection = make_view(qtbot, store)
    run_flow(store, "delete_file")
    op = run_flow(store, "delete_file", era="legacy")
    qtbot.waitUntil(lambda: view.operation_id == op.id)
    kinds = [item.arrow.kind for item in view.arrow_items.values()]
    assert kinds == ["request", "error"]
    error = list(view.arrow_items.values())[1]
    assert error.arrow.style.line == "solid" and error.arrow.style.colour == "#c0392b"


def test_legacy_server_request_is_nested(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    view, selection = make_view(qtbot, store)
    op = run_flow(store, "count_roots", era="legacy", arguments={})
    selection.select_operation(op.id)
    items = list(view.arrow_items.values())
    assert [(i.arrow.kind, i.arrow.depth) for i in items] == [
        ("request", 0), ("server_request", 1), ("client_response", 1), ("complete", 0)]
    # The server request leaves from within the call's activation bar on the Server lane.
    server_bar = next(item for item in view.scene.items()
                      if isinstance(item, QGraphicsRectItem) and item.rect().top() == items[0].arrow.y)
    assert server_bar.rect().left() <= items[1].x1 <= server_bar.rect().right() + 1
    assert server_bar.rect().top() < items[1].arrow.y < server_bar.rect().bottom()


def test_live_messages_add_arrows_without_rebuilding(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    view, selection = make_view(qtbot, store)
    op = store.begin_operation("tools/call", "delete_file", {"path": "/x"}, "2026-07-28", "embedded")
    selection.select_operation(op.id)
    rebuilds: list[int] = []
    monkeypatch.setattr(view, "rebuild", lambda: rebuilds.append(1))
    first = store.record(op.id, 1, "client->server", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                      "params": {"name": "delete_file"}})
    item = view.arrow_items[first.seq]
    scene_items = len(view.scene.items())
    store.record(op.id, 1, "server->client", {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required", "inputRequests": {}, "requestState": "x"}})
    assert rebuilds == []
    assert view.arrow_items[first.seq] is item and len(view.arrow_items) == 2
    assert len(view.scene.items()) == scene_items + 1  # one arrow; the activation bar only got shorter


def test_clicking_an_arrow_selects_the_message(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    view, selection = make_view(qtbot, store)
    op = run_flow(store, "delete_file")
    selection.select_operation(op.id)
    view.show()
    qtbot.waitExposed(view)
    target = store.messages_of(op.id)[2]
    with qtbot.waitSignal(selection.messageChanged) as signal:
        where = view.arrow_position(target.seq).toPoint()
        qtbot.mouseClick(view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert signal.args == [target.seq]
    assert selection.message_seq == target.seq and selection.operation_id == op.id
    assert view.arrow_items[target.seq].highlighted


def test_export_png_svg_and_mermaid(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    view, selection = make_view(qtbot, store)
    op = run_flow(store, "delete_file")
    selection.select_operation(op.id)
    view.export_to(str(tmp_path / "d.png"))
    view.export_to(str(tmp_path / "d.svg"))
    view.export_to(str(tmp_path / "d.mmd"))
    assert (tmp_path / "d.mmd").read_text().startswith("sequenceDiagram")
    assert (tmp_path / "d.png").read_bytes().startswith(b"\x89PNG")
    svg = (tmp_path / "d.svg").read_text()
    assert "<svg" in svg and "delete_file" in svg


def test_an_exported_png_does_not_show_the_selection(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    view, selection = make_view(qtbot, store)
    op = run_flow(store, "delete_file")
    selection.select_operation(op.id)
    view.export_to(str(tmp_path / "plain.png"))
    selection.select(store.messages_of(op.id)[1])  # a highlighted arrow, as after a click
    assert any(item.highlighted for item in view.arrow_items.values())
    view.export_to(str(tmp_path / "selected.png"))
    assert (tmp_path / "selected.png").read_bytes() == (tmp_path / "plain.png").read_bytes()
    assert any(item.highlighted for item in view.arrow_items.values())  # the window keeps showing it


def test_arrow_items_are_arrow_items(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    view, _ = make_view(qtbot, store)
    assert all(isinstance(i, ArrowItem) for i in view.arrow_items.values())


def test_labels_are_drawn_over_nested_activation_bars(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    view, selection = make_view(qtbot, store)
    op = run_flow(store, "count_roots", era="legacy", arguments={})  # a server request inside the open call
    selection.select_operation(op.id)

    def heights() -> tuple[list[float], list[float]]:  # numbers only: no item wrappers outlive the scene
        bars = [item.zValue() for item in view.scene.items() if type(item) is QGraphicsRectItem
                and item.rect().width() == ACTIVATION_W]
        return bars, [arrow.zValue() for arrow in view.arrow_items.values()]

    bars, arrows = heights()
    assert len(bars) >= 2 and arrows  # the call's bar and the nested request's
    assert max(bars) < min(arrows)
