"""The diagram's "Time to scale" toggle: the rows move to their times, the spans of user, network and
server time are drawn beside the lanes with a time axis, live messages redraw it, and the PNG export
holds what the view shows."""

from pathlib import Path

from PySide6.QtGui import QImage

from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.diagram import SequenceDiagramView
from mrtr_studio.ui.selection import Selection
from tests.trace.test_waterfall import known_times
from tests.trace.view_flows import run_flow


def make_view(qtbot, store: TraceStore) -> SequenceDiagramView:  # type: ignore[no-untyped-def]
    view = SequenceDiagramView(store, Selection())
    qtbot.addWidget(view)
    view.resize(900, 700)
    return view


def test_the_toggle_draws_the_operation_to_scale_and_back(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store = known_times()
    view = make_view(qtbot, store)
    plain = {seq: item.arrow.y for seq, item in view.arrow_items.items()}
    assert view.waterfall is None
    view.waterfall_action.trigger()
    assert view.waterfall_action.isChecked() and view.waterfall is not None
    timed = {seq: item.arrow.y for seq, item in view.arrow_items.items()}
    assert timed.keys() == plain.keys() and timed != plain
    kinds = sorted(span.kind for span, _bar, _label in view.waterfall.bars)
    assert kinds == ["network", "network", "round_trip", "server", "user"]
    tips = [bar.toolTip() for _span, bar, _label in view.waterfall.bars]
    assert "user answering 2000.0 ms (round 2)" in tips and "server 4.0 ms (round 1)" in tips
    assert "network + server" in view.waterfall.legend.text()
    assert view.scene.sceneRect().height() > max(timed.values())
    path = tmp_path / "waterfall.png"
    view.export_to(str(path))
    assert not QImage(str(path)).isNull()
    view.waterfall_action.trigger()
    assert view.waterfall is None
    assert {seq: item.arrow.y for seq, item in view.arrow_items.items()} == plain


def test_live_messages_redraw_the_waterfall(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    view = make_view(qtbot, store)
    view.waterfall_action.trigger()
    run_flow(store, "deploy_wizard", arguments={})
    qtbot.waitUntil(lambda: view.waterfall is not None and len(view.arrow_items) == 8)
    assert sum(span.kind == "user" for span, _b, _l in view.waterfall.bars) == 3
