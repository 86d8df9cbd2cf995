"""Every diagram reads at any size: zoom by transform, Fit width, lanes over the width, a sticky header,
labels that never clip, colours for light and dark palettes, and the Cluster's lane per node."""

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPalette, QWheelEvent
from PySide6.QtWidgets import QApplication

from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.studio.controller import Studio
from mrtr_studio.teaching.cluster import RoundRobinTransport, cluster_lanes, node_lane
from mrtr_studio.trace import Operation, TraceStore
from mrtr_studio.trace.diagram_layout import HEADER, natural_width
from mrtr_studio.transport.memory import MemoryTransport
from mrtr_studio.ui.diagram import SequenceDiagramView
from mrtr_studio.ui.diagram.items import LABEL_FONT, PAD, SUB_FONT, ArrowItem
from mrtr_studio.ui.json_view import JsonInspector
from mrtr_studio.ui.selection import Selection
from mrtr_studio.ui.teaching.cluster_view import ClusterView
from mrtr_studio.ui.teaching.eras_view import ErasView
from mrtr_studio.ui.teaching.lab_view import LabView
from mrtr_studio.ui.teaching.lesson_view import LessonView
from tests.trace.view_flows import demo_server, respond, run_flow
from tests.ui.test_teaching_loop import qt_loop


@pytest.fixture
def loop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    with qt_loop(qapp) as running:
        yield running


def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


def flow_view(qtbot, store: TraceStore, width: int = 900, height: int = 600) -> SequenceDiagramView:
    view = SequenceDiagramView(store, Selection())
    qtbot.addWidget(view)
    view.resize(width, height)
    view.show()
    qtbot.waitExposed(view)
    return view


def every_diagram(qtbot, store: TraceStore) -> dict[str, SequenceDiagramView]:
    """The diagram of each view: Flow, Lessons, Lab, Eras (both), Cluster."""
    studio = Studio(store=store)
    selection = Selection()
    lessons, lab = LessonView(store, selection), LabView(studio, store, selection)
    eras, cluster = ErasView(studio, store, shared=selection), ClusterView(store, window_selection=selection)
    flow = SequenceDiagramView(store, selection)
    for widget in (flow, lessons, lab, eras, cluster):
        qtbot.addWidget(widget)
        widget.resize(1300, 800)
        widget.show()
    settle()
    return {"flow": flow, "lessons": lessons.diagram, "lab": lab.diagram, "eras modern": eras.diagrams["modern"],
            "eras legacy": eras.diagrams["legacy"], "cluster": cluster.diagram}


def key(qtbot, view: SequenceDiagramView, which: Qt.Key) -> None:
    qtbot.keyClick(view.canvas, which, Qt.KeyboardModifier.ControlModifier)


def wheel(view: SequenceDiagramView, notches: int, modifiers: Qt.KeyboardModifier) -> None:
    viewport = view.canvas.viewport()
    centre = QPointF(viewport.width() / 2, viewport.height() / 2)
    event = QWheelEvent(centre, QPointF(viewport.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, 120 * notches), Qt.MouseButton.NoButton, modifiers, Qt.ScrollPhase.NoScrollPhase,
                        False)
    QApplication.sendEvent(viewport, event)


def test_every_diagram_zooms_with_keys_and_wheel_and_ctrl_0_restores(qtbot, loop) -> None:
    store = TraceStore()
    for name, view in every_diagram(qtbot, store).items():
        start = view.canvas.transform().m11()
        key(qtbot, view, Qt.Key.Key_Equal)
        assert view.canvas.transform().m11() > start * 1.1, name
        key(qtbot, view, Qt.Key.Key_Plus)
        bigger = view.canvas.transform().m11()
        key(qtbot, view, Qt.Key.Key_Minus)
        assert start < view.canvas.transform().m11() < bigger, name
        wheel(view, 2, Qt.KeyboardModifier.ControlModifier)
        assert view.canvas.transform().m11() > bigger, name
        zoomed = view.canvas.transform().m11()
        wheel(view, 2, Qt.KeyboardModifier.NoModifier)  # a plain wheel scrolls, it does not zoom
        assert view.canvas.transform().m11() == zoomed, name
        assert view.zoom_label.text() == f"{zoomed * 100:.0f}%"
        key(qtbot, view, Qt.Key.Key_0)
        assert view.canvas.transform().m11() == pytest.approx(start), name


def test_zoom_and_resize_move_items_and_never_create_them(qtbot) -> None:
    store = TraceStore()
    op = run_flow(store, "plan_trip")
    view = flow_view(qtbot, store)
    view.selection.select_operation(op.id)
    settle()
    before = {id(item) for item in view.scene.items()}
    arrows = dict(view.arrow_items)
    for _ in range(4):
        view.zoom_in()
    view.fit_width()
    view.reset_zoom()
    view.resize(500, 600)
    settle()
    assert view.geometry_now.width < 600  # the lanes moved in to the new width ...
    assert {id(item) for item in view.scene.items()} == before  # ... with the very same items
    assert view.arrow_items == arrows


def test_fit_width_fits_and_lanes_spread_over_the_width(qtbot) -> None:
    store = TraceStore()
    op = run_flow(store, "delete_file")
    view = flow_view(qtbot, store, 1400, 600)
    view.selection.select_operation(op.id)
    settle()
    visible = view.canvas.viewport().width()
    # At the default scale the three lanes use the whole width, not a fixed 780 px.
    assert view.zoom == 1.0
    xs = view.geometry_now.x
    assert xs["Server"] - xs["User"] > 0.6 * visible
    assert view.scene.sceneRect().width() <= visible
    view.fit_width()
    settle()
    assert view.canvas.mode == "fit"
    assert view.zoom * natural_width(3) == pytest.approx(view.canvas.viewport().width() - 2, abs=1)
    assert view.scene.sceneRect().width() * view.zoom <= visible
    view.resize(700, 600)  # fit mode keeps fitting
    settle()
    assert view.scene.sceneRect().width() * view.zoom <= view.canvas.viewport().width()
    assert not view.canvas.horizontalScrollBar().isVisible()


def test_lane_headers_stay_visible_after_scrolling(qtbot) -> None:
    store = TraceStore()
    op = run_flow(store, "plan_trip")  # ten rounds: far taller than the view
    view = flow_view(qtbot, store, 700, 400)
    view.selection.select_operation(op.id)
    settle()
    bar = view.canvas.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())
    settle()
    header = view.header
    assert header is not None and header.y() > 0
    top_left = view.canvas.mapFromScene(header.scenePos())
    assert top_left.y() == 0  # its top edge is the viewport's top edge
    assert header.zValue() > max(item.zValue() for item in view.arrow_items.values())
    assert header.title == view.title_text() and "plan_trip" in header.title
    bar.setValue(0)
    settle()
    assert header.y() == 0


def fits_its_slot(item: ArrowItem) -> None:
    rect = item.text_rect()
    left, right = item.slot
    assert left - 0.5 <= rect.left() and rect.right() <= right + 0.5, (item.arrow.label, rect, item.slot)
    label_w = QFontMetricsF(item._label_font()).horizontalAdvance(item.label_text)
    sub_w = max((QFontMetricsF(SUB_FONT).horizontalAdvance(line) for line in item.sub_lines), default=0)
    assert max(label_w, sub_w) + 2 * PAD <= rect.width() + 0.5, item.arrow.label
    assert item.scene() is not None and item.scene().sceneRect().contains(rect)
    tip = item.toolTip()
    assert item.arrow.label in tip and item.arrow.sublabel in tip  # the whole text, always


@pytest.mark.parametrize("width", [520, 900, 1600])
def test_no_label_is_clipped(qtbot, width: int) -> None:
    store = TraceStore()
    op = run_flow(store, "plan_trip")
    view = flow_view(qtbot, store, width, 600)
    view.selection.select_operation(op.id)
    settle()
    items = list(view._arrows)
    for item in items:
        fits_its_slot(item)
    # The three-request summary reads whole: on one line when there is room, wrapped onto two when not.
    asks = next(i for i in items if i.arrow.kind == "input_required")
    assert " ".join(asks.sub_lines) == asks.arrow.sublabel and not asks.clipped
    assert len(asks.sub_lines) == (2 if width < 900 else 1)
    ask_person = next(i for i in items if i.arrow.label.startswith("ask: "))
    if width < 900:  # the person's three questions do not fit one line: elided, whole in the tooltip
        assert ask_person.clipped and ask_person.label_text.endswith("…")
    else:
        assert not any(i.clipped for i in items)


def test_a_label_never_runs_off_the_canvas(qtbot) -> None:
    store = TraceStore()
    op = run_flow(store, "delete_file", arguments={"path": "/" + "very-long-folder-name/" * 12 + "report.txt"})
    view = flow_view(qtbot, store, 600, 500)
    view.selection.select_operation(op.id)
    settle()
    for item in view._arrows:
        fits_its_slot(item)
    request = next(i for i in view._arrows if i.arrow.kind == "request")
    assert request.clipped and len(request.sub_lines) == 2 and request.sub_lines[-1].endswith("…")


def cluster_flow(store: TraceStore) -> Operation:
    """delete_file over three in-memory nodes of one engine, round robin, each message naming its node."""
    engine = demo_server()
    transport = RoundRobinTransport(["mem://0", "mem://1", "mem://2"], factory=lambda _url: MemoryTransport(engine))

    async def main() -> Operation:
        session = ClientSession(transport, ClientSettings(era="modern"), respond, store,  # type: ignore[arg-type]
                                server_label="cluster")
        result = await session.call_tool("delete_file", {"path": "/x"})
        await session.close()
        return result.operation

    return asyncio.run(main())


def test_cluster_diagram_has_one_lane_per_node(qtbot) -> None:
    store = TraceStore()
    op = cluster_flow(store)
    view = ClusterView(store)
    qtbot.addWidget(view)
    view.resize(1300, 800)
    view.show()
    view.diagram.set_lanes(cluster_lanes(3))
    view.selection.select_operation(op.id)
    settle()
    diagram = view.diagram
    assert diagram.layout_model is not None
    assert diagram.layout_model.lanes == ["User", "Client", "Node 0", "Node 1", "Node 2"]
    assert diagram.header is not None and list(diagram.header.geometry.x) == diagram.layout_model.lanes
    hops = [(i.arrow.kind, i.arrow.src, i.arrow.dst) for i in diagram.arrow_items.values()]
    assert hops == [("request", "Client", "Node 0"), ("input_required", "Node 0", "Client"),
                    ("request", "Client", "Node 1"), ("complete", "Node 1", "Client")]
    xs = diagram.geometry_now.x
    assert xs["Client"] < xs["Node 0"] < xs["Node 1"] < xs["Node 2"]
    for item in diagram._arrows:
        fits_its_slot(item)


def test_lanes_appear_as_nodes_answer() -> None:
    from mrtr_studio.trace.diagram_layout import layout_operation

    store = TraceStore()
    op = cluster_flow(store)
    layout = layout_operation(op, store.messages_of(op.id), lane_of=node_lane)
    assert layout.lanes == ["User", "Client", "Server", "Node 0", "Node 1"]


def click_arrow(qtbot, diagram: SequenceDiagramView, seq: int) -> None:
    diagram.canvas.ensureVisible(diagram.arrow_items[seq])
    where = diagram.arrow_position(seq).toPoint()
    qtbot.mouseClick(diagram.canvas.viewport(), Qt.MouseButton.LeftButton, pos=where)


def test_clicking_an_eras_arrow_fills_the_json_inspector(qtbot, loop) -> None:
    store, window = TraceStore(), Selection()
    op = run_flow(store, "delete_file", era="legacy")
    view = ErasView(Studio(store=store), store, shared=window)
    inspector = JsonInspector(store, window)
    for widget in (view, inspector):
        qtbot.addWidget(widget)
    view.resize(1300, 700)
    view.show()
    qtbot.waitExposed(view)
    view.selections["legacy"].select_operation(op.id)
    settle()
    error = store.messages_of(op.id)[-1]
    click_arrow(qtbot, view.diagrams["legacy"], error.seq)
    assert inspector.entry is error
    assert "-32603" in inspector.raw.toPlainText()
    assert view.diagrams["legacy"].operation_id == op.id  # the pinned diagram stays on its era


def test_clicking_a_cluster_arrow_fills_the_json_inspector(qtbot) -> None:
    store, window = TraceStore(), Selection()
    op = cluster_flow(store)
    view = ClusterView(store, window_selection=window)
    inspector = JsonInspector(store, window)
    for widget in (view, inspector):
        qtbot.addWidget(widget)
    view.resize(1300, 800)
    view.show()
    qtbot.waitExposed(view)
    view.selection.select_operation(op.id)
    settle()
    retry = store.messages_of(op.id)[2]
    click_arrow(qtbot, view.diagram, retry.seq)
    assert inspector.entry is retry and window.message_seq == retry.seq
    assert '"requestState"' in inspector.raw.toPlainText()


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#202124"), (QPalette.ColorRole.WindowText, "#e8eaed"),
                         (QPalette.ColorRole.Base, "#17181a"), (QPalette.ColorRole.Text, "#e8eaed"),
                         (QPalette.ColorRole.Highlight, "#3d6fb4")):
        palette.setColor(role, QColor(colour))
    return palette


def contrast(a: QColor, b: QColor) -> float:
    def luminance(c: QColor) -> float:
        channels = (c.redF(), c.greenF(), c.blueF())
        parts = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in channels]
        return 0.2126 * parts[0] + 0.7152 * parts[1] + 0.0722 * parts[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_colours_read_in_light_and_dark_palettes(qtbot) -> None:
    store = TraceStore()
    op = run_flow(store, "delete_file", era="legacy")
    view = flow_view(qtbot, store)
    view.selection.select_operation(op.id)
    settle()
    error = list(view.arrow_items.values())[-1]
    light = view.colours.arrow(error.arrow.style)
    assert contrast(light, view.colours.background) >= 4.5
    view.setPalette(dark_palette())
    settle()
    assert view.colours.dark and view.colours.background == QColor("#17181a")
    dark = view.colours.arrow(error.arrow.style)
    assert dark != light and contrast(dark, view.colours.background) >= 4.5
    assert contrast(view.colours.text, view.colours.background) >= 7
    assert contrast(view.colours.muted, view.colours.background) >= 4.5
    assert contrast(view.colours.text, view.colours.highlight) >= 4.5
    # Colour is never the only cue: the error still says so in words and in its line.
    assert "✖ error" in error.arrow.label and error.arrow.style.line == "solid"


def test_presentation_mode_on_a_diagram_reads_larger_and_comes_back(qtbot) -> None:
    store = TraceStore()
    view = flow_view(qtbot, store, 1400, 700)
    assert view.zoom == 1.0
    view.set_presentation(True)  # what the window calls on every view it finds the method on
    settle()
    assert view.zoom == pytest.approx(1.5) and not view.export_widget.isVisible()
    view.set_presentation(False)
    assert view.zoom == 1.0 and view.export_widget.isVisible()


def lesson_at(qtbot, width: int, height: int) -> Any:
    view = LessonView()
    qtbot.addWidget(view)
    view.resize(width, height)
    view.show()
    qtbot.waitExposed(view)
    settle()
    return view


@pytest.mark.parametrize("size", [(900, 560), (1500, 900)], ids=["1366x768 centre", "1920x1080 centre"])
def test_the_lesson_diagram_reads_at_laptop_and_projector_sizes(qtbot, loop, size: tuple[int, int]) -> None:
    view = lesson_at(qtbot, *size)
    diagram = view.diagram
    # Every lane is on screen, at no less than the readable default scale (the old fit gave ~0.6).
    assert diagram.zoom >= 1.0
    assert diagram.scene.sceneRect().width() * diagram.zoom <= diagram.canvas.viewport().width()
    assert LABEL_FONT.pointSizeF() * diagram.zoom >= 9
    assert diagram.canvas.viewport().height() > HEADER * diagram.zoom + 60  # rows show below the header
    wide = size[0] >= 1300
    assert view.content.orientation() == (Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical)


def test_lesson_presentation_puts_code_and_diagram_side_by_side_larger(qtbot, loop) -> None:
    view = lesson_at(qtbot, 1280, 720)
    code_size = view.source.font().pointSizeF()
    view.set_presentation(True)
    settle()
    assert not view.lessons.isVisible() and not view.html_button.isVisible()
    assert view.content.orientation() == Qt.Orientation.Horizontal
    assert view.source.font().pointSizeF() == pytest.approx(code_size * 1.6)
    assert view.explanation.font().pointSizeF() > view.font().pointSizeF() * 1.5
    assert view.diagram.zoom > 1.0
    diagram = view.diagram
    assert diagram.scene.sceneRect().width() * diagram.zoom <= diagram.canvas.viewport().width() + 1
    view.set_presentation(False)
    settle()
    assert view.lessons.isVisible() and view.source.font().pointSizeF() == pytest.approx(code_size)


def test_lesson_code_and_explanation_zoom_with_the_same_keys(qtbot, loop) -> None:
    view = lesson_at(qtbot, 1300, 800)
    size = view.source.font().pointSizeF()
    qtbot.keyClick(view.source, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert view.source.font().pointSizeF() > size
    assert view.explanation.font().pointSizeF() == pytest.approx(view.text_zoom.scale * view.text_zoom._base[
        id(view.explanation)])
    qtbot.keyClick(view.source, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert view.source.font().pointSizeF() == pytest.approx(size)
    # From anywhere else in the lesson (a button), the keys zoom the code and the diagram together.
    zoom = view.diagram.zoom
    qtbot.keyClick(view.step_button, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    assert view.source.font().pointSizeF() > size and view.diagram.zoom > zoom


def test_teaching_tabs_present_every_view(qtbot, loop) -> None:
    from PySide6.QtWidgets import QMainWindow

    from mrtr_studio.ui.teaching import install_teaching

    store, selection = TraceStore(), Selection()
    window = QMainWindow()
    qtbot.addWidget(window)
    flow = SequenceDiagramView(store, selection)
    window.setCentralWidget(flow)
    teaching = install_teaching(window, Studio(store=store), store, selection)
    window.resize(1600, 900)
    window.show()
    settle()
    teaching.set_presentation(True)
    diagrams = [flow, teaching.lessons.diagram, teaching.lab.diagram, teaching.cluster.diagram,
                *teaching.eras.diagrams.values()]
    assert all(d.presenting and d.canvas.default_zoom == 1.5 for d in diagrams)
    assert teaching.lessons.presenting and teaching.lessons.text_zoom.scale == pytest.approx(1.6)
    teaching.set_presentation(False)
    assert not any(d.presenting for d in diagrams) and teaching.lessons.text_zoom.scale == 1.0


@pytest.mark.parametrize("width", [760, 1500])
def test_eras_diagrams_read_whole_side_by_side_or_stacked(qtbot, loop, width: int) -> None:
    store = TraceStore()
    op = run_flow(store, "delete_file")
    view = ErasView(Studio(store=store), store)
    qtbot.addWidget(view)
    view.resize(width, 900)
    view.show()
    qtbot.waitExposed(view)
    view.selections["modern"].select_operation(op.id)
    settle()
    wanted = Qt.Orientation.Horizontal if width >= 1200 else Qt.Orientation.Vertical
    assert view.columns.orientation() == wanted
    for diagram in view.diagrams.values():
        assert diagram.zoom >= 1.0  # no shrinking to fit two columns into a laptop's centre
        assert diagram.scene.sceneRect().width() * diagram.zoom <= diagram.canvas.viewport().width()


def test_zoom_keys_pressed_on_a_views_buttons_zoom_its_diagram(qtbot, loop) -> None:
    store = TraceStore()
    studio = Studio(store=store)
    flow = SequenceDiagramView(store, Selection())
    lab, eras, cluster = LabView(studio, store, Selection()), ErasView(studio, store), ClusterView(store)
    cases = [(flow, flow.toolbar, [flow]), (lab, lab.run_button, [lab.diagram]),
             (eras, eras.run_button, list(eras.diagrams.values())), (cluster, cluster.start_button, [cluster.diagram])]
    for view, button, diagrams in cases:
        qtbot.addWidget(view)
        view.resize(1300, 800)
        view.show()
        settle()
        before = [d.zoom for d in diagrams]
        qtbot.keyClick(button, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
        assert all(d.zoom > z for d, z in zip(diagrams, before, strict=True)), type(view).__name__
        qtbot.keyClick(button, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
        assert [d.zoom for d in diagrams] == pytest.approx(before)


def test_every_style_has_a_dark_colour_that_reads_on_a_dark_base() -> None:
    from mrtr_studio.trace.diagram_layout import STYLES
    from mrtr_studio.ui.diagram.palette import style_colour

    light, dark = QPalette(QColor("#ffffff")), dark_palette()
    for kind, style in STYLES.items():
        on_light, on_dark = style_colour(style, light), style_colour(style, dark)
        assert contrast(on_light, QColor("#ffffff")) >= 4.5, kind
        assert contrast(on_dark, dark.color(QPalette.ColorRole.Base)) >= 4.5, kind


def test_teaching_views_fit_a_laptops_centre_at_their_minimum(qtbot, loop) -> None:
    """The window must fit 1280 px with docks on both sides: no teaching view may demand more than 600."""
    store = TraceStore()
    studio = Studio(store=store)
    for view in (LessonView(store, Selection()), LabView(studio, store, Selection()), ErasView(studio, store),
                 ClusterView(store)):
        qtbot.addWidget(view)
        view.show()
        settle()
        assert view.minimumSizeHint().width() <= 600, type(view).__name__
